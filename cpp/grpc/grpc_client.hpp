// The client of the grpc-cpp target: a BenchDriver over the Bench service generated from orbench.idl (through
// the proto the IDL translator writes), with gRPC's synchronous C++ API.
//
// IDL oneways are client-streaming calls (PROTOCOL.md, "gRPC and Ice"): one stream per payload type, opened by
// the first oneway run of that type and kept open until the connection is replaced or the client quits; each
// timed call is one Write() on it, which returns when gRPC has taken the message (flow control permitting).
#pragma once

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "client_worker.hpp"
#include "orbench.grpc.pb.h"

namespace orbench {

// One open client stream of a push operation, and its call's context and (empty) reply.
template <typename Message>
struct PushStream {
  grpc::ClientContext context;
  orbench::Empty reply;
  std::unique_ptr<grpc::ClientWriter<Message>> writer;
};

class GrpcBenchClient final : public ClientWorker, public BenchDriver {
 public:
  ~GrpcBenchClient() override { disconnect(); }

  // ClientWorker
  nlohmann::ordered_json worker_info() const override;
  std::vector<std::string> modes() const override { return {"twoway", "oneway", "echo"}; }
  std::vector<std::string> payload_types() const override {
    return {"octets", "records", "longs", "doubles", "strings"};
  }
  void connect(const std::string& endpoint, const nlohmann::json& options) override;
  BenchDriver& driver() override;

  // BenchDriver
  void prepare(const RunSpec& spec) override;
  void reset_counters() override;
  Counts counters() override;
  SyncOutcome sync(uint64_t expected, uint32_t timeout_ms) override;
  void untimed_calls(uint64_t calls) override;
  TimedSpan timed_calls(int64_t* samples_ns, uint64_t calls) override;

  // Closes the push streams (WritesDone, Finish) and drops the channel.
  void disconnect();

 private:
  template <typename Message>
  TimedSpan timed_calls_with(const Message& payload, int64_t* samples_ns, uint64_t calls);
  template <typename Message>
  PushStream<Message>& push_stream();

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<orbench::Bench::Stub> stub_;
  std::tuple<std::unique_ptr<PushStream<orbench::Octets>>, std::unique_ptr<PushStream<orbench::Records>>,
             std::unique_ptr<PushStream<orbench::Longs>>, std::unique_ptr<PushStream<orbench::Doubles>>,
             std::unique_ptr<PushStream<orbench::Strings>>>
      streams_;
  Mode mode_ = Mode::twoway;
  PayloadType payload_type_ = PayloadType::octets;
  // Built once per run by prepare(), outside timing.
  orbench::Octets octets_;
  orbench::Records records_;
  orbench::Longs longs_;
  orbench::Doubles doubles_;
  orbench::Strings strings_;
};

// "grpc://HOST:PORT" -> "HOST:PORT" (a gRPC target name); throws WorkerError(usage) for anything else.
std::string grpc_target_of(const std::string& endpoint);
std::string grpc_endpoint_of(const std::string& host, int port);

}  // namespace orbench
