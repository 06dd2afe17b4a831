// The client of an ORB target: a BenchDriver over an orbench::Bench object reference, against the
// standard CORBA C++ mapping. Shared by every C++ ORB target.
#pragma once

#include <string>
#include <vector>

#include "client_worker.hpp"
#include "orb_port.hpp"

namespace orbench {

class OrbBenchClient final : public ClientWorker, public BenchDriver {
 public:
  // `orb_args`: the arguments `orb` was initialized with (argv[0] first); a connect whose options need other
  // ORB settings (TAO's -ORBNodelay, ...) initializes a second ORB from them plus the options' arguments.
  OrbBenchClient(CORBA::ORB_ptr orb, std::vector<std::string> orb_args)
      : orb_(CORBA::ORB::_duplicate(orb)), base_orb_(CORBA::ORB::_duplicate(orb)), orb_args_(std::move(orb_args)) {}

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

  // Drops the object reference and destroys any ORB made for connect options; call before the main ORB's
  // destroy().
  void release();

 private:
  template <typename Payload>
  TimedSpan timed_calls_with(const Payload& payload, int64_t* samples_ns, uint64_t calls);

  // The ORB the connection uses (base_orb_, or one made for the connect options).
  CORBA::ORB_var orb_;
  CORBA::ORB_var base_orb_;
  std::vector<std::string> orb_args_;
  std::vector<std::string> option_orb_args_;  // the -ORB arguments orb_ got for its options
  std::vector<CORBA::ORB_var> option_orbs_;   // every ORB made for options, destroyed by release()
  orbench::Bench_var bench_;
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
