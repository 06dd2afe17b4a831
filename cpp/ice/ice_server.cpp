// orbench-ice-server: the ice-cpp target's server worker (PROTOCOL.md, "Server worker"). One Bench servant in
// an object adapter on --host:--port (K with --objects K, identities bench, bench-1, ...), with Ice's server thread pool as shipped: one thread reads and dispatches
// the requests of every connection. sync() is dispatched asynchronously (["amd"] in the generated Slice): its
// wait runs on a thread of its own and answers when done, so a waiting barrier never holds that one thread and
// the other clients' requests keep being dispatched. Arguments --Ice.Name=value set Ice properties.
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <string>
#include <thread>

#include <Ice/Ice.h>

#include "connect_options.hpp"
#include "message_counter.hpp"
#include "orbench.h"
#include "protocol_out.hpp"
#include "server_support.hpp"

namespace orbench {
namespace {

uint64_t payload_bytes(const orbench::Octets& d) { return d.size(); }
uint64_t payload_bytes(const orbench::Records& d) { return d.size() * kRecordBytes; }
uint64_t payload_bytes(const orbench::Longs& d) { return d.size() * uint64_t{4}; }
uint64_t payload_bytes(const orbench::Doubles& d) { return d.size() * uint64_t{8}; }
// A string counts its characters (PROTOCOL.md, "Payload types").
uint64_t payload_bytes(const orbench::Strings& d) {
  uint64_t bytes = 0;
  for (const std::string& s : d) bytes += s.size();
  return bytes;
}

orbench::Counters to_slice(const Counts& c) {
  return {static_cast<long long>(c.messages), static_cast<long long>(c.bytes)};
}

// Object k's identity: "bench", then "bench-1", "bench-2", ... (PROTOCOL.md, "--objects K").
Ice::Identity object_identity(uint32_t k) { return Ice::stringToIdentity(k == 0 ? "bench" : "bench-" + std::to_string(k)); }

class BenchServant final : public orbench::Bench {
 public:
  // Object `index` of the server's `objects` (each answers references() for all of them).
  BenchServant(MessageCounter& counter, uint32_t index, uint32_t objects, std::function<void()> request_stop)
      : counter_(counter), index_(index), objects_(objects), request_stop_(std::move(request_stop)) {}

  void push(orbench::Octets d, const Ice::Current&) override { count(payload_bytes(d)); }
  void push_records(orbench::Records d, const Ice::Current&) override { count(payload_bytes(d)); }
  void push_longs(orbench::Longs d, const Ice::Current&) override { count(payload_bytes(d)); }
  void push_doubles(orbench::Doubles d, const Ice::Current&) override { count(payload_bytes(d)); }
  void push_strings(orbench::Strings d, const Ice::Current&) override { count(payload_bytes(d)); }
  void send(orbench::Octets d, const Ice::Current&) override { count(payload_bytes(d)); }
  void send_records(orbench::Records d, const Ice::Current&) override { count(payload_bytes(d)); }
  void send_longs(orbench::Longs d, const Ice::Current&) override { count(payload_bytes(d)); }
  void send_doubles(orbench::Doubles d, const Ice::Current&) override { count(payload_bytes(d)); }
  void send_strings(orbench::Strings d, const Ice::Current&) override { count(payload_bytes(d)); }
  // The C++11 mapping hands the servant its own copy of an argument, so the echo moves it back out.
  orbench::Octets echo_octets(orbench::Octets d, const Ice::Current&) override { return counted(std::move(d)); }
  orbench::Records echo_records(orbench::Records d, const Ice::Current&) override { return counted(std::move(d)); }
  orbench::Longs echo_longs(orbench::Longs d, const Ice::Current&) override { return counted(std::move(d)); }
  orbench::Doubles echo_doubles(orbench::Doubles d, const Ice::Current&) override { return counted(std::move(d)); }
  orbench::Strings echo_strings(orbench::Strings d, const Ice::Current&) override { return counted(std::move(d)); }

  void syncAsync(long long expected, long long timeout_ms, std::function<void(const orbench::SyncResult&)> response,
                 std::function<void(std::exception_ptr)>, const Ice::Current&) override {
    const auto wanted = static_cast<uint64_t>(std::max(expected, 0LL));
    const auto timeout = static_cast<uint32_t>(std::clamp(timeout_ms, 0LL, static_cast<long long>(UINT32_MAX)));
    std::thread([this, wanted, timeout, response = std::move(response)] {
      const SyncOutcome outcome = counter_.wait_for(wanted, timeout);
      response(orbench::SyncResult{outcome.complete, to_slice(outcome.received)});
    }).detach();
  }

  orbench::Counters counters(const Ice::Current&) override { return to_slice(counter_.snapshot()); }
  void reset_counters(const Ice::Current&) override { counter_.reset(); }
  // The stringified proxies of objects first .. first + count - 1 (fewer past the last), on this adapter.
  orbench::Strings references(long long first, long long count, const Ice::Current& current) override {
    orbench::Strings out;
    const long long end = std::min<long long>(objects_, std::max(first, 0LL) + std::max(count, 0LL));
    for (long long k = std::max(first, 0LL); k < end; ++k) {
      out.push_back(current.adapter->getCommunicator()->proxyToString(
          current.adapter->createProxy(object_identity(static_cast<uint32_t>(k)))));
    }
    return out;
  }
  // Communicator::shutdown only starts the stop: this dispatch finishes and its reply goes out first.
  void shutdown(const Ice::Current&) override { request_stop_(); }

 private:
  template <typename Payload>
  Payload counted(Payload d) {
    count(payload_bytes(d));
    return d;
  }
  void count(uint64_t payload_bytes) { counter_.count(payload_bytes, index_); }

  MessageCounter& counter_;
  const uint32_t index_;
  const uint32_t objects_;
  std::function<void()> request_stop_;
};

int serve(int argc, char** argv) {
  block_stop_signals();  // before Ice starts any thread
  // --Ice.* arguments are Ice properties; the rest are the worker's.
  std::vector<std::string> ice_args;
  std::vector<char*> worker_argv{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--Ice.", 0) == 0) {
      ice_args.push_back(arg);
    } else {
      worker_argv.push_back(argv[i]);
    }
  }
  ServerArgs args;
  uint32_t objects = 1;
  try {
    args = parse_server_args(static_cast<int>(worker_argv.size()), worker_argv.data(), {}, {"--objects"});
    objects = objects_arg(args);
    if (!parse_server_options(args.options).empty()) {
      print_start_error("ice-cpp sets no server options (Ice sets TCP_NODELAY itself)");
      return 2;
    }
  } catch (const std::invalid_argument& e) {
    print_start_error(e.what());
    return 2;
  }

  try {
    Ice::InitializationData init;
    init.properties = Ice::createProperties();
    init.properties->parseCommandLineOptions("Ice", ice_args);
    std::shared_ptr<Ice::Communicator> communicator = Ice::initialize(init);
    auto* counter = new MessageCounter;  // leaked: detached sync threads may use it while main returns
    counter->track_objects(objects);
    report_received_in_stats(counter);
    auto adapter = communicator->createObjectAdapterWithEndpoints(
        "Bench", "tcp -h \"" + args.host + "\" -p " + std::to_string(args.port));
    // K servants of the one class in the adapter's active servant map, one identity each.
    std::shared_ptr<Ice::ObjectPrx> proxy;
    for (uint32_t k = 0; k < objects; ++k) {
      auto servant = std::make_shared<BenchServant>(*counter, k, objects, [communicator] { communicator->shutdown(); });
      auto added = adapter->add(servant, object_identity(k));
      if (k == 0) proxy = added;
    }
    adapter->activate();

    start_stop_watchers([communicator] { communicator->shutdown(); });
    nlohmann::ordered_json info = server_worker_info("ice-cpp", "Ice", ICE_STRING_VERSION);
    if (objects > 1) info["objects"] = objects;
    print_ready(communicator->proxyToString(proxy), info);
    communicator->waitForShutdown();
    print_exit(counter->snapshot());
    communicator->destroy();
    return 0;
  } catch (const Ice::Exception& error) {
    print_start_error(std::string("Ice: ") + error.what());
    return 1;
  }
}

}  // namespace
}  // namespace orbench

int main(int argc, char** argv) {
  orbench::reserve_stdout_for_protocol();
  return orbench::serve(argc, argv);
}
