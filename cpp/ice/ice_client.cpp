// orbench-ice-client: the ice-cpp target's client worker, on Ice's C++11 mapping of the Slice file the IDL
// translator writes. Twoway and echo calls go through the proxy as it is, IDL oneways through its ice_oneway()
// form, Ice's own oneway (PROTOCOL.md, "gRPC and Ice"); the invocation shapes Slice expresses are in
// ice_shapes.hpp. Its arguments are Ice properties (--Ice.Name=value).
#include <algorithm>

#include <Ice/Ice.h>

#include "ice_errors.hpp"
#include "ice_shapes.hpp"
#include "idl_client.hpp"
#include "orbench.h"
#include "payload_values.hpp"

namespace orbench {

struct IceBinding {
  using Payloads = std::tuple<Octets, Records, Longs, Doubles, Strings>;
  using Ref = BenchPrx*;
  static constexpr bool kObjects = true;
  Ice::CommunicatorHolder holder;
  // Object k's proxy and its ice_oneway() form; 0 is the endpoint's, the others come from references(). Ice
  // keeps one connection per endpoint for all of them.
  std::vector<std::shared_ptr<BenchPrx>> twoway_proxies;
  std::vector<std::shared_ptr<BenchPrx>> oneway_proxies;

  explicit IceBinding(std::vector<std::string>& args) : holder(args) {}  // takes the --Ice.* arguments out of args
  static MiddlewareInfo info() { return {"ice-cpp", "Ice", ICE_STRING_VERSION}; }

  void connect(const std::string& endpoint, const ConnectOptions& options) {
    refuse_connect_options(options, "Ice");
    disconnect();
    std::shared_ptr<Ice::ObjectPrx> base;
    try {
      base = holder->stringToProxy(endpoint);
    } catch (const Ice::Exception& error) {
      throw WorkerError(ErrorKind::usage, std::string("bad endpoint: ") + error.what());
    }
    if (!base) throw WorkerError(ErrorKind::usage, "bad endpoint: an empty proxy");
    // No checkedCast (a remote ice_isA): the client's reset_counters is the one call that proves the server.
    add(base);
  }
  void add(const std::shared_ptr<Ice::ObjectPrx>& base) {
    twoway_proxies.push_back(Ice::uncheckedCast<BenchPrx>(base));
    oneway_proxies.push_back(twoway_proxies.back()->ice_oneway());
  }
  void disconnect() { twoway_proxies.clear(), oneway_proxies.clear(), shapes_proxy.reset(); }
  bool connected() const { return !twoway_proxies.empty(); }
  Ref target(Mode mode, size_t object) const {
    return (mode == Mode::oneway ? oneway_proxies : twoway_proxies)[object].get();
  }

  size_t object_count() const { return twoway_proxies.size(); }
  std::vector<std::string> references(uint32_t first, uint32_t count) {
    return twoway_proxies[0]->references(first, count);
  }
  // Called once (counters(), a twoway without effect), so that no timed call is the proxy's first: a proxy
  // finds its connection at its first request.
  void add_object(const std::string& reference) {
    std::shared_ptr<Ice::ObjectPrx> base = holder->stringToProxy(reference);
    if (!base) throw WorkerError(ErrorKind::remote, "references() returned an empty proxy");
    add(base);
    twoway_proxies.back()->counters();
  }

  void reset_counters() { twoway_proxies[0]->reset_counters(); }
  void shutdown() { twoway_proxies[0]->shutdown(); }
  Counts counters() {
    const Counters counts = twoway_proxies[0]->counters();
    return {static_cast<uint64_t>(counts.messages), static_cast<uint64_t>(counts.bytes)};
  }
  SyncOutcome sync(uint64_t expected, uint32_t timeout_ms) {
    const SyncResult r =
        twoway_proxies[0]->sync(static_cast<long long>(expected), static_cast<long long>(timeout_ms));
    return {r.complete, {static_cast<uint64_t>(r.received.messages), static_cast<uint64_t>(r.received.bytes)}};
  }

  template <PayloadType T, class P>
  static void fill(P& payload, uint64_t count) { payload.resize(count), payload::fill_indexed<T>(payload, count); }
  template <PayloadType T, class P>
  static bool same(const P& reply, const P& request) {
    if constexpr (T != PayloadType::records) return reply == request;
    else return std::equal(reply.begin(), reply.end(), request.begin(), request.end(), payload::same_record<Record>);
  }
  // A proxy serves every thread (Ice proxies are thread-safe).
  template <PayloadType T, class P, class Pick>
  auto oneway(const P& p, Pick pick, uint32_t) { return [&p, pick](uint64_t i) { call_push<T>(*pick(i), p); }; }
  template <PayloadType T, class P, class Pick>
  auto twoway(const P& p, Pick pick, uint32_t) { return [&p, pick](uint64_t i) { call_send<T>(*pick(i), p); }; }
  template <PayloadType T, class P, class Pick>  // the reply is freed after the second clock read, with the check
  auto echo(const P& p, Pick pick, uint32_t) { return [&p, pick](uint64_t i) { return call_echo<T>(*pick(i), p); }; }
  template <class Body>
  static auto guarded(const char* what, Body&& body) { return with_ice_errors(what, body); }

  // Invocation shapes (ice_shapes.hpp), on object 0 as a Shapes: no remote call until the first shaped one
  // (a server whose object is no Shapes answers it with OperationNotExistException).
  static std::vector<std::string> shapes() { return IceShapes::kinds(); }
  void use_shape(const ShapeSpec& shape) {
    if (!shape.is_in() && !shapes_proxy) shapes_proxy = Ice::uncheckedCast<ShapesPrx>(twoway_proxies[0]);
  }
  template <PayloadType T, class P>
  TimedSpan shaped_calls(const ShapeSpec& shape, Mode mode, const P& payload, int64_t* samples_ns, uint64_t calls) {
    return shapes_.calls<T>(*shapes_proxy, shape, mode, payload, samples_ns, calls,
                            [](const P& reply, const P& request) { return same<T>(reply, request); });
  }
  nlohmann::ordered_json shape_answer() const { return shapes_.answer(); }
  std::shared_ptr<ShapesPrx> shapes_proxy;
  IceShapes shapes_;
};

}  // namespace orbench

int main(int argc, char** argv) { return orbench::idl_client_main<orbench::IceBinding>(argc, argv); }
