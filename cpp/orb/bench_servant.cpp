#include "bench_servant.hpp"

#include <cstdlib>

#include "payload_values.hpp"

namespace orbench {

Counters BenchServant::to_idl(const Counts& counts) {
  Counters result;
  result.messages = counts.messages;
  result.bytes = counts.bytes;
  return result;
}

SyncResult BenchServant::sync(CORBA::ULongLong expected, CORBA::ULong timeout_ms) {
  const SyncOutcome outcome = core_.sync(expected, timeout_ms);
  SyncResult result;
  result.complete = outcome.complete;
  result.received = to_idl(outcome.received);
  return result;
}

orbench::Strings* ObjectDirectory::strings(ObjectRange range) const {
  auto* out = new orbench::Strings;
  out->length(range.end - range.begin);
  for (uint32_t k = range.begin; k < range.end; ++k) {
    CORBA::String_var text = orb_->object_to_string(references_.at(k).in());
    (*out)[k - range.begin] = text.in();  // copies the string
  }
  return out;
}

char* ObjectDirectory::dsi_string() const {
  if (CORBA::is_nil(dsi_.in())) return CORBA::string_dup("");
  return orb_->object_to_string(dsi_.in());
}

// The reply of out, return and inout: `count` elements from element 1, built on the first call of a size.
template <PayloadType T, typename Sequence>
const Sequence& BenchServant::reply(CORBA::ULong count) {
  return replies_.get<Sequence>(static_cast<int>(T), count, [count] {
    auto* made = new Sequence;
    made->length(count);
    payload::fill_indexed<T>(*made, count, 1);
    return made;
  });
}

// inout: the argument's elements replaced by the reply's (the fault inout_unchanged leaves them as they came).
template <PayloadType T, typename Sequence>
void BenchServant::inout(Sequence& data) {
  core_.count<T>(data, index_);
  if (injected_fault() == "inout_unchanged") return;
  data = reply<T, Sequence>(data.length());
}

template <PayloadType T, typename Sequence>
void BenchServant::refuse(const Sequence& data) {
  core_.count<T>(data, index_);
  if (injected_fault() == "no_raise") return;
  throw orbench::Refused(data.length());
}

#define ORBENCH_SHAPE_OPS(NAME, SEQ, TYPE)                                                 \
  void BenchServant::out_##NAME(CORBA::ULong n, SEQ##_out data) {                         \
    const SEQ& made = reply<PayloadType::TYPE, SEQ>(n);                                    \
    core_.count<PayloadType::TYPE>(made, index_);                                          \
    data = new SEQ(made);                                                                  \
  }                                                                                        \
  SEQ* BenchServant::return_##NAME(CORBA::ULong n) {                                       \
    const SEQ& made = reply<PayloadType::TYPE, SEQ>(n);                                    \
    core_.count<PayloadType::TYPE>(made, index_);                                          \
    return new SEQ(made);                                                                  \
  }                                                                                        \
  void BenchServant::inout_##NAME(SEQ& data) { inout<PayloadType::TYPE>(data); }          \
  void BenchServant::raise_##NAME(const SEQ& data) { refuse<PayloadType::TYPE>(data); }

ORBENCH_SHAPE_OPS(octets, Octets, octets)
ORBENCH_SHAPE_OPS(records, Records, records)
ORBENCH_SHAPE_OPS(longs, Longs, longs)
ORBENCH_SHAPE_OPS(doubles, Doubles, doubles)
ORBENCH_SHAPE_OPS(strings, Strings, strings)
#undef ORBENCH_SHAPE_OPS

}  // namespace orbench
