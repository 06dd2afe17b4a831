// The client of an ORB target: a BenchDriver over an orbench::Bench object reference, against the
// standard CORBA C++ mapping. Shared by every C++ ORB target.
#pragma once

#include "client_worker.hpp"
#include "orb_port.hpp"

namespace orbench {

class OrbBenchClient final : public ClientWorker, public BenchDriver {
 public:
  explicit OrbBenchClient(CORBA::ORB_ptr orb) : orb_(CORBA::ORB::_duplicate(orb)) {}

  // ClientWorker
  nlohmann::ordered_json worker_info() const override;
  std::vector<std::string> modes() const override { return {"twoway", "oneway", "echo"}; }
  std::vector<std::string> payload_types() const override { return {"octets", "records"}; }
  void connect(const std::string& endpoint, const nlohmann::json& options) override;
  BenchDriver& driver() override;

  // BenchDriver
  void prepare(const RunSpec& spec) override;
  void reset_counters() override;
  Counts counters() override;
  SyncOutcome sync(uint64_t expected, uint32_t timeout_ms) override;
  void untimed_calls(uint64_t calls) override;
  TimedSpan timed_calls(int64_t* samples_ns, uint64_t calls) override;

  // Drops the object reference; call before ORB::destroy().
  void release() { bench_ = orbench::Bench::_nil(); }

 private:
  template <typename Payload>
  TimedSpan timed_calls_with(const Payload& payload, int64_t* samples_ns, uint64_t calls);

  CORBA::ORB_var orb_;
  orbench::Bench_var bench_;
  Mode mode_ = Mode::twoway;
  PayloadType payload_type_ = PayloadType::octets;
  // Built once per run by prepare(), outside timing.
  orbench::Octets octets_;
  orbench::Records records_;
};

}  // namespace orbench
