// The client worker of every IDL-driven middleware (the CORBA ORBs, gRPC, Ice): one template holds what they
// share (the payloads, prepare, the payload-type and mode switches, untimed calls, the timed loop), so a
// middleware adds only a binding: how to connect, and how to make each call for each payload type.
#pragma once

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
#include "protocol_out.hpp"
#include "worker_error.hpp"

namespace orbench {

// A binding B provides (ice/ice_client.cpp is the shortest one):
//   using Payloads = std::tuple<Octets, Records, Longs, Doubles, Strings>;  its sequence types, in PayloadType order
//   explicit B(std::vector<std::string>& args);  its runtime, from the worker's arguments (argv[0] first),
//                                                taking out those it understood
//   static MiddlewareInfo info();              its target name unless the worker is given --target NAME
//   void connect(const std::string& endpoint, const ConnectOptions& options);   no remote call needed
//   void disconnect();  bool connected() const;
//   void reset_counters();  Counts counters();  SyncOutcome sync(uint64_t expected, uint32_t timeout_ms);
//   template <PayloadType T, class P> static void fill(P& payload, uint64_t count);   payload_values.hpp
//   template <PayloadType T, class P> static bool same(const P& reply, const P& request);
//   template <PayloadType T, class P> auto oneway(const P& payload);  the call closures of a run, (uint64_t i) -> void;
//   template <PayloadType T, class P> auto twoway(const P& payload);  echo's returns the reply, or a pointer to it
//   template <PayloadType T, class P> auto echo(const P& payload);
//   template <class Body> static auto guarded(const char* what, Body&& body);  its exceptions as WorkerError
struct MiddlewareInfo {
  std::string target;   // the descriptor's name, e.g. "ice-cpp"
  std::string orb;      // the product, e.g. "Ice"
  std::string version;
};

// The IDL operations of each payload type, by their names in orbench.idl, which every IDL compiler keeps: one
// table for every middleware's stub or proxy; the arguments are the middleware's own.
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

// The calls of payload type T, in the form mode_loop takes.
template <typename Binding, PayloadType T>
struct IdlCalls {
  using Payload = std::tuple_element_t<static_cast<size_t>(T), typename Binding::Payloads>;
  Binding& binding;
  const Payload& payload;
  auto oneway() { return binding.template oneway<T>(payload); }
  auto twoway() { return binding.template twoway<T>(payload); }
  auto echo() { return binding.template echo<T>(payload); }
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

  void prepare(const RunSpec& spec) override {
    mode_ = spec.mode;
    payload_type_ = spec.payload_type;
    const uint64_t count = spec.payload_bytes / payload_unit_bytes(spec.payload_type);
    with_payload_type(payload_type_, [&](auto type) {
      constexpr PayloadType T = decltype(type)::value;
      Binding::template fill<T>(std::get<static_cast<size_t>(T)>(payloads_), count);
    });
  }
  void reset_counters() override { Binding::guarded("reset_counters", [&] { binding_.reset_counters(); }); }
  Counts counters() override { return Binding::guarded("counters", [&] { return binding_.counters(); }); }
  SyncOutcome sync(uint64_t expected, uint32_t timeout_ms) override {
    return Binding::guarded("sync", [&] { return binding_.sync(expected, timeout_ms); });
  }
  TimedSpan timed_calls(int64_t* samples_ns, uint64_t calls) override {
    return with_payload_type(payload_type_, [&](auto type) {
      constexpr PayloadType T = decltype(type)::value;
      IdlCalls<Binding, T> make{binding_, std::get<static_cast<size_t>(T)>(payloads_)};
      return Binding::guarded("run", [&] { return mode_loop(mode_, samples_ns, calls, make); });
    });
  }

 private:
  // Declared first, so destroyed last: a CORBA binding's ORB outlives the payload sequences.
  Binding binding_;
  std::string target_;
  Mode mode_ = Mode::twoway;
  PayloadType payload_type_ = PayloadType::octets;
  typename Binding::Payloads payloads_;  // built once per run by prepare(), outside timing
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
