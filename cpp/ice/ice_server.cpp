// orbench-ice-server: the ice-cpp target's server worker (PROTOCOL.md, "Server worker"), on the server kit
// (server_kit.hpp). One Bench servant in an object adapter on --host:--port (K with --objects K, identities
// bench, bench-1, ...), with Ice's server thread pool as shipped: one thread reads and dispatches the requests
// of every connection; arguments --Ice.Name=value set Ice properties (the descriptor's threading settings,
// --Ice.ThreadPool.Server.*). sync() is dispatched asynchronously (["amd"] in the generated Slice): its wait
// runs on a thread of its own and answers when done, so a waiting barrier never holds that one thread and the
// other clients' requests keep being dispatched. The servant is a Shapes (PROTOCOL.md, "Invocation shapes"):
// out, return, inout (the payload in, the reply in an out argument: Slice has no inout) and a user exception,
// as the ORB servers serve them (cpp/orb/bench_servant.cpp).
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>

#include <Ice/Ice.h>

#include "orbench.h"
#include "payload_values.hpp"
#include "server_kit.hpp"
#include "shape_calls.hpp"

namespace orbench {
namespace {

using P = PayloadType;

Counters to_slice(const Counts& c) { return {static_cast<long long>(c.messages), static_cast<long long>(c.bytes)}; }

// Object k's identity: "bench", then "bench-1", "bench-2", ... (PROTOCOL.md, "--objects K").
Ice::Identity object_identity(uint32_t k) {
  return Ice::stringToIdentity(k == 0 ? "bench" : "bench-" + std::to_string(k));
}

// The payload a shape hands back (elements from 1, PROTOCOL.md, "Invocation shapes"), built once per payload
// type and element count and kept: each reply copies it, as the ORB servers' do.
class ReplyCache {
 public:
  template <PayloadType T, typename Sequence>
  const Sequence& get(uint32_t count) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& made = std::get<static_cast<size_t>(T)>(replies_);
    auto it = made.find(count);
    if (it == made.end()) {
      it = made.emplace(count, Sequence(count)).first;
      payload::fill_indexed<T>(it->second, count, 1);
    }
    return it->second;  // a map's elements stay where they are, and a made reply never changes
  }

 private:
  std::mutex mutex_;
  std::tuple<std::map<uint32_t, Octets>, std::map<uint32_t, Records>, std::map<uint32_t, Longs>,
             std::map<uint32_t, Doubles>, std::map<uint32_t, Strings>>
      replies_;
};

class BenchServant final : public Shapes {
 public:
  // Object `index` of the server's (each answers references() for all of them).
  BenchServant(BenchCore& core, uint32_t index) : core_(core), index_(index) {}

  void push(Octets d, const Ice::Current&) override { core_.count<P::octets>(d, index_); }
  void push_records(Records d, const Ice::Current&) override { core_.count<P::records>(d, index_); }
  void push_longs(Longs d, const Ice::Current&) override { core_.count<P::longs>(d, index_); }
  void push_doubles(Doubles d, const Ice::Current&) override { core_.count<P::doubles>(d, index_); }
  void push_strings(Strings d, const Ice::Current&) override { core_.count<P::strings>(d, index_); }
  void send(Octets d, const Ice::Current&) override { core_.count<P::octets>(d, index_); }
  void send_records(Records d, const Ice::Current&) override { core_.count<P::records>(d, index_); }
  void send_longs(Longs d, const Ice::Current&) override { core_.count<P::longs>(d, index_); }
  void send_doubles(Doubles d, const Ice::Current&) override { core_.count<P::doubles>(d, index_); }
  void send_strings(Strings d, const Ice::Current&) override { core_.count<P::strings>(d, index_); }
  // The C++11 mapping hands the servant its own copy of an argument, so the echo moves it back out.
  Octets echo_octets(Octets d, const Ice::Current&) override { return echo<P::octets>(std::move(d)); }
  Records echo_records(Records d, const Ice::Current&) override { return echo<P::records>(std::move(d)); }
  Longs echo_longs(Longs d, const Ice::Current&) override { return echo<P::longs>(std::move(d)); }
  Doubles echo_doubles(Doubles d, const Ice::Current&) override { return echo<P::doubles>(std::move(d)); }
  Strings echo_strings(Strings d, const Ice::Current&) override { return echo<P::strings>(std::move(d)); }

  void syncAsync(long long expected, long long timeout_ms, std::function<void(const SyncResult&)> response,
                 std::function<void(std::exception_ptr)>, const Ice::Current&) override {
    std::thread([this, expected, timeout_ms, response = std::move(response)] {
      const SyncOutcome outcome = core_.sync(expected, timeout_ms);
      response(SyncResult{outcome.complete, to_slice(outcome.received)});
    }).detach();
  }
  Counters counters(const Ice::Current&) override { return to_slice(core_.counters()); }
  void reset_counters(const Ice::Current&) override { core_.reset_counters(); }
  // The stringified proxies of the objects named, on this adapter.
  Strings references(long long first, long long count, const Ice::Current& current) override {
    Strings out;
    const ObjectRange range = core_.references(first, count);
    const auto communicator = current.adapter->getCommunicator();
    for (uint32_t k = range.begin; k < range.end; ++k) {
      out.push_back(communicator->proxyToString(current.adapter->createProxy(object_identity(k))));
    }
    return out;
  }
  void shutdown(const Ice::Current&) override { core_.shutdown(); }

  // Shapes. out and return count the reply they send, inout and raise the request (PROTOCOL.md).
  void out_octets(long long n, Octets& d, const Ice::Current&) override { d = reply<P::octets, Octets>(n); }
  void out_records(long long n, Records& d, const Ice::Current&) override { d = reply<P::records, Records>(n); }
  void out_longs(long long n, Longs& d, const Ice::Current&) override { d = reply<P::longs, Longs>(n); }
  void out_doubles(long long n, Doubles& d, const Ice::Current&) override { d = reply<P::doubles, Doubles>(n); }
  void out_strings(long long n, Strings& d, const Ice::Current&) override { d = reply<P::strings, Strings>(n); }
  Octets return_octets(long long n, const Ice::Current&) override { return reply<P::octets, Octets>(n); }
  Records return_records(long long n, const Ice::Current&) override { return reply<P::records, Records>(n); }
  Longs return_longs(long long n, const Ice::Current&) override { return reply<P::longs, Longs>(n); }
  Doubles return_doubles(long long n, const Ice::Current&) override { return reply<P::doubles, Doubles>(n); }
  Strings return_strings(long long n, const Ice::Current&) override { return reply<P::strings, Strings>(n); }
  void inout_octets(Octets d, Octets& r, const Ice::Current&) override { inout<P::octets>(d, r); }
  void inout_records(Records d, Records& r, const Ice::Current&) override { inout<P::records>(d, r); }
  void inout_longs(Longs d, Longs& r, const Ice::Current&) override { inout<P::longs>(d, r); }
  void inout_doubles(Doubles d, Doubles& r, const Ice::Current&) override { inout<P::doubles>(d, r); }
  void inout_strings(Strings d, Strings& r, const Ice::Current&) override { inout<P::strings>(d, r); }
  void raise_octets(Octets d, const Ice::Current&) override { refuse<P::octets>(d); }
  void raise_records(Records d, const Ice::Current&) override { refuse<P::records>(d); }
  void raise_longs(Longs d, const Ice::Current&) override { refuse<P::longs>(d); }
  void raise_doubles(Doubles d, const Ice::Current&) override { refuse<P::doubles>(d); }
  void raise_strings(Strings d, const Ice::Current&) override { refuse<P::strings>(d); }

 private:
  template <PayloadType T, typename Payload>
  Payload echo(Payload d) {
    core_.count<T>(d, index_);
    return d;
  }
  // The reply of out and return, counted: `count` elements from element 1 (Slice's count is a long).
  template <PayloadType T, typename Payload>
  const Payload& reply(long long count) {
    const Payload& made = replies_.get<T, Payload>(clamp_to<uint32_t>(count));
    core_.count<T>(made, index_);
    return made;
  }
  // inout: the reply replaces the request's elements (the fault inout_unchanged hands the request back).
  template <PayloadType T, typename Payload>
  void inout(Payload& request, Payload& reply) {
    core_.count<T>(request, index_);
    if (injected_fault() == "inout_unchanged") {
      reply = std::move(request);
      return;
    }
    reply = replies_.get<T, Payload>(static_cast<uint32_t>(request.size()));
  }
  template <PayloadType T, typename Payload>
  void refuse(const Payload& request) {
    core_.count<T>(request, index_);
    if (injected_fault() == "no_raise") return;
    throw Refused(static_cast<long long>(request.size()));
  }

  BenchCore& core_;
  const uint32_t index_;
  ReplyCache replies_;
};

class IceServer {
 public:
  static ServerSpec spec() {
    ServerSpec spec{"ice-cpp", "Ice", ICE_STRING_VERSION};
    spec.middleware_prefix = "--Ice.";
    spec.no_options_because = "Ice sets TCP_NODELAY itself";
    spec.takes_objects = true;
    return spec;
  }

  IceServer(const ServerConfig& config, BenchCore& core) {
    Ice::InitializationData init;
    init.properties = Ice::createProperties();
    init.properties->parseCommandLineOptions("Ice", config.middleware_args);
    communicator_ = Ice::initialize(init);
    adapter_ = communicator_->createObjectAdapterWithEndpoints(
        "Bench", "tcp -h \"" + config.host + "\" -p " + std::to_string(config.port));
    // K servants of the one class in the adapter's active servant map, one identity each.
    for (uint32_t k = 0; k < config.objects; ++k) {
      adapter_->add(std::make_shared<BenchServant>(core, k), object_identity(k));
    }
  }

  void serve(const std::function<void(const std::string&)>& ready) {
    adapter_->activate();
    ready(communicator_->proxyToString(adapter_->createProxy(object_identity(0))));
    // Returns once every dispatch has finished, the reply of the shutdown() that stopped it included.
    communicator_->waitForShutdown();
    communicator_->destroy();
  }
  // Only starts the stop: dispatches in progress finish and their replies go out.
  void stop() { communicator_->shutdown(); }

 private:
  std::shared_ptr<Ice::Communicator> communicator_;
  std::shared_ptr<Ice::ObjectAdapter> adapter_;
};

}  // namespace
}  // namespace orbench

int main(int argc, char** argv) { return orbench::server_main<orbench::IceServer>(argc, argv); }
