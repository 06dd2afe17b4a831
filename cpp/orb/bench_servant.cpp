#include "bench_servant.hpp"

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

}  // namespace orbench
