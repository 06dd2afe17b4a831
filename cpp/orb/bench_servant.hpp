// The orbench::Bench servant, against the standard CORBA C++ mapping: counts what it receives and
// implements the sync barrier. Shared by every C++ ORB target. A server with several objects (--objects K)
// activates K of them, which share the counters and answer references() from one ObjectDirectory.
#pragma once

#include <functional>
#include <vector>

#include "message_counter.hpp"
#include "orb_port.hpp"

namespace orbench {

// The server's objects in activation order: object k's reference, stringified when a client asks.
class ObjectDirectory {
 public:
  explicit ObjectDirectory(CORBA::ORB_ptr orb) : orb_(CORBA::ORB::_duplicate(orb)) {}
  void add(CORBA::Object_ptr reference) { references_.emplace_back(CORBA::Object::_duplicate(reference)); }
  size_t size() const { return references_.size(); }
  CORBA::Object_ptr reference(size_t k) const { return references_.at(k).in(); }
  // Objects first .. first + count - 1, fewer past the last one.
  orbench::Strings* strings(CORBA::ULong first, CORBA::ULong count) const;

 private:
  CORBA::ORB_var orb_;
  std::vector<CORBA::Object_var> references_;
};

class BenchServant : public virtual POA_orbench::Bench {
 public:
  // `request_stop` is called by shutdown() (after which the ORB's run() returns in main).
  // Object `index` of `directory` (filled in before the server is ready).
  BenchServant(MessageCounter& counter, const ObjectDirectory& directory, uint32_t index,
               std::function<void()> request_stop)
      : counter_(counter), directory_(directory), index_(index), request_stop_(std::move(request_stop)) {}

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
  orbench::Strings* references(CORBA::ULong first, CORBA::ULong count) override;
  void shutdown() override;

 private:
  // Counts one payload-carrying request to this object.
  void count(uint64_t payload_bytes) { counter_.count(payload_bytes, index_); }

  MessageCounter& counter_;
  const ObjectDirectory& directory_;
  const uint32_t index_;
  std::function<void()> request_stop_;
};

}  // namespace orbench
