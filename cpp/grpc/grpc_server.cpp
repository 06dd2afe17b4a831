// orbench-grpc-server: the grpc-cpp target's server worker (PROTOCOL.md, "Server worker"). The Bench service
// generated from orbench.idl, on gRPC's synchronous C++ server: every call runs on a thread of gRPC's own
// pool, which grows while all its threads are busy, so a sync() barrier waiting in one call does not stop
// the others. A push stream (an IDL oneway, PROTOCOL.md "gRPC and Ice") holds one thread while it is open.
// Threading (harness/targets/grpc-cpp.toml): --max-threads N caps that pool (ResourceQuota::SetMaxThreads);
// --api callback serves the same service on the callback API instead (grpc_callback_service.hpp).
#include <unistd.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "connect_options.hpp"
#include "grpc_callback_service.hpp"
#include "grpc_endpoint.hpp"
#include "grpc_payloads.hpp"
#include "message_counter.hpp"
#include "orbench.grpc.pb.h"
#include "protocol_out.hpp"
#include "server_support.hpp"

namespace orbench {
namespace {

using grpc::ServerContext;
using grpc::Status;

class BenchService final : public orbench::Bench::Service {
 public:
  BenchService(MessageCounter& counter, std::function<void()> request_stop)
      : counter_(counter), request_stop_(std::move(request_stop)) {}

  Status push(ServerContext*, grpc::ServerReader<orbench::Octets>* in, orbench::Empty*) override { return drain(in); }
  Status push_records(ServerContext*, grpc::ServerReader<orbench::Records>* in, orbench::Empty*) override {
    return drain(in);
  }
  Status push_longs(ServerContext*, grpc::ServerReader<orbench::Longs>* in, orbench::Empty*) override { return drain(in); }
  Status push_doubles(ServerContext*, grpc::ServerReader<orbench::Doubles>* in, orbench::Empty*) override {
    return drain(in);
  }
  Status push_strings(ServerContext*, grpc::ServerReader<orbench::Strings>* in, orbench::Empty*) override {
    return drain(in);
  }

  Status send(ServerContext*, const orbench::Octets* m, orbench::Empty*) override { return take(*m); }
  Status send_records(ServerContext*, const orbench::Records* m, orbench::Empty*) override { return take(*m); }
  Status send_longs(ServerContext*, const orbench::Longs* m, orbench::Empty*) override { return take(*m); }
  Status send_doubles(ServerContext*, const orbench::Doubles* m, orbench::Empty*) override { return take(*m); }
  Status send_strings(ServerContext*, const orbench::Strings* m, orbench::Empty*) override { return take(*m); }

  Status echo_octets(ServerContext*, const orbench::Octets* m, orbench::Octets* r) override { return echo(*m, r); }
  Status echo_records(ServerContext*, const orbench::Records* m, orbench::Records* r) override { return echo(*m, r); }
  Status echo_longs(ServerContext*, const orbench::Longs* m, orbench::Longs* r) override { return echo(*m, r); }
  Status echo_doubles(ServerContext*, const orbench::Doubles* m, orbench::Doubles* r) override { return echo(*m, r); }
  Status echo_strings(ServerContext*, const orbench::Strings* m, orbench::Strings* r) override { return echo(*m, r); }

  Status sync(ServerContext*, const orbench::SyncRequest* request, orbench::SyncResult* reply) override {
    const SyncOutcome outcome = counter_.wait_for(request->expected(), request->timeout_ms());
    reply->set_complete(outcome.complete);
    reply->mutable_received()->set_messages(outcome.received.messages);
    reply->mutable_received()->set_bytes(outcome.received.bytes);
    return Status::OK;
  }

  Status counters(ServerContext*, const orbench::Empty*, orbench::Counters* reply) override {
    const Counts counts = counter_.snapshot();
    reply->set_messages(counts.messages);
    reply->set_bytes(counts.bytes);
    return Status::OK;
  }

  Status reset_counters(ServerContext*, const orbench::Empty*, orbench::Empty*) override {
    counter_.reset();
    return Status::OK;
  }

  // Only starts the stop (on a thread of its own): this call still returns its reply.
  Status shutdown(ServerContext*, const orbench::Empty*, orbench::Empty*) override {
    request_stop_();
    return Status::OK;
  }

 private:
  template <typename Message>
  Status drain(grpc::ServerReader<Message>* in) {
    Message message;
    while (in->Read(&message)) counter_.count(payload_bytes(message));
    return Status::OK;
  }
  template <typename Message>
  Status take(const Message& m) {
    counter_.count(payload_bytes(m));
    return Status::OK;
  }
  template <typename Message>
  Status echo(const Message& m, Message* reply) {
    counter_.count(payload_bytes(m));
    *reply = m;
    return Status::OK;
  }

  MessageCounter& counter_;
  std::function<void()> request_stop_;
};

// Shuts the server down once, from a thread of its own: Server::Shutdown waits for running calls, and the
// shutdown() call asking for it is one of them. Open push streams are cancelled after a second.
class GrpcStopper {
 public:
  void attach(grpc::Server* server) { server_ = server; }
  void request_stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_ || server_ == nullptr) return;
    stopped_ = true;
    grpc::Server* server = server_;
    std::thread([server] { server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1)); }).detach();
  }

 private:
  std::mutex mutex_;
  grpc::Server* server_ = nullptr;
  bool stopped_ = false;
};

// --max-threads N: a positive integer, 0 when absent (no quota).
int max_threads_arg(const ServerArgs& args) {
  const auto it = args.values.find("--max-threads");
  if (it == args.values.end()) return 0;
  size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(it->second, &used);
  } catch (const std::exception&) {
  }
  if (used != it->second.size() || value < 1) {
    throw std::invalid_argument("bad --max-threads \"" + it->second + "\": a number of threads, 1 or more");
  }
  return value;
}

int serve(int argc, char** argv) {
  block_stop_signals();  // before gRPC starts any thread
  ServerArgs args;
  bool callback = false;
  int max_threads = 0;
  try {
    args = parse_server_args(argc, argv, {}, {"--api", "--max-threads"});
    if (!parse_server_options(args.options).empty()) {
      print_start_error("grpc-cpp sets no server options (gRPC sets TCP_NODELAY itself)");
      return 2;
    }
    const std::string api = args.values.count("--api") ? args.values.at("--api") : "sync";
    if (api != "sync" && api != "callback") {
      throw std::invalid_argument("bad --api \"" + api + "\": sync or callback");
    }
    callback = api == "callback";
    max_threads = max_threads_arg(args);
    if (callback && max_threads > 0) {
      throw std::invalid_argument("--max-threads caps the synchronous server's threads; --api callback has none");
    }
  } catch (const std::invalid_argument& e) {
    print_start_error(e.what());
    return 2;
  }
  // Leaked with the stopper: the detached watcher threads may use them while main returns.
  auto* counter = new MessageCounter;
  report_received_in_stats(counter);
  auto* stopper = new GrpcStopper;
  auto stop = [stopper] { stopper->request_stop(); };
  BenchService sync_service(*counter, stop);
  CallbackBenchService callback_service(*counter, stop);

  grpc::ServerBuilder builder;
  int bound_port = 0;
  const std::string address = grpc_target_of(grpc_endpoint_of(args.host, args.port));
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &bound_port);
  if (callback) {
    builder.RegisterService(&callback_service);
  } else {
    builder.RegisterService(&sync_service);
  }
  if (max_threads > 0) {
    grpc::ResourceQuota quota("orbench-server");
    quota.SetMaxThreads(max_threads);
    builder.SetResourceQuota(quota);
  }
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || bound_port == 0) {
    print_start_error("gRPC cannot listen on " + address);
    return 1;
  }
  stopper->attach(server.get());
  start_stop_watchers([stopper] { stopper->request_stop(); });
  print_ready(grpc_endpoint_of(args.host, bound_port), server_worker_info("grpc-cpp", "gRPC", grpc::Version()));
  server->Wait();
  print_exit(counter->snapshot());
  // _exit: a sync() still waiting in a handler thread must not hold the process; the protocol lines are out.
  _exit(0);
}

}  // namespace
}  // namespace orbench

int main(int argc, char** argv) {
  orbench::reserve_stdout_for_protocol();
  return orbench::serve(argc, argv);
}
