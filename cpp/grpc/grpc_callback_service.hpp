// The Bench service on gRPC's callback API (grpc::CallbackServerContext and reactors), the grpc-cpp server's
// second implementation (--api callback): handlers run on gRPC's own callback threads and return at once,
// and a oneway push stream holds no thread while it is open, where the synchronous API holds one per stream.
#pragma once

#include <functional>

#include "message_counter.hpp"
#include "orbench.grpc.pb.h"

namespace orbench {

class CallbackBenchService final : public orbench::Bench::CallbackService {
 public:
  // `request_stop` must not block: it runs inside the shutdown() call, before its reply.
  CallbackBenchService(MessageCounter& counter, std::function<void()> request_stop)
      : counter_(counter), request_stop_(std::move(request_stop)) {}

  grpc::ServerReadReactor<orbench::Octets>* push(grpc::CallbackServerContext*, orbench::Empty*) override;
  grpc::ServerReadReactor<orbench::Records>* push_records(grpc::CallbackServerContext*, orbench::Empty*) override;
  grpc::ServerReadReactor<orbench::Longs>* push_longs(grpc::CallbackServerContext*, orbench::Empty*) override;
  grpc::ServerReadReactor<orbench::Doubles>* push_doubles(grpc::CallbackServerContext*, orbench::Empty*) override;
  grpc::ServerReadReactor<orbench::Strings>* push_strings(grpc::CallbackServerContext*, orbench::Empty*) override;

  grpc::ServerUnaryReactor* send(grpc::CallbackServerContext*, const orbench::Octets*, orbench::Empty*) override;
  grpc::ServerUnaryReactor* send_records(grpc::CallbackServerContext*, const orbench::Records*,
                                         orbench::Empty*) override;
  grpc::ServerUnaryReactor* send_longs(grpc::CallbackServerContext*, const orbench::Longs*, orbench::Empty*) override;
  grpc::ServerUnaryReactor* send_doubles(grpc::CallbackServerContext*, const orbench::Doubles*,
                                         orbench::Empty*) override;
  grpc::ServerUnaryReactor* send_strings(grpc::CallbackServerContext*, const orbench::Strings*,
                                         orbench::Empty*) override;

  grpc::ServerUnaryReactor* echo_octets(grpc::CallbackServerContext*, const orbench::Octets*,
                                        orbench::Octets*) override;
  grpc::ServerUnaryReactor* echo_records(grpc::CallbackServerContext*, const orbench::Records*,
                                         orbench::Records*) override;
  grpc::ServerUnaryReactor* echo_longs(grpc::CallbackServerContext*, const orbench::Longs*, orbench::Longs*) override;
  grpc::ServerUnaryReactor* echo_doubles(grpc::CallbackServerContext*, const orbench::Doubles*,
                                         orbench::Doubles*) override;
  grpc::ServerUnaryReactor* echo_strings(grpc::CallbackServerContext*, const orbench::Strings*,
                                         orbench::Strings*) override;

  grpc::ServerUnaryReactor* sync(grpc::CallbackServerContext*, const orbench::SyncRequest*,
                                 orbench::SyncResult*) override;
  grpc::ServerUnaryReactor* counters(grpc::CallbackServerContext*, const orbench::Empty*,
                                     orbench::Counters*) override;
  grpc::ServerUnaryReactor* reset_counters(grpc::CallbackServerContext*, const orbench::Empty*,
                                           orbench::Empty*) override;
  grpc::ServerUnaryReactor* shutdown(grpc::CallbackServerContext*, const orbench::Empty*, orbench::Empty*) override;

 private:
  MessageCounter& counter_;
  std::function<void()> request_stop_;
};

}  // namespace orbench
