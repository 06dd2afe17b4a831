// The client worker of every IDL-driven middleware (the CORBA ORBs, gRPC, Ice): one template holds what they
// share (the payloads, prepare, the payload-type and mode switches, untimed calls, the timed loop), so a
// middleware adds only a binding: how to connect, and how to make each call for each payload type.
#pragma once

#include <algorithm>
#include <csignal>
#include <cstddef>
#include <iostream>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "client_worker.hpp"
#include "connect_options.hpp"
#include "object_order.hpp"
#include "protocol_out.hpp"
#include "worker_error.hpp"

namespace orbench {

// A binding B provides (ice/ice_client.cpp is the shortest one):
//   using Payloads = std::tuple<Octets, Records, Longs, Doubles, Strings>;  its sequence types, in PayloadType order
//   using Ref = ...;  what a call is made on (a stub or proxy pointer), as target() gives it
//   static constexpr bool kObjects;  whether it can call a server's several objects (below)
//   static constexpr bool kThreads;  optional, true when absent: whether threads may share it (thrift: no)
//   explicit B(std::vector<std::string>& args);  its runtime, from the worker's arguments (argv[0] first),
//                                                taking out those it understood
//   static MiddlewareInfo info();              its target name unless the worker is given --target NAME
//   void connect(const std::string& endpoint, const ConnectOptions& options);   no remote call needed
//   void disconnect();  bool connected() const;
//   void reset_counters();  Counts counters();  SyncOutcome sync(uint64_t expected, uint32_t timeout_ms);
//   void shutdown();  the IDL's shutdown(), returning once its reply came
//   Ref target(Mode mode, size_t object) const;  what a call of `mode` to object `object` (0: the endpoint's) is made on
//   template <PayloadType T, class P> static void fill(P& payload, uint64_t count);   payload_values.hpp
//   template <PayloadType T, class P> static bool same(const P& reply, const P& request);
//   template <PayloadType T, class P, class Pick> auto oneway(const P& payload, Pick pick, uint32_t thread);
//   template <PayloadType T, class P, class Pick> auto twoway(const P& payload, Pick pick, uint32_t thread);
//   template <PayloadType T, class P, class Pick> auto echo(const P& payload, Pick pick, uint32_t thread);
//       the call closures of a run on thread `thread` (0 .. kMaxThreads - 1; closures of different threads
//       run at once), (uint64_t i) -> void, echo's returning the reply or a pointer to it; call i is made on
//       pick(i), a Ref
//   template <class Body> static auto guarded(const char* what, Body&& body);  its exceptions as WorkerError
// and with kObjects (PROTOCOL.md, "Load at scale"):
//   size_t object_count() const;  the objects it holds a reference of (1 once connected)
//   std::vector<std::string> references(uint32_t first, uint32_t count);  the IDL operation
//   void add_object(const std::string& reference);  object object_count(), from its stringified reference
struct MiddlewareInfo {
  std::string target;   // the descriptor's name, e.g. "ice-cpp"
  std::string orb;      // the product, e.g. "Ice"
  std::string version;
};

// The IDL operations of each payload type, by their names in orbench.idl: one table for every middleware whose
// compiler keeps those names (omniidl, tao_idl, protoc, slice2cpp, thrift); the arguments are the middleware's
// own. A binding whose interface language renames them needs a table of its own: Cap'n Proto refuses
// underscores, so its schema has pushRecords for push_records, and capnp/capnp_payloads.hpp names them.
template <PayloadType T, typename Stub, typename... Args>
decltype(auto) call_push(Stub& stub, Args&&... args) {
  if constexpr (T == PayloadType::octets) return stub.push(std::forward<Args>(args)...);
  else if constexpr (T == PayloadType::records) return stub.push_records(std::forward<Args>(args)...);
  else if constexpr (T == PayloadType::longs) return stub.push_longs(std::forward<Args>(args)...);
  else if constexpr (T == PayloadType::doubles) return stub.push_doubles(std::forward<Args>(args)...);
  else return stub.push_strings(std::forward<Args>(args)...);
}

template <PayloadType T, typename Stub, typename... Args>
decltype(auto) call_send(Stub& stub, Args&&... args) {
  if constexpr (T == PayloadType::octets) return stub.send(std::forward<Args>(args)...);
  else if constexpr (T == PayloadType::records) return stub.send_records(std::forward<Args>(args)...);
  else if constexpr (T == PayloadType::longs) return stub.send_longs(std::forward<Args>(args)...);
  else if constexpr (T == PayloadType::doubles) return stub.send_doubles(std::forward<Args>(args)...);
  else return stub.send_strings(std::forward<Args>(args)...);
}

template <PayloadType T, typename Stub, typename... Args>
decltype(auto) call_echo(Stub& stub, Args&&... args) {
  if constexpr (T == PayloadType::octets) return stub.echo_octets(std::forward<Args>(args)...);
  else if constexpr (T == PayloadType::records) return stub.echo_records(std::forward<Args>(args)...);
  else if constexpr (T == PayloadType::longs) return stub.echo_longs(std::forward<Args>(args)...);
  else if constexpr (T == PayloadType::doubles) return stub.echo_doubles(std::forward<Args>(args)...);
  else return stub.echo_strings(std::forward<Args>(args)...);
}

// Calls f(std::integral_constant<PayloadType, type>{}): the run-time payload type as a compile-time one.
template <typename F>
decltype(auto) with_payload_type(PayloadType type, F&& f) {
  using P = PayloadType;
  switch (type) {
    case P::octets: return f(std::integral_constant<P, P::octets>{});
    case P::records: return f(std::integral_constant<P, P::records>{});
    case P::longs: return f(std::integral_constant<P, P::longs>{});
    case P::doubles: return f(std::integral_constant<P, P::doubles>{});
    case P::strings: break;
  }
  return f(std::integral_constant<P, P::strings>{});
}

// An echo reply as the binding returned it: owned by value or a unique_ptr, or a pointer to a reused one.
template <typename P>
const P& reply_of(const P& reply) { return reply; }
template <typename P>
const P& reply_of(const std::unique_ptr<P>& reply) { return *reply; }
template <typename P>
const P& reply_of(const P* reply) { return *reply; }

// The object a call goes to, as a binding's closures ask for it: pick(i) for call number i. A run without
// objects holds its one reference in the closure itself, as a closure made for one object would.
// Whether a binding's calls may run on several threads at once: yes unless it says kThreads = false.
template <typename B, typename = void>
struct ThreadsTrait : std::true_type {};
template <typename B>
struct ThreadsTrait<B, std::void_t<decltype(B::kThreads)>> : std::bool_constant<B::kThreads> {};
template <typename B>
constexpr bool shares_between_threads() { return ThreadsTrait<B>::value; }

// Whether a binding makes invocation shapes other than `in` (PROTOCOL.md, "Invocation shapes"): it has
//   static std::vector<std::string> shapes();  the shape kinds it makes
//   void use_shape(const ShapeSpec& shape);    before prepare's payloads: where a run's calls go (object, process)
//   template <PayloadType T, class P> TimedSpan shaped_calls(const ShapeSpec&, Mode, const P& payload,
//                                                            int64_t* samples_ns, uint64_t calls);
//   nlohmann::ordered_json shape_answer() const;  the run answer's fields of the shape
template <typename B, typename = void>
struct ShapesTrait : std::false_type {};
template <typename B>
struct ShapesTrait<B, std::void_t<decltype(B::shapes())>> : std::true_type {};

template <typename Ref>
struct OneObject {
  Ref ref;
  Ref operator()(uint64_t) const { return ref; }
};

// Call i goes to refs[order[i]]: the order drawn before timing (object_order.hpp).
template <typename Ref>
struct ObjectsInOrder {
  const Ref* refs;
  const uint32_t* order;
  Ref operator()(uint64_t i) const { return refs[order[i]]; }
};

// The calls of payload type T on thread `thread`, to the objects `pick` names, in the form mode_loop takes.
template <typename Binding, PayloadType T, typename Pick>
struct IdlCalls {
  using Payload = std::tuple_element_t<static_cast<size_t>(T), typename Binding::Payloads>;
  Binding& binding;
  const Payload& payload;
  Pick pick;
  uint32_t thread;
  auto oneway() { return binding.template oneway<T>(payload, pick, thread); }
  auto twoway() { return binding.template twoway<T>(payload, pick, thread); }
  auto echo() { return binding.template echo<T>(payload, pick, thread); }
  template <typename Reply>
  bool same(const Reply& reply) const { return Binding::template same<T>(reply_of(reply), payload); }
};

// `--target NAME` taken out of a worker's arguments (argv[0] first): the descriptor it runs for, so one binary
// can serve several; "" when absent.
inline std::string take_target_arg(std::vector<std::string>& args) {
  for (size_t i = 1; i + 1 < args.size(); ++i) {
    if (args[i] != "--target") continue;
    std::string target = args[i + 1];
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    return target;
  }
  return "";
}

template <typename Binding>
class IdlClient final : public ClientWorker, public BenchDriver {
 public:
  using Ref = typename Binding::Ref;

  // `target`: the descriptor's name (--target); "" means the binding's own (Binding::info()).
  explicit IdlClient(std::vector<std::string> args, std::string target = "")
      : binding_(args), target_(std::move(target)) {
    if (args.size() > 1) throw WorkerError(ErrorKind::usage, "unknown argument: " + args[1]);
  }

  nlohmann::ordered_json worker_info() const override {
    const MiddlewareInfo info = Binding::info();
    return {{"role", "client"},
            {"target", target_.empty() ? info.target : target_},
            {"language", "c++"},
            {"orb", info.orb},
            {"orb_version", info.version},
            {"runtime", cxx_runtime_description()}};
  }

  // One reset_counters proves the server answers; without it the connection is not kept.
  void connect(const std::string& endpoint, const nlohmann::json& options) override {
    binding_.connect(endpoint, parse_connect_options(options));
    try {
      Binding::guarded("connect", [&] { binding_.reset_counters(); });
    } catch (...) {
      binding_.disconnect();
      throw;
    }
  }
  BenchDriver& driver() override {
    if (!binding_.connected()) throw WorkerError(ErrorKind::transport, "not connected");
    return *this;
  }

  // A binding shares its stub or proxy between threads, as an application's threads would; one whose client
  // object cannot be shared says so (kThreads = false) and a run on several threads is refused.
  std::vector<std::string> shapes() const override {
    if constexpr (ShapesTrait<Binding>::value) return Binding::shapes();
    return {"in"};
  }
  nlohmann::ordered_json shape_answer() const override {
    if constexpr (ShapesTrait<Binding>::value) return binding_.shape_answer();
    return nlohmann::ordered_json::object();
  }

  void use_threads(uint32_t threads) override {
    if (threads > 1 && !shares_between_threads<Binding>()) {
      throw WorkerError(ErrorKind::unsupported, Binding::info().orb + "'s client cannot be shared by threads");
    }
  }
  void use_objects(uint32_t objects, std::vector<uint32_t> order) override {
    if (objects > 1) {
      if constexpr (Binding::kObjects) {
        fetch_references(objects);
      } else {
        throw WorkerError(ErrorKind::unsupported,
                          "field \"objects\": " + Binding::info().orb + " has no objects (one service per server)");
      }
    }
    objects_ = objects;
    order_ = std::move(order);
  }

  void prepare(const RunSpec& spec) override {
    if constexpr (ShapesTrait<Binding>::value) {
      Binding::guarded("prepare", [&] { binding_.use_shape(spec.shape); });
    } else if (!spec.shape.is_in()) {
      throw WorkerError(ErrorKind::unsupported, "shape \"" + spec.shape.name() + "\" not supported");
    }
    shape_ = spec.shape;
    mode_ = spec.mode;
    payload_type_ = spec.payload_type;
    const uint64_t count = spec.payload_bytes / payload_unit_bytes(spec.payload_type);
    with_payload_type(payload_type_, [&](auto type) {
      constexpr PayloadType T = decltype(type)::value;
      Binding::template fill<T>(std::get<static_cast<size_t>(T)>(payloads_), count);
    });
    targets_.clear();
    if (objects_ > 1) {
      for (uint32_t k = 0; k < objects_; ++k) targets_.push_back(binding_.target(mode_, k));
    }
  }
  void reset_counters() override { Binding::guarded("reset_counters", [&] { binding_.reset_counters(); }); }
  void shutdown_server() override { Binding::guarded("shutdown", [&] { binding_.shutdown(); }); }
  Counts counters() override { return Binding::guarded("counters", [&] { return binding_.counters(); }); }
  SyncOutcome sync(uint64_t expected, uint32_t timeout_ms) override {
    return Binding::guarded("sync", [&] { return binding_.sync(expected, timeout_ms); });
  }
  TimedSpan timed_calls(int64_t* samples_ns, uint64_t calls) override {
    if constexpr (ShapesTrait<Binding>::value) {
      if (!shape_.is_in()) {
        return with_payload_type(payload_type_, [&](auto type) {
          constexpr PayloadType T = decltype(type)::value;
          const auto& payload = std::get<static_cast<size_t>(T)>(payloads_);
          return Binding::guarded("run", [&] {
            return binding_.template shaped_calls<T>(shape_, mode_, payload, samples_ns, calls);
          });
        });
      }
    }
    return with_calls(0, [&](auto& make) { return mode_loop(mode_, samples_ns, calls, make); });
  }
  ThreadTally pool_calls(uint32_t thread, CallPool& pool) override {
    return with_calls(thread, [&](auto& make) { return mode_pool_loop(mode_, pool, make); });
  }

 private:
  // loop(make) with the calls of this run's payload type on `thread`, to object 0 or to the run's objects.
  template <typename Loop>
  auto with_calls(uint32_t thread, Loop&& loop) {
    return with_payload_type(payload_type_, [&](auto type) {
      constexpr PayloadType T = decltype(type)::value;
      const auto& payload = std::get<static_cast<size_t>(T)>(payloads_);
      return Binding::guarded("run", [&] {
        if (objects_ > 1) {
          IdlCalls<Binding, T, ObjectsInOrder<Ref>> make{binding_, payload, {targets_.data(), order_.data()}, thread};
          return loop(make);
        }
        IdlCalls<Binding, T, OneObject<Ref>> make{binding_, payload, {binding_.target(mode_, 0)}, thread};
        return loop(make);
      });
    });
  }

  // The references of objects up to `objects`, those not held yet, untimed, in calls of at most
  // kReferencesPerCall; kept until the next connect.
  void fetch_references(uint32_t objects) {
    while (binding_.object_count() < objects) {
      const auto first = static_cast<uint32_t>(binding_.object_count());
      const uint32_t count = std::min(kReferencesPerCall, objects - first);
      const std::vector<std::string> references =
          Binding::guarded("references", [&] { return binding_.references(first, count); });
      if (references.empty()) {
        throw WorkerError(ErrorKind::remote, "the server has " + std::to_string(first) + " objects, the run asks for " +
                                                 std::to_string(objects) + " (start it with --objects)");
      }
      for (const std::string& reference : references) {
        Binding::guarded("references", [&] { binding_.add_object(reference); });
      }
    }
  }

  // Declared first, so destroyed last: a CORBA binding's ORB outlives the payload sequences.
  Binding binding_;
  std::string target_;
  Mode mode_ = Mode::twoway;
  ShapeSpec shape_;
  PayloadType payload_type_ = PayloadType::octets;
  typename Binding::Payloads payloads_;  // built once per run by prepare(), outside timing
  uint32_t objects_ = 1;                 // the run's objects (use_objects)
  std::vector<uint32_t> order_;          // the object of each numbered call, when objects_ > 1
  std::vector<Ref> targets_;             // object k's Ref for the run's mode, when objects_ > 1
};

// The whole main of a client worker (PROTOCOL.md, "Client worker"): its arguments go to the binding.
template <typename Binding>
int idl_client_main(int argc, char** argv) {
  reserve_stdout_for_protocol();
  std::signal(SIGPIPE, SIG_IGN);  // a dead server must be an error, not the client's death
  try {
    // Guarded as a whole: a middleware exception that escapes the command loop ends the worker with a message.
    return Binding::guarded("client failed", [&] {
      std::vector<std::string> args(argv, argv + argc);
      std::string target = take_target_arg(args);
      IdlClient<Binding> client(std::move(args), std::move(target));
      run_client_loop(client, std::cin);
      return 0;
    });
  } catch (const WorkerError& error) {
    std::cerr << error.what() << "\n";
    return error.kind() == ErrorKind::usage ? 2 : 1;
  }
}

}  // namespace orbench
