#include "bench_servant.hpp"

namespace orbench {

namespace {
orbench::Counters to_idl(const Counts& counts) {
  orbench::Counters result;
  result.messages = counts.messages;
  result.bytes = counts.bytes;
  return result;
}
}  // namespace

void BenchServant::push(const orbench::Octets& data) { counter_.count(data.length()); }

void BenchServant::push_records(const orbench::Records& data) { counter_.count(data.length() * kRecordBytes); }

void BenchServant::send(const orbench::Octets& data) { counter_.count(data.length()); }

void BenchServant::send_records(const orbench::Records& data) { counter_.count(data.length() * kRecordBytes); }

orbench::Octets* BenchServant::echo_octets(const orbench::Octets& data) {
  counter_.count(data.length());
  return new orbench::Octets(data);
}

orbench::Records* BenchServant::echo_records(const orbench::Records& data) {
  counter_.count(data.length() * kRecordBytes);
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

// Only initiates the stop (ORB::shutdown(false) through request_stop_): this upcall still returns and its
// reply goes out before main's ORB::destroy() waits for all upcalls to finish.
void BenchServant::shutdown() { request_stop_(); }

}  // namespace orbench
