// The orbench::Bench servant, against the standard CORBA C++ mapping, on the server kit (server_kit.hpp): each
// IDL operation a line that calls BenchCore. Shared by every C++ ORB target. A server with several objects
// (--objects K) activates K of them, which share the counters and answer references() from one ObjectDirectory.
#pragma once

#include <vector>

#include "orb_port.hpp"
#include "server_kit.hpp"

namespace orbench {

// The server's objects in activation order: object k's reference, stringified when a client asks.
class ObjectDirectory {
 public:
  explicit ObjectDirectory(CORBA::ORB_ptr orb) : orb_(CORBA::ORB::_duplicate(orb)) {}
  void add(CORBA::Object_ptr reference) { references_.emplace_back(CORBA::Object::_duplicate(reference)); }
  CORBA::Object_ptr reference(size_t k) const { return references_.at(k).in(); }
  // The stringified references of objects range.begin .. range.end - 1.
  orbench::Strings* strings(ObjectRange range) const;

 private:
  CORBA::ORB_var orb_;
  std::vector<CORBA::Object_var> references_;
};

class BenchServant : public virtual POA_orbench::Bench {
 public:
  // Object `index` of `directory` (filled in before the server is ready).
  BenchServant(BenchCore& core, const ObjectDirectory& directory, uint32_t index)
      : core_(core), directory_(directory), index_(index) {}

  void push(const Octets& d) override { core_.count<P::octets>(d, index_); }
  void push_records(const Records& d) override { core_.count<P::records>(d, index_); }
  void push_longs(const Longs& d) override { core_.count<P::longs>(d, index_); }
  void push_doubles(const Doubles& d) override { core_.count<P::doubles>(d, index_); }
  void push_strings(const Strings& d) override { core_.count<P::strings>(d, index_); }
  void send(const Octets& d) override { core_.count<P::octets>(d, index_); }
  void send_records(const Records& d) override { core_.count<P::records>(d, index_); }
  void send_longs(const Longs& d) override { core_.count<P::longs>(d, index_); }
  void send_doubles(const Doubles& d) override { core_.count<P::doubles>(d, index_); }
  void send_strings(const Strings& d) override { core_.count<P::strings>(d, index_); }
  // The mapping returns a variable-length result as a new object the ORB frees after the reply.
  Octets* echo_octets(const Octets& d) override { return echo<P::octets>(d); }
  Records* echo_records(const Records& d) override { return echo<P::records>(d); }
  Longs* echo_longs(const Longs& d) override { return echo<P::longs>(d); }
  Doubles* echo_doubles(const Doubles& d) override { return echo<P::doubles>(d); }
  Strings* echo_strings(const Strings& d) override { return echo<P::strings>(d); }

  SyncResult sync(CORBA::ULongLong expected, CORBA::ULong timeout_ms) override;
  Counters counters() override { return to_idl(core_.counters()); }
  void reset_counters() override { core_.reset_counters(); }
  Strings* references(CORBA::ULong first, CORBA::ULong count) override {
    return directory_.strings(core_.references(first, count));
  }
  // Only starts the stop (ORB::shutdown(false), on a thread of its own): this upcall still returns and its reply
  // goes out before the ORB is destroyed.
  void shutdown() override { core_.shutdown(); }

 private:
  using P = PayloadType;
  template <PayloadType T, typename Sequence>
  Sequence* echo(const Sequence& d) {
    core_.count<T>(d, index_);
    return new Sequence(d);
  }
  static Counters to_idl(const Counts& counts);

  BenchCore& core_;
  const ObjectDirectory& directory_;
  const uint32_t index_;
};

}  // namespace orbench
