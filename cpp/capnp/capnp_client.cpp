// orbench-capnp-client: the client worker of the capnp-cpp target, a binding of IdlClient (idl_client.hpp) on
// the Bench capability of the schema the translator writes (emitter capnp), over Cap'n Proto's two-party RPC
// (capnp::EzRpcClient: one connection, one event loop on the worker's thread). Its operations have the
// schema's names (capnp_payloads.hpp). An IDL oneway is a streaming call (`-> stream`) not awaited within a
// window of payload bytes in flight: the call returns once its request has been handed to the socket
// (PROTOCOL.md, "Cap'n Proto"). kj sets TCP_NODELAY on its TCP connections; no connect option is taken.
#include <capnp/ez-rpc.h>
#include <kj/exception.h>

#include <deque>

#include "capnp_payloads.hpp"
#include "endpoint_url.hpp"
#include "idl_client.hpp"

namespace orbench {

struct CapnpBinding {
  using Payloads = std::tuple<capnp_binding::Octets, capnp_binding::Records, capnp_binding::Longs,
                              capnp_binding::Doubles, capnp_binding::Strings>;
  using Bench = schema::Bench;
  using Pipelines = schema::Pipelines;  // Bench and peer(), for the shapes pipelined and chained
  using Ref = Bench::Client*;
  static constexpr bool kObjects = false;  // capabilities are not stringified references (no sturdy refs here)
  // One event loop on one thread: another thread's calls cannot use this connection.
  static constexpr bool kThreads = false;
  std::unique_ptr<capnp::EzRpcClient> rpc;
  std::unique_ptr<Pipelines::Client> bench;

  explicit CapnpBinding(std::vector<std::string>&) {}
  ~CapnpBinding() { disconnect(); }

  template <class Body>
  static auto guarded(const char* what, Body&& body) {
    try {
      return body();
    } catch (const kj::Exception& e) {
      // A server's exception comes back as "remote exception: ..."; a lost connection is DISCONNECTED.
      const std::string text = e.getDescription().cStr();
      const bool remote = text.rfind("remote exception", 0) == 0 && e.getType() != kj::Exception::Type::DISCONNECTED;
      throw WorkerError(remote ? ErrorKind::remote : ErrorKind::transport,
                        std::string(what) + ": Cap'n Proto: " + text);
    }
  }

  static MiddlewareInfo info() { return {"capnp-cpp", "Cap'n Proto", ORBENCH_CAPNP_VERSION}; }

  void connect(const std::string& endpoint, const ConnectOptions& options) {
    refuse_connect_options(options, "Cap'n Proto (kj)");
    const UrlEndpoint at = parse_endpoint_url("capnp", endpoint);
    disconnect();
    guarded("connect", [&] {
      rpc = std::make_unique<capnp::EzRpcClient>(host_port(at.host, at.port));
      bench = std::make_unique<Pipelines::Client>(rpc->getMain<Pipelines>());
    });
  }
  void disconnect() {
    bench.reset();
    rpc.reset();
  }
  bool connected() const { return bench != nullptr; }
  Ref target(Mode, size_t) const { return static_cast<Bench::Client*>(bench.get()); }
  kj::WaitScope& wait_scope() const { return rpc->getWaitScope(); }

  void reset_counters() { bench->resetCountersRequest().send().wait(wait_scope()); }
  void shutdown() { bench->shutdownRequest().send().wait(wait_scope()); }
  Counts counters() {
    auto reply = bench->countersRequest().send().wait(wait_scope());
    return {reply.getResult().getMessages(), reply.getResult().getBytes()};
  }
  SyncOutcome sync(uint64_t expected, uint32_t timeout_ms) {
    auto request = bench->syncRequest();
    request.setExpected(expected);
    request.setTimeoutMs(timeout_ms);
    auto reply = request.send().wait(wait_scope());
    auto r = reply.getResult();
    return {r.getComplete(), {r.getReceived().getMessages(), r.getReceived().getBytes()}};
  }

  // Promise pipelining (PROTOCOL.md, "Invocation shapes"): send() on the result of peer(). pipelined sends
  // it on peer()'s promised result, before peer()'s reply, and waits once; chained waits for peer()'s reply
  // and then makes the call, as a client without pipelining must.
  static std::vector<std::string> shapes() { return {"in", "pipelined", "chained"}; }
  void use_shape(const ShapeSpec&) {}
  template <PayloadType T, class P>
  TimedSpan shaped_calls(const ShapeSpec& shape, Mode, const P& payload, int64_t* samples_ns, uint64_t calls) {
    auto nothing = [](uint64_t) {};
    if (shape.kind == "pipelined") {
      return timed_loop(samples_ns, calls, [&](uint64_t) {
        auto peer = bench->peerRequest().send();
        Bench::Client promised = peer.getResult();  // a capability that is a promise of peer()'s result
        auto request = capnp_binding::send_request<T>(promised);
        capnp_binding::set_data<T>(request, payload);
        request.send().wait(wait_scope());
      }, nothing);
    }
    return timed_loop(samples_ns, calls, [&](uint64_t) {
      auto peer = bench->peerRequest().send().wait(wait_scope());
      Bench::Client result = peer.getResult();
      auto request = capnp_binding::send_request<T>(result);
      capnp_binding::set_data<T>(request, payload);
      request.send().wait(wait_scope());
    }, nothing);
  }
  nlohmann::ordered_json shape_answer() const { return nlohmann::ordered_json::object(); }

  template <PayloadType T, class P>
  static void fill(P& payload, uint64_t count) { payload.resize(count), payload::fill_indexed<T>(payload, count); }
  template <PayloadType T, class P>
  static bool same(const P& reply, const P& request) { return reply == request; }

  // A streaming call (the schema's `-> stream`). Cap'n Proto 0.9's promise of one resolves only once its
  // return has come back here (seen through check-target's relay), which would make it a twoway: the call
  // keeps the promises of the calls in flight instead and waits for the oldest only while more than
  // kStreamWindowBytes of payload are in flight, the flow control a stream is for. poll() runs the event loop
  // until the request has been handed to the socket, so no call returns with its bytes queued in the process.
  static constexpr uint64_t kStreamWindowBytes = 65536;
  template <PayloadType T, class P, class Pick>
  auto oneway(const P& p, Pick pick, uint32_t) {
    const uint64_t bytes = std::max<uint64_t>(p.size() * payload_unit_bytes(T), 1);
    return [this, &p, pick, bytes, in_flight = std::deque<kj::Promise<void>>()](uint64_t i) mutable {
      auto request = capnp_binding::push_request<T>(*pick(i));
      capnp_binding::set_data<T>(request, p);
      in_flight.push_back(request.send());
      while (in_flight.size() * bytes > kStreamWindowBytes) {
        in_flight.front().wait(wait_scope());
        in_flight.pop_front();
      }
      wait_scope().poll();
    };
  }
  template <PayloadType T, class P, class Pick>
  auto twoway(const P& p, Pick pick, uint32_t) {
    return [this, &p, pick](uint64_t i) {
      auto request = capnp_binding::send_request<T>(*pick(i));
      capnp_binding::set_data<T>(request, p);
      request.send().wait(wait_scope());
    };
  }
  // The reply's list copied into one reused payload, as the gRPC client parses into one reused message.
  template <PayloadType T, class P, class Pick>
  auto echo(const P& p, Pick pick, uint32_t) {
    return [this, &p, pick, reply = P()](uint64_t i) mutable {
      auto request = capnp_binding::echo_request<T>(*pick(i));
      capnp_binding::set_data<T>(request, p);
      auto response = request.send().wait(wait_scope());
      capnp_binding::copy_out<T>(response.getResult(), reply);
      return &std::as_const(reply);
    };
  }
};

}  // namespace orbench

int main(int argc, char** argv) { return orbench::idl_client_main<orbench::CapnpBinding>(argc, argv); }
