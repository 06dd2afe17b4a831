// orbench-grpc-server: the grpc-cpp target's server worker (PROTOCOL.md, "Server worker"), on the server kit
// (server_kit.hpp). The Bench service generated from orbench.idl, on gRPC's synchronous C++ server: every call
// runs on a thread of gRPC's own pool, which grows while all its threads are busy, so a sync() barrier waiting
// in one call does not stop the others. A push stream (an IDL oneway, PROTOCOL.md "gRPC and Ice") holds one
// thread while it is open. Threading (harness/targets/grpc-cpp.toml): --max-threads N caps that pool
// (ResourceQuota::SetMaxThreads); --api callback serves the same service on the callback API instead
// (grpc_callback_service.hpp). Beside Bench it serves Shapes (the invocation shapes out, return, inout and
// exception, PROTOCOL.md "gRPC and Ice"), on the same API; both share what a shape does (grpc_shape_replies.hpp).
#include <chrono>
#include <memory>

#include <grpcpp/grpcpp.h>

#include "endpoint_url.hpp"
#include "grpc_absl.hpp"
#include "grpc_callback_service.hpp"
#include "grpc_counters.hpp"
#include "grpc_shape_replies.hpp"
#include "orbench.grpc.pb.h"
#include "server_kit.hpp"

namespace orbench {
namespace {

using P = PayloadType;
using grpc::ServerContext;
using grpc::Status;
template <typename Message>
using Reader = grpc::ServerReader<Message>;

class BenchService final : public Bench::Service {
 public:
  explicit BenchService(BenchCore& core) : core_(core) {}

  Status push(ServerContext*, Reader<Octets>* in, Empty*) override { return drain<P::octets>(in); }
  Status push_records(ServerContext*, Reader<Records>* in, Empty*) override { return drain<P::records>(in); }
  Status push_longs(ServerContext*, Reader<Longs>* in, Empty*) override { return drain<P::longs>(in); }
  Status push_doubles(ServerContext*, Reader<Doubles>* in, Empty*) override { return drain<P::doubles>(in); }
  Status push_strings(ServerContext*, Reader<Strings>* in, Empty*) override { return drain<P::strings>(in); }
  Status send(ServerContext*, const Octets* m, Empty*) override { return take<P::octets>(*m); }
  Status send_records(ServerContext*, const Records* m, Empty*) override { return take<P::records>(*m); }
  Status send_longs(ServerContext*, const Longs* m, Empty*) override { return take<P::longs>(*m); }
  Status send_doubles(ServerContext*, const Doubles* m, Empty*) override { return take<P::doubles>(*m); }
  Status send_strings(ServerContext*, const Strings* m, Empty*) override { return take<P::strings>(*m); }
  Status echo_octets(ServerContext*, const Octets* m, Octets* r) override { return echo<P::octets>(*m, r); }
  Status echo_records(ServerContext*, const Records* m, Records* r) override { return echo<P::records>(*m, r); }
  Status echo_longs(ServerContext*, const Longs* m, Longs* r) override { return echo<P::longs>(*m, r); }
  Status echo_doubles(ServerContext*, const Doubles* m, Doubles* r) override { return echo<P::doubles>(*m, r); }
  Status echo_strings(ServerContext*, const Strings* m, Strings* r) override { return echo<P::strings>(*m, r); }

  Status sync(ServerContext*, const SyncRequest* request, SyncResult* reply) override {
    to_proto(core_.sync(request->expected(), request->timeout_ms()), reply);
    return Status::OK;
  }
  Status counters(ServerContext*, const Empty*, Counters* reply) override {
    to_proto(core_.counters(), reply);
    return Status::OK;
  }
  Status reset_counters(ServerContext*, const Empty*, Empty*) override {
    core_.reset_counters();
    return Status::OK;
  }
  Status shutdown(ServerContext*, const Empty*, Empty*) override {
    core_.shutdown();
    return Status::OK;
  }
  // references(): not overridden, so UNIMPLEMENTED (gRPC has services, not objects).

 private:
  template <PayloadType T, typename Message>
  Status drain(Reader<Message>* in) {
    Message message;
    while (in->Read(&message)) core_.count<T>(message.items());
    return Status::OK;
  }
  template <PayloadType T, typename Message>
  Status take(const Message& m) {
    core_.count<T>(m.items());
    return Status::OK;
  }
  template <PayloadType T, typename Message>
  Status echo(const Message& m, Message* reply) {
    core_.count<T>(m.items());
    *reply = m;
    return Status::OK;
  }

  BenchCore& core_;
};

class ShapesService final : public Shapes::Service {
 public:
  explicit ShapesService(BenchCore& core) : replies_(core) {}

  Status out_octets(ServerContext*, const OutOctetsRequest* q, Octets* r) override { return made<P::octets>(q, r); }
  Status out_records(ServerContext*, const OutRecordsRequest* q, Records* r) override { return made<P::records>(q, r); }
  Status out_longs(ServerContext*, const OutLongsRequest* q, Longs* r) override { return made<P::longs>(q, r); }
  Status out_doubles(ServerContext*, const OutDoublesRequest* q, Doubles* r) override { return made<P::doubles>(q, r); }
  Status out_strings(ServerContext*, const OutStringsRequest* q, Strings* r) override { return made<P::strings>(q, r); }
  Status return_octets(ServerContext*, const ReturnOctetsRequest* q, Octets* r) override {
    return made<P::octets>(q, r);
  }
  Status return_records(ServerContext*, const ReturnRecordsRequest* q, Records* r) override {
    return made<P::records>(q, r);
  }
  Status return_longs(ServerContext*, const ReturnLongsRequest* q, Longs* r) override { return made<P::longs>(q, r); }
  Status return_doubles(ServerContext*, const ReturnDoublesRequest* q, Doubles* r) override {
    return made<P::doubles>(q, r);
  }
  Status return_strings(ServerContext*, const ReturnStringsRequest* q, Strings* r) override {
    return made<P::strings>(q, r);
  }
  Status inout_octets(ServerContext*, const Octets* m, Octets* r) override { return replies_.inout<P::octets>(*m, r); }
  Status inout_records(ServerContext*, const Records* m, Records* r) override {
    return replies_.inout<P::records>(*m, r);
  }
  Status inout_longs(ServerContext*, const Longs* m, Longs* r) override { return replies_.inout<P::longs>(*m, r); }
  Status inout_doubles(ServerContext*, const Doubles* m, Doubles* r) override {
    return replies_.inout<P::doubles>(*m, r);
  }
  Status inout_strings(ServerContext*, const Strings* m, Strings* r) override {
    return replies_.inout<P::strings>(*m, r);
  }
  Status raise_octets(ServerContext*, const Octets* m, Empty*) override { return replies_.refuse<P::octets>(*m); }
  Status raise_records(ServerContext*, const Records* m, Empty*) override { return replies_.refuse<P::records>(*m); }
  Status raise_longs(ServerContext*, const Longs* m, Empty*) override { return replies_.refuse<P::longs>(*m); }
  Status raise_doubles(ServerContext*, const Doubles* m, Empty*) override { return replies_.refuse<P::doubles>(*m); }
  Status raise_strings(ServerContext*, const Strings* m, Empty*) override { return replies_.refuse<P::strings>(*m); }

 private:
  template <PayloadType T, typename Request, typename Message>
  Status made(const Request* request, Message* reply) {
    return replies_.made<T>(request->count(), reply);
  }

  ShapeReplies replies_;
};

class GrpcServer {
 public:
  static ServerSpec spec() {
    ServerSpec spec{"grpc-cpp", "gRPC", grpc::Version()};
    spec.values = {"--api", "--max-threads"};
    spec.no_options_because = "gRPC sets TCP_NODELAY itself";
    return spec;
  }

  GrpcServer(const ServerConfig& config, BenchCore& core) : host_(config.host) {
    const auto api = config.values.find("--api");
    const bool callback = api != config.values.end() && api->second == "callback";
    if (api != config.values.end() && !callback && api->second != "sync") {
      throw std::invalid_argument("bad --api \"" + api->second + "\": sync or callback");
    }
    const auto max_threads = config.integer("--max-threads", 0, 1, INT32_MAX, "a number of threads, 1 or more");
    if (callback && max_threads > 0) {
      throw std::invalid_argument("--max-threads caps the synchronous server's threads; --api callback has none");
    }
    service_ = callback ? callback_bench_service(core) : std::make_unique<BenchService>(core);
    shapes_ = callback ? callback_shapes_service(core) : std::make_unique<ShapesService>(core);

    grpc::ServerBuilder builder;
    const std::string address = host_port(config.host, config.port);
    builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(service_.get());
    builder.RegisterService(shapes_.get());
    if (max_threads > 0) {
      grpc::ResourceQuota quota("orbench-server");
      quota.SetMaxThreads(static_cast<int>(max_threads));
      builder.SetResourceQuota(quota);
    }
    server_ = builder.BuildAndStart();
    if (!server_ || port_ == 0) throw std::runtime_error("cannot listen on " + address);
  }

  void serve(const std::function<void(const std::string&)>& ready) {
    ready(endpoint_url("grpc", host_, port_));
    server_->Wait();
  }
  // Waits for running calls, so not inside the shutdown() call (the kit calls it on a thread of its own); open
  // push streams are cancelled after a second.
  void stop() { server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1)); }

 private:
  std::string host_;
  int port_ = 0;
  std::unique_ptr<grpc::Service> service_;
  std::unique_ptr<grpc::Service> shapes_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace
}  // namespace orbench

int main(int argc, char** argv) {
  orbench::absl_checks_as_in_release();
  return orbench::server_main<orbench::GrpcServer>(argc, argv);
}
