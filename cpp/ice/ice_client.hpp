// The client of the ice-cpp target: a BenchDriver over a Bench proxy (Ice's C++11 mapping of the Slice file the
// IDL translator writes). Twoway and echo calls go through the proxy as it is; IDL oneways through its
// ice_oneway() form, Ice's own oneway (PROTOCOL.md, "gRPC and Ice").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <Ice/Ice.h>

#include "client_worker.hpp"
#include "orbench.h"

namespace orbench {

class IceBenchClient final : public ClientWorker, public BenchDriver {
 public:
  explicit IceBenchClient(std::shared_ptr<Ice::Communicator> communicator) : communicator_(std::move(communicator)) {}

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

 private:
  template <typename Payload>
  TimedSpan timed_calls_with(const Payload& payload, int64_t* samples_ns, uint64_t calls);

  std::shared_ptr<Ice::Communicator> communicator_;
  std::shared_ptr<orbench::BenchPrx> bench_;   // twoway
  std::shared_ptr<orbench::BenchPrx> oneway_;  // bench_->ice_oneway()
  Mode mode_ = Mode::twoway;
  PayloadType payload_type_ = PayloadType::octets;
  // Built once per run by prepare(), outside timing.
  orbench::Octets octets_;
  orbench::Records records_;
  orbench::Longs longs_;
  orbench::Doubles doubles_;
  orbench::Strings strings_;
};

}  // namespace orbench
