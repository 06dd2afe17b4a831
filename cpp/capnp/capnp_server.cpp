// orbench-capnp-server: the server worker of the capnp-cpp target (PROTOCOL.md, "Server worker"), on the
// server kit (server_kit.hpp): the Bench capability of the schema the translator writes, served by Cap'n
// Proto's two-party RPC (capnp::EzRpcServer) on one event loop, the worker's main thread, which reads and
// dispatches every connection's calls. sync() must not block that loop (the messages it waits for come on it):
// a sync whose count is short waits on a promise that the counting of each later message fulfils, or a timer.
#include <capnp/ez-rpc.h>
#include <kj/async-io.h>
#include <kj/async.h>
#include <kj/exception.h>
#include <kj/timer.h>

#include <algorithm>
#include <string_view>

#include "endpoint_url.hpp"
#include "orbench.capnp.h"
#include "server_kit.hpp"

namespace orbench {
namespace {

using P = PayloadType;
using schema::Bench;
using schema::Pipelines;

// A List(Text) as the kit counts strings: its elements' characters.
struct TextList {
  capnp::List<capnp::Text>::Reader list;
  size_t size() const { return list.size(); }
  std::string_view operator[](size_t i) const { return {list[i].cStr(), list[i].size()}; }
};

class BenchImpl final : public Pipelines::Server {
 public:
  explicit BenchImpl(BenchCore& core) : core_(core) {}
  void use_timer(kj::Timer& timer) { timer_ = &timer; }

  kj::Promise<void> push(PushContext c) override { return counted<P::octets>(c.getParams().getData()); }
  kj::Promise<void> pushRecords(PushRecordsContext c) override {
    return counted<P::records>(c.getParams().getData());
  }
  kj::Promise<void> pushLongs(PushLongsContext c) override { return counted<P::longs>(c.getParams().getData()); }
  kj::Promise<void> pushDoubles(PushDoublesContext c) override {
    return counted<P::doubles>(c.getParams().getData());
  }
  kj::Promise<void> pushStrings(PushStringsContext c) override {
    return counted<P::strings>(TextList{c.getParams().getData()});
  }
  kj::Promise<void> send(SendContext c) override { return counted<P::octets>(c.getParams().getData()); }
  kj::Promise<void> sendRecords(SendRecordsContext c) override {
    return counted<P::records>(c.getParams().getData());
  }
  kj::Promise<void> sendLongs(SendLongsContext c) override { return counted<P::longs>(c.getParams().getData()); }
  kj::Promise<void> sendDoubles(SendDoublesContext c) override {
    return counted<P::doubles>(c.getParams().getData());
  }
  kj::Promise<void> sendStrings(SendStringsContext c) override {
    return counted<P::strings>(TextList{c.getParams().getData()});
  }
  // The reply is a copy of the argument, built into the reply message, as a servant returning it makes.
  kj::Promise<void> echoOctets(EchoOctetsContext c) override { return echoed<P::octets>(c, c.getParams().getData()); }
  kj::Promise<void> echoRecords(EchoRecordsContext c) override {
    return echoed<P::records>(c, c.getParams().getData());
  }
  kj::Promise<void> echoLongs(EchoLongsContext c) override { return echoed<P::longs>(c, c.getParams().getData()); }
  kj::Promise<void> echoDoubles(EchoDoublesContext c) override {
    return echoed<P::doubles>(c, c.getParams().getData());
  }
  kj::Promise<void> echoStrings(EchoStringsContext c) override {
    core_.count<P::strings>(TextList{c.getParams().getData()});
    wake();
    c.getResults().setResult(c.getParams().getData());
    return kj::READY_NOW;
  }

  kj::Promise<void> sync(SyncContext c) override {
    const uint64_t expected = c.getParams().getExpected();
    if (core_.counters().messages >= expected || timer_ == nullptr) return answer_sync(c, expected);
    auto paf = kj::newPromiseAndFulfiller<void>();
    waiters_.push_back({expected, kj::mv(paf.fulfiller)});
    return paf.promise.exclusiveJoin(timer_->afterDelay(c.getParams().getTimeoutMs() * kj::MILLISECONDS))
        .then([this, c, expected]() mutable { return answer_sync(c, expected); });
  }
  kj::Promise<void> counters(CountersContext c) override {
    const Counts counts = core_.counters();
    auto r = c.getResults().initResult();
    r.setMessages(counts.messages), r.setBytes(counts.bytes);
    return kj::READY_NOW;
  }
  kj::Promise<void> resetCounters(ResetCountersContext) override {
    core_.reset_counters();
    return kj::READY_NOW;
  }
  // A capability is not a string: there are no stringified references to hand out (its descriptor claims no
  // objects), so the call is refused, as gRPC's and Thrift's servers do.
  kj::Promise<void> references(ReferencesContext) override {
    return KJ_EXCEPTION(UNIMPLEMENTED, "references: a Cap'n Proto capability has no stringified reference");
  }
  kj::Promise<void> shutdown(ShutdownContext) override {
    core_.shutdown();
    return kj::READY_NOW;
  }
  // A reference to this object (Bench), for promise pipelining (PROTOCOL.md, "Invocation shapes").
  kj::Promise<void> peer(PeerContext c) override {
    c.getResults().setResult(thisCap());
    return kj::READY_NOW;
  }

 private:
  struct Waiter {
    uint64_t expected;
    kj::Own<kj::PromiseFulfiller<void>> fulfiller;
  };

  template <PayloadType T, typename Sequence>
  kj::Promise<void> counted(const Sequence& payload) {
    core_.count<T>(payload);
    wake();
    return kj::READY_NOW;
  }
  template <PayloadType T, typename Context, typename Reader>
  kj::Promise<void> echoed(Context& c, const Reader& data) {
    core_.count<T>(data);
    wake();
    c.getResults().setResult(data);
    return kj::READY_NOW;
  }
  // The syncs waiting for a count this message may have reached (none: one comparison).
  void wake() {
    if (waiters_.empty()) return;
    const uint64_t messages = core_.counters().messages;
    for (auto& w : waiters_) {
      if (w.fulfiller->isWaiting() && messages >= w.expected) w.fulfiller->fulfill();
    }
    waiters_.erase(std::remove_if(waiters_.begin(), waiters_.end(),
                                  [](Waiter& w) { return !w.fulfiller->isWaiting(); }),
                   waiters_.end());
  }
  kj::Promise<void> answer_sync(SyncContext& c, uint64_t expected) {
    const Counts counts = core_.counters();
    auto r = c.getResults().initResult();
    r.setComplete(counts.messages >= expected);
    r.getReceived().setMessages(counts.messages), r.getReceived().setBytes(counts.bytes);
    return kj::READY_NOW;
  }

  BenchCore& core_;
  kj::Timer* timer_ = nullptr;
  std::vector<Waiter> waiters_;
};

class CapnpServer {
 public:
  static ServerSpec spec() {
    ServerSpec spec{"capnp-cpp", "Cap'n Proto", ORBENCH_CAPNP_VERSION};
    spec.no_options_because = "kj sets TCP_NODELAY on every connection and has no socket buffer setting here";
    return spec;
  }

  CapnpServer(const ServerConfig& config, BenchCore& core) : host_(config.host) {
    auto impl = kj::heap<BenchImpl>(core);
    BenchImpl& servant = *impl;
    rpc_ = std::make_unique<capnp::EzRpcServer>(Pipelines::Client(kj::mv(impl)), host_port(config.host, config.port));
    servant.use_timer(rpc_->getIoProvider().getTimer());
  }

  void serve(const std::function<void(const std::string&)>& ready) {
    kj::WaitScope& scope = rpc_->getWaitScope();
    const unsigned port = rpc_->getPort().wait(scope);
    executor_ = &kj::getCurrentThreadExecutor();
    auto stopped = kj::newPromiseAndFulfiller<void>();
    stop_ = kj::mv(stopped.fulfiller);
    ready(endpoint_url("capnp", host_, static_cast<int>(port)));
    stopped.promise.wait(scope);
    // The replies already made (shutdown()'s among them) leave before the kit ends the process.
    scope.poll();
  }
  // From a thread of the kit's: the stop is done on the event loop's own thread.
  void stop() {
    executor_->executeSync([this] { stop_->fulfill(); });
  }

 private:
  std::string host_;
  std::unique_ptr<capnp::EzRpcServer> rpc_;
  const kj::Executor* executor_ = nullptr;
  kj::Own<kj::PromiseFulfiller<void>> stop_;
};

}  // namespace
}  // namespace orbench

int main(int argc, char** argv) { return orbench::server_main<orbench::CapnpServer>(argc, argv); }
