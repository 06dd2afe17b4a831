// The client worker of an ORB target (PROTOCOL.md, "Client worker"): the binding of every C++ ORB, against the
// standard CORBA C++ mapping. Its arguments are ORB options (-ORB...), passed to ORB_init after the port's own.
#include <cstring>
#include <optional>

#include "corba_errors.hpp"
#include "idl_client.hpp"
#include "orb_args.hpp"
#include "orb_port.hpp"
#include "orb_shapes.hpp"
#include "payload_values.hpp"

namespace orbench {

struct OrbBinding {
  using Payloads = std::tuple<orbench::Octets, orbench::Records, orbench::Longs, orbench::Doubles, orbench::Strings>;
  using Ref = orbench::Bench_ptr;
  static constexpr bool kObjects = true;
  std::vector<std::string> orb_args;  // what base_orb was initialized with (argv[0] first)
  CORBA::ORB_var base_orb;
  CORBA::ORB_var orb;                         // the ORB the connection uses: base_orb, or one made for options
  std::vector<std::string> option_orb_args;   // the -ORB arguments orb got for its options
  std::vector<CORBA::ORB_var> option_orbs;    // every ORB made for options, destroyed with the binding
  orbench::Bench_var bench;                 // object 0, the endpoint's
  std::vector<orbench::Bench_var> more;     // objects 1.. of the server, from references()
  std::optional<SyncScope> sync_scope;      // connect's, set on every object's reference

  explicit OrbBinding(std::vector<std::string>& args) {
    orb_args = {args.at(0)};
    for (auto& arg : orb_port::client_orb_args()) orb_args.push_back(arg);
    orb_args.insert(orb_args.end(), args.begin() + 1, args.end());
    OrbArgs argv(orb_args);
    base_orb = CORBA::ORB_init(argv.argc(), argv.argv());
    args.assign(argv.argv(), argv.argv() + argv.argc());  // ORB_init takes out the options it understood
    orb = CORBA::ORB::_duplicate(base_orb.in());
  }
  ~OrbBinding() {
    disconnect();
    option_orbs.push_back(base_orb._retn());
    for (auto& each : option_orbs) {
      try {
        each->destroy();
      } catch (const CORBA::Exception&) {
        // Already gone: nothing to release.
      }
    }
  }
  static MiddlewareInfo info() { return {orb_port::target_name(), orb_port::orb_name(), orb_port::orb_version()}; }

  void connect(const std::string& endpoint, const ConnectOptions& options) {
    // ORB-wide settings (TCP_NODELAY, socket buffers) exist only as ORB_init arguments: an ORB of their own,
    // under its own ORB id, when they differ from the current one's. Throws `unsupported` for what this ORB
    // cannot set.
    const std::vector<std::string> option_args = orb_port::client_option_args(options);
    disconnect();
    if (option_args != option_orb_args) {
      if (option_args.empty()) {
        orb = CORBA::ORB::_duplicate(base_orb.in());
      } else {
        std::vector<std::string> args = orb_args;
        args.insert(args.end(), option_args.begin(), option_args.end());
        OrbArgs argv(args);
        const std::string orb_id = "orbench-options-" + std::to_string(option_orbs.size() + 1);
        CORBA::ORB_var made = with_corba_errors("connect", [&] { return CORBA::ORB_init(argv.argc(), argv.argv(), orb_id.c_str()); });
        option_orbs.push_back(CORBA::ORB::_duplicate(made.in()));
        orb = made._retn();
      }
      option_orb_args = option_args;
    }
    CORBA::Object_var object;
    try {
      object = orb->string_to_object(endpoint.c_str());
    } catch (const CORBA::Exception& error) {
      throw WorkerError(ErrorKind::usage, "bad endpoint: " + describe_corba_exception(error));
    }
    // _narrow may call the server (_is_a) when the IOR's type id does not say enough.
    orbench::Bench_var narrowed = with_corba_errors("connect", [&] { return orbench::Bench::_narrow(object.in()); });
    if (CORBA::is_nil(narrowed.in())) throw WorkerError(ErrorKind::usage, "endpoint is not an orbench::Bench");
    if (options.sync_scope) {
      // A SyncScopePolicy override on this reference only (CORBA Messaging); `unsupported` where the ORB has none.
      narrowed = orb_port::with_sync_scope(orb.in(), narrowed.in(), *options.sync_scope);
    }
    bench = narrowed._retn();
    sync_scope = options.sync_scope;
  }
  void disconnect() {
    shapes_.forget_remote();
    more.clear();
    bench = orbench::Bench::_nil();
  }
  bool connected() const { return !CORBA::is_nil(bench.in()); }
  Ref target(Mode, size_t object) const { return object == 0 ? bench.in() : more[object - 1].in(); }

  size_t object_count() const { return connected() ? 1 + more.size() : 0; }
  std::vector<std::string> references(uint32_t first, uint32_t count) {
    orbench::Strings_var got = bench->references(first, count);
    const orbench::Strings& list = got.in();
    std::vector<std::string> out;
    for (CORBA::ULong i = 0; i < list.length(); ++i) out.emplace_back(list[i].in());
    return out;
  }
  // Narrowed once here, so that no call of a run asks the server (_is_a) what the object is, and called once
  // (counters(), a twoway without effect), so that no timed call is the reference's first: an ORB binds a
  // reference to its connection at its first request (omniORB: about 10 allocations).
  void add_object(const std::string& reference) {
    CORBA::Object_var object = orb->string_to_object(reference.c_str());
    orbench::Bench_var narrowed = orbench::Bench::_narrow(object.in());
    if (CORBA::is_nil(narrowed.in())) {
      throw WorkerError(ErrorKind::remote, "references() returned a reference that is not an orbench::Bench");
    }
    if (sync_scope) narrowed = orb_port::with_sync_scope(orb.in(), narrowed.in(), *sync_scope);
    narrowed->counters();
    more.push_back(narrowed._retn());
  }

  // A collocated run counts on the servant in this process, every other on the server's.
  orbench::Bench_ptr counting() { return shapes_.collocated(shape) ? shapes_.local(orb.in()) : bench.in(); }
  void reset_counters() { counting()->reset_counters(); }
  void shutdown() { counting()->shutdown(); }
  Counts counters() {
    const orbench::Counters counts = counting()->counters();
    return {counts.messages, counts.bytes};
  }
  SyncOutcome sync(uint64_t expected, uint32_t timeout_ms) {
    const orbench::SyncResult result = counting()->sync(expected, timeout_ms);
    return {static_cast<bool>(result.complete), {result.received.messages, result.received.bytes}};
  }

  template <PayloadType T, class P>
  static void fill(P& payload, uint64_t count) {
    payload.length(static_cast<CORBA::ULong>(count));
    payload::fill_indexed<T>(payload, count);
  }
  template <PayloadType T, class P>
  static bool same(const P& a, const P& b) {
    return orb_same<T>(a, b);
  }
  // One object reference serves every thread: the ORB's stubs are thread-safe, as an application needs.
  template <PayloadType T, class P, class Pick>
  auto oneway(const P& p, Pick pick, uint32_t) { return [&p, pick](uint64_t i) { call_push<T>(*pick(i), p); }; }
  template <PayloadType T, class P, class Pick>
  auto twoway(const P& p, Pick pick, uint32_t) { return [&p, pick](uint64_t i) { call_send<T>(*pick(i), p); }; }
  template <PayloadType T, class P, class Pick>  // the reply is owned (and freed) outside the timed interval, like the check
  auto echo(const P& p, Pick pick, uint32_t) {
    return [&p, pick](uint64_t i) { return std::unique_ptr<P>(call_echo<T>(*pick(i), p)); };
  }
  template <class Body>
  static auto guarded(const char* what, Body&& body) { return with_corba_errors(what, body); }

  // Invocation shapes (orb_shapes.hpp).
  static std::vector<std::string> shapes() { return OrbShapes::kinds(); }
  void use_shape(const ShapeSpec& next) {
    shape = next;
    if (!shape.is_in()) shapes_.target(orb.in(), bench.in(), shape);  // the DSI or local object, untimed
  }
  template <PayloadType T, class P>
  TimedSpan shaped_calls(const ShapeSpec& s, Mode mode, const P& payload, int64_t* samples_ns, uint64_t calls) {
    return shapes_.calls<T>(orb.in(), bench.in(), s, mode, payload, samples_ns, calls);
  }
  nlohmann::ordered_json shape_answer() const { return shapes_.answer(); }
  ShapeSpec shape;
  OrbShapes shapes_;
};

}  // namespace orbench

int main(int argc, char** argv) { return orbench::idl_client_main<orbench::OrbBinding>(argc, argv); }
