#include "bench_servant.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cwchar>

#include "payload_values.hpp"

namespace orbench {

namespace {
orbench::Counters to_idl(const Counts& counts) {
  orbench::Counters result;
  result.messages = counts.messages;
  result.bytes = counts.bytes;
  return result;
}
// A string counts its characters (PROTOCOL.md, "Payload types"): kStringChars each as the clients send them.
uint64_t string_bytes(const orbench::Strings& data) {
  uint64_t bytes = 0;
  for (CORBA::ULong i = 0; i < data.length(); ++i) bytes += std::strlen(data[i].in());
  return bytes;
}
}  // namespace

void BenchServant::push(const orbench::Octets& data) { count(data.length()); }

void BenchServant::push_records(const orbench::Records& data) { count(data.length() * kRecordBytes); }

void BenchServant::send(const orbench::Octets& data) { count(data.length()); }

void BenchServant::send_records(const orbench::Records& data) { count(data.length() * kRecordBytes); }

void BenchServant::push_longs(const orbench::Longs& data) { count(data.length() * 4); }

void BenchServant::push_doubles(const orbench::Doubles& data) { count(data.length() * 8); }

void BenchServant::push_strings(const orbench::Strings& data) { count(string_bytes(data)); }

void BenchServant::send_longs(const orbench::Longs& data) { count(data.length() * 4); }

void BenchServant::send_doubles(const orbench::Doubles& data) { count(data.length() * 8); }

void BenchServant::send_strings(const orbench::Strings& data) { count(string_bytes(data)); }

orbench::Longs* BenchServant::echo_longs(const orbench::Longs& data) {
  count(data.length() * 4);
  return new orbench::Longs(data);
}

orbench::Doubles* BenchServant::echo_doubles(const orbench::Doubles& data) {
  count(data.length() * 8);
  return new orbench::Doubles(data);
}

orbench::Strings* BenchServant::echo_strings(const orbench::Strings& data) {
  count(string_bytes(data));
  return new orbench::Strings(data);
}

orbench::Octets* BenchServant::echo_octets(const orbench::Octets& data) {
  count(data.length());
  return new orbench::Octets(data);
}

orbench::Records* BenchServant::echo_records(const orbench::Records& data) {
  count(data.length() * kRecordBytes);
  return new orbench::Records(data);
}

orbench::SyncResult BenchServant::sync(CORBA::ULongLong expected, CORBA::ULong timeout_ms) {
  const SyncOutcome outcome = counter_.wait_for(expected, timeout_ms);
  orbench::SyncResult result;
  result.complete = outcome.complete;
  result.received = to_idl(outcome.received);
  return result;
}

orbench::Counters BenchServant::counters() { return to_idl(counter_.snapshot()); }

void BenchServant::reset_counters() { counter_.reset(); }

orbench::Strings* BenchServant::references(CORBA::ULong first, CORBA::ULong count) {
  return directory_.strings(first, count);
}

char* ObjectDirectory::dsi_string() const {
  if (CORBA::is_nil(dsi_.in())) return CORBA::string_dup("");
  return orb_->object_to_string(dsi_.in());
}

orbench::Strings* ObjectDirectory::strings(CORBA::ULong first, CORBA::ULong count) const {
  auto* out = new orbench::Strings;
  const size_t end = first >= references_.size() ? first : std::min<size_t>(references_.size(), size_t{first} + count);
  out->length(static_cast<CORBA::ULong>(end - first));
  for (size_t k = first; k < end; ++k) {
    CORBA::String_var text = orb_->object_to_string(references_[k].in());
    (*out)[static_cast<CORBA::ULong>(k - first)] = text.in();  // copies the string
  }
  return out;
}

// Only initiates the stop (ORB::shutdown(false) through request_stop_): this upcall still returns and its
// reply goes out before main's ORB::destroy() waits for all upcalls to finish.
void BenchServant::shutdown() { request_stop_(); }

uint64_t counted_bytes(const orbench::Octets& data) { return data.length(); }
uint64_t counted_bytes(const orbench::Records& data) { return data.length() * kRecordBytes; }
uint64_t counted_bytes(const orbench::Longs& data) { return data.length() * 4; }
uint64_t counted_bytes(const orbench::Doubles& data) { return data.length() * 8; }
uint64_t counted_bytes(const orbench::Strings& data) { return string_bytes(data); }
uint64_t counted_bytes(const orbench::WStrings& data) {
  uint64_t chars = 0;
  for (CORBA::ULong i = 0; i < data.length(); ++i) chars += std::wcslen(data[i].in());
  return chars;
}

const std::string& injected_fault() {
  static const std::string fault = [] {
    const char* value = std::getenv("ORBENCH_FAULT");
    return std::string(value != nullptr ? value : "");
  }();
  return fault;
}

// The reply of out, return and inout: `count` elements from element 1, built on the first call of a size.
template <PayloadType T, typename P>
const P& BenchServant::reply(CORBA::ULong count) {
  return replies_.get<P>(static_cast<int>(T), count, [count] {
    auto* made = new P;
    made->length(count);
    payload::fill_indexed<T>(*made, count, 1);
    return made;
  });
}

// inout: the argument's elements replaced by the reply's (the fault inout_unchanged leaves them as they came).
template <PayloadType T, typename P>
void BenchServant::inout(P& data) {
  count(counted_bytes(data));
  if (injected_fault() == "inout_unchanged") return;
  data = reply<T, P>(data.length());
}

template <typename P>
void BenchServant::refuse(const P& data) {
  count(counted_bytes(data));
  if (injected_fault() == "no_raise") return;
  throw orbench::Refused(data.length());
}

#define ORBENCH_SHAPE_OPS(NAME, SEQ, TYPE)                                                   \
  void BenchServant::out_##NAME(CORBA::ULong n, orbench::SEQ##_out data) {                  \
    const orbench::SEQ& made = reply<PayloadType::TYPE, orbench::SEQ>(n);                    \
    count(counted_bytes(made));                                                              \
    data = new orbench::SEQ(made);                                                           \
  }                                                                                          \
  orbench::SEQ* BenchServant::return_##NAME(CORBA::ULong n) {                                \
    const orbench::SEQ& made = reply<PayloadType::TYPE, orbench::SEQ>(n);                    \
    count(counted_bytes(made));                                                              \
    return new orbench::SEQ(made);                                                           \
  }                                                                                          \
  void BenchServant::inout_##NAME(orbench::SEQ& data) { inout<PayloadType::TYPE>(data); }   \
  void BenchServant::raise_##NAME(const orbench::SEQ& data) { refuse(data); }

ORBENCH_SHAPE_OPS(octets, Octets, octets)
ORBENCH_SHAPE_OPS(records, Records, records)
ORBENCH_SHAPE_OPS(longs, Longs, longs)
ORBENCH_SHAPE_OPS(doubles, Doubles, doubles)
ORBENCH_SHAPE_OPS(strings, Strings, strings)
#undef ORBENCH_SHAPE_OPS

void BenchServant::send_wstrings(const orbench::WStrings& data) { count(counted_bytes(data)); }
orbench::WStrings* BenchServant::echo_wstrings(const orbench::WStrings& data) {
  count(counted_bytes(data));
  return new orbench::WStrings(data);
}
char* BenchServant::dsi_reference() { return directory_.dsi_string(); }

}  // namespace orbench
