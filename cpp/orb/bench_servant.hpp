// The orbench::Bench servant, against the standard CORBA C++ mapping: counts what it receives and
// implements the sync barrier. Shared by every C++ ORB target. A server with several objects (--objects K)
// activates K of them, which share the counters and answer references() from one ObjectDirectory.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
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
  // The object served through the dynamic skeleton interface (nil where there is none).
  void set_dsi(CORBA::Object_ptr reference) { dsi_ = CORBA::Object::_duplicate(reference); }
  // Its stringified reference, "" when there is none.
  char* dsi_string() const;

 private:
  CORBA::ORB_var orb_;
  std::vector<CORBA::Object_var> references_;
  CORBA::Object_var dsi_;
};

// The payload a shape hands back (elements from 1, PROTOCOL.md, "Invocation shapes"), built once per payload
// type and element count and kept: each call copies it, as the mapping gives the ORB ownership of an out
// argument or return value.
class ReplyCache {
 public:
  template <typename P, typename Make>
  const P& get(int type, CORBA::ULong count, Make&& make) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = replies_[{type, count}];
    if (!slot) slot = std::shared_ptr<void>(make(), [](void* p) { delete static_cast<P*>(p); });
    return *static_cast<const P*>(slot.get());
  }

 private:
  std::mutex mutex_;
  std::map<std::pair<int, CORBA::ULong>, std::shared_ptr<void>> replies_;
};

class BenchServant : public virtual POA_orbench::Shapes {
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

  // Shapes (PROTOCOL.md, "Invocation shapes").
  void out_octets(CORBA::ULong count, orbench::Octets_out data) override;
  void out_records(CORBA::ULong count, orbench::Records_out data) override;
  void out_longs(CORBA::ULong count, orbench::Longs_out data) override;
  void out_doubles(CORBA::ULong count, orbench::Doubles_out data) override;
  void out_strings(CORBA::ULong count, orbench::Strings_out data) override;
  orbench::Octets* return_octets(CORBA::ULong count) override;
  orbench::Records* return_records(CORBA::ULong count) override;
  orbench::Longs* return_longs(CORBA::ULong count) override;
  orbench::Doubles* return_doubles(CORBA::ULong count) override;
  orbench::Strings* return_strings(CORBA::ULong count) override;
  void inout_octets(orbench::Octets& data) override;
  void inout_records(orbench::Records& data) override;
  void inout_longs(orbench::Longs& data) override;
  void inout_doubles(orbench::Doubles& data) override;
  void inout_strings(orbench::Strings& data) override;
  void raise_octets(const orbench::Octets& data) override;
  void raise_records(const orbench::Records& data) override;
  void raise_longs(const orbench::Longs& data) override;
  void raise_doubles(const orbench::Doubles& data) override;
  void raise_strings(const orbench::Strings& data) override;
  void send_wstrings(const orbench::WStrings& data) override;
  orbench::WStrings* echo_wstrings(const orbench::WStrings& data) override;
  char* dsi_reference() override;

 private:
  template <PayloadType T, typename P>
  const P& reply(CORBA::ULong count);
  template <PayloadType T, typename P>
  void inout(P& data);
  template <typename P>
  void refuse(const P& data);

  // Counts one payload-carrying request to this object.
  void count(uint64_t payload_bytes) { counter_.count(payload_bytes, index_); }

  MessageCounter& counter_;
  const ObjectDirectory& directory_;
  const uint32_t index_;
  std::function<void()> request_stop_;
  ReplyCache replies_;
};

// What a payload counts in bytes (PROTOCOL.md, "Payload types"); a wide string its characters, as a string.
uint64_t counted_bytes(const orbench::Octets& data);
uint64_t counted_bytes(const orbench::Records& data);
uint64_t counted_bytes(const orbench::Longs& data);
uint64_t counted_bytes(const orbench::Doubles& data);
uint64_t counted_bytes(const orbench::Strings& data);
uint64_t counted_bytes(const orbench::WStrings& data);

// A fault a check-target test asks a worker to have (environment ORBENCH_FAULT; PROTOCOL.md, "Invocation
// shapes"): "" in every real run.
const std::string& injected_fault();

}  // namespace orbench
