// The orbench::Bench servant, against the standard CORBA C++ mapping, on the server kit (server_kit.hpp): each
// IDL operation a line that calls BenchCore. Shared by every C++ ORB target. A server with several objects
// (--objects K) activates K of them, which share the counters and answer references() from one ObjectDirectory.
// It also serves the IDL's Shapes (PROTOCOL.md, "Invocation shapes"): out, return, inout, a user exception and
// wide strings.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "orb_port.hpp"
#include "server_kit.hpp"
#include "shape_calls.hpp"

namespace orbench {

// The server's objects in activation order: object k's reference, stringified when a client asks.
class ObjectDirectory {
 public:
  explicit ObjectDirectory(CORBA::ORB_ptr orb) : orb_(CORBA::ORB::_duplicate(orb)) {}
  void add(CORBA::Object_ptr reference) { references_.emplace_back(CORBA::Object::_duplicate(reference)); }
  CORBA::Object_ptr reference(size_t k) const { return references_.at(k).in(); }
  // The stringified references of objects range.begin .. range.end - 1.
  orbench::Strings* strings(ObjectRange range) const;
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

  // Shapes (PROTOCOL.md, "Invocation shapes").
  void out_octets(CORBA::ULong count, Octets_out data) override;
  void out_records(CORBA::ULong count, Records_out data) override;
  void out_longs(CORBA::ULong count, Longs_out data) override;
  void out_doubles(CORBA::ULong count, Doubles_out data) override;
  void out_strings(CORBA::ULong count, Strings_out data) override;
  Octets* return_octets(CORBA::ULong count) override;
  Records* return_records(CORBA::ULong count) override;
  Longs* return_longs(CORBA::ULong count) override;
  Doubles* return_doubles(CORBA::ULong count) override;
  Strings* return_strings(CORBA::ULong count) override;
  void inout_octets(Octets& data) override;
  void inout_records(Records& data) override;
  void inout_longs(Longs& data) override;
  void inout_doubles(Doubles& data) override;
  void inout_strings(Strings& data) override;
  void raise_octets(const Octets& data) override;
  void raise_records(const Records& data) override;
  void raise_longs(const Longs& data) override;
  void raise_doubles(const Doubles& data) override;
  void raise_strings(const Strings& data) override;
  // A wide string counts its characters, as a string does.
  void send_wstrings(const WStrings& d) override { core_.count<P::strings>(d, index_); }
  WStrings* echo_wstrings(const WStrings& d) override { return echo<P::strings>(d); }
  char* dsi_reference() override { return directory_.dsi_string(); }

 private:
  using P = PayloadType;
  template <PayloadType T, typename Sequence>
  Sequence* echo(const Sequence& d) {
    core_.count<T>(d, index_);
    return new Sequence(d);
  }
  template <PayloadType T, typename Sequence>
  const Sequence& reply(CORBA::ULong count);
  template <PayloadType T, typename Sequence>
  void inout(Sequence& data);
  template <PayloadType T, typename Sequence>
  void refuse(const Sequence& data);
  static Counters to_idl(const Counts& counts);

  BenchCore& core_;
  const ObjectDirectory& directory_;
  const uint32_t index_;
  ReplyCache replies_;
};

}  // namespace orbench
