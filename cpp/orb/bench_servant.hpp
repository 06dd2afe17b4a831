// The orbench::Bench servant, against the standard CORBA C++ mapping: counts what it receives and
// implements the sync barrier. Shared by every C++ ORB target.
#pragma once

#include <functional>

#include "message_counter.hpp"
#include "orb_port.hpp"

namespace orbench {

class BenchServant : public virtual POA_orbench::Bench {
 public:
  // `request_stop` is called by shutdown() (after which the ORB's run() returns in main).
  BenchServant(MessageCounter& counter, std::function<void()> request_stop)
      : counter_(counter), request_stop_(std::move(request_stop)) {}

  void push(const orbench::Octets& data) override;
  void push_records(const orbench::Records& data) override;
  void push_longs(const orbench::Longs& data) override;
  void push_doubles(const orbench::Doubles& data) override;
  void push_strings(const orbench::Strings& data) override;
  void send(const orbench::Octets& data) override;
  void send_records(const orbench::Records& data) override;
  void send_longs(const orbench::Longs& data) override;
  void send_doubles(const orbench::Doubles& data) override;
  void send_strings(const orbench::Strings& data) override;
  orbench::Octets* echo_octets(const orbench::Octets& data) override;
  orbench::Records* echo_records(const orbench::Records& data) override;
  orbench::Longs* echo_longs(const orbench::Longs& data) override;
  orbench::Doubles* echo_doubles(const orbench::Doubles& data) override;
  orbench::Strings* echo_strings(const orbench::Strings& data) override;
  orbench::SyncResult sync(CORBA::ULongLong expected, CORBA::ULong timeout_ms) override;
  orbench::Counters counters() override;
  void reset_counters() override;
  void shutdown() override;

 private:
  MessageCounter& counter_;
  std::function<void()> request_stop_;
};

}  // namespace orbench
