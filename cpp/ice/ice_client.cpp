#include "ice_client.hpp"

#include "connect_options.hpp"
#include "ice_errors.hpp"
#include "payload_values.hpp"

namespace orbench {

namespace {

bool same_records(const orbench::Records& a, const orbench::Records& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const orbench::Record& x = a[i];
    const orbench::Record& y = b[i];
    if (x.id != y.id || x.value != y.value || x.flags != y.flags || x.kind != y.kind || x.level != y.level) return false;
  }
  return true;
}
template <typename Payload>
bool same_payload(const Payload& a, const Payload& b) { return a == b; }
template <>
bool same_payload(const orbench::Records& a, const orbench::Records& b) { return same_records(a, b); }

// The Bench operations per payload type, so that one timed loop serves them all.
using Proxy = orbench::BenchPrx;
void push(Proxy& b, const orbench::Octets& p) { b.push(p); }
void push(Proxy& b, const orbench::Records& p) { b.push_records(p); }
void push(Proxy& b, const orbench::Longs& p) { b.push_longs(p); }
void push(Proxy& b, const orbench::Doubles& p) { b.push_doubles(p); }
void push(Proxy& b, const orbench::Strings& p) { b.push_strings(p); }
void send(Proxy& b, const orbench::Octets& p) { b.send(p); }
void send(Proxy& b, const orbench::Records& p) { b.send_records(p); }
void send(Proxy& b, const orbench::Longs& p) { b.send_longs(p); }
void send(Proxy& b, const orbench::Doubles& p) { b.send_doubles(p); }
void send(Proxy& b, const orbench::Strings& p) { b.send_strings(p); }
orbench::Octets echo(Proxy& b, const orbench::Octets& p) { return b.echo_octets(p); }
orbench::Records echo(Proxy& b, const orbench::Records& p) { return b.echo_records(p); }
orbench::Longs echo(Proxy& b, const orbench::Longs& p) { return b.echo_longs(p); }
orbench::Doubles echo(Proxy& b, const orbench::Doubles& p) { return b.echo_doubles(p); }
orbench::Strings echo(Proxy& b, const orbench::Strings& p) { return b.echo_strings(p); }

}  // namespace

nlohmann::ordered_json IceBenchClient::worker_info() const {
  return {{"role", "client"},        {"target", "ice-cpp"},
          {"language", "c++"},       {"orb", "Ice"},
          {"orb_version", ICE_STRING_VERSION}, {"runtime", cxx_runtime_description()}};
}

void IceBenchClient::connect(const std::string& endpoint, const nlohmann::json& options) {
  refuse_connect_options(parse_connect_options(options), "Ice");
  bench_.reset();
  oneway_.reset();
  std::shared_ptr<Ice::ObjectPrx> base;
  try {
    base = communicator_->stringToProxy(endpoint);
  } catch (const Ice::Exception& error) {
    throw WorkerError(ErrorKind::usage, std::string("bad endpoint: ") + error.what());
  }
  if (!base) throw WorkerError(ErrorKind::usage, "bad endpoint: an empty proxy");
  // No checkedCast (a remote ice_isA): the reset_counters call below is the one call that proves the server.
  std::shared_ptr<orbench::BenchPrx> bench = Ice::uncheckedCast<orbench::BenchPrx>(base);
  with_ice_errors("connect", [&] { bench->reset_counters(); });
  bench_ = bench;
  oneway_ = bench->ice_oneway();
}

BenchDriver& IceBenchClient::driver() {
  if (!bench_) throw WorkerError(ErrorKind::transport, "not connected");
  return *this;
}

void IceBenchClient::prepare(const RunSpec& spec) {
  mode_ = spec.mode;
  payload_type_ = spec.payload_type;
  const uint64_t count = spec.payload_bytes / payload_unit_bytes(spec.payload_type);
  switch (spec.payload_type) {
    case PayloadType::octets:
      octets_.resize(count);
      for (uint64_t i = 0; i < count; ++i) octets_[i] = payload::octet(i);
      break;
    case PayloadType::records:
      records_.resize(count);
      for (uint64_t i = 0; i < count; ++i) {
        records_[i] = {payload::record_id(i), payload::record_value(i), payload::record_flags(i),
                       payload::record_kind(i), payload::record_level(i)};
      }
      break;
    case PayloadType::longs:
      longs_.resize(count);
      for (uint64_t i = 0; i < count; ++i) longs_[i] = payload::long_value(i);
      break;
    case PayloadType::doubles:
      doubles_.resize(count);
      for (uint64_t i = 0; i < count; ++i) doubles_[i] = payload::double_value(i);
      break;
    case PayloadType::strings:
      strings_.resize(count);
      for (uint64_t i = 0; i < count; ++i) strings_[i] = payload::string_value(i);
      break;
  }
}

void IceBenchClient::reset_counters() {
  with_ice_errors("reset_counters", [&] { bench_->reset_counters(); });
}

Counts IceBenchClient::counters() {
  const orbench::Counters counts = with_ice_errors("counters", [&] { return bench_->counters(); });
  return {static_cast<uint64_t>(counts.messages), static_cast<uint64_t>(counts.bytes)};
}

SyncOutcome IceBenchClient::sync(uint64_t expected, uint32_t timeout_ms) {
  const orbench::SyncResult result = with_ice_errors("sync", [&] {
    return bench_->sync(static_cast<long long>(expected), static_cast<long long>(timeout_ms));
  });
  return {result.complete,
          {static_cast<uint64_t>(result.received.messages), static_cast<uint64_t>(result.received.bytes)}};
}

void IceBenchClient::untimed_calls(uint64_t calls) {
  std::vector<int64_t> ignored(calls);
  timed_calls(ignored.data(), calls);
}

template <typename Payload>
TimedSpan IceBenchClient::timed_calls_with(const Payload& payload, int64_t* samples_ns, uint64_t calls) {
  Proxy& twoway = *bench_;
  Proxy& oneway = *oneway_;
  return with_ice_errors("run", [&] {
    switch (mode_) {
      case Mode::oneway:
        return timed_loop(samples_ns, calls, [&](uint64_t) { push(oneway, payload); }, [](uint64_t) {});
      case Mode::twoway:
        return timed_loop(samples_ns, calls, [&](uint64_t) { send(twoway, payload); }, [](uint64_t) {});
      case Mode::echo:
        // The reply is freed after the second clock read, with the check.
        return timed_loop(
            samples_ns, calls, [&](uint64_t) { return echo(twoway, payload); },
            [&](uint64_t i, const Payload& reply) {
              if (!same_payload(reply, payload)) {
                throw WorkerError(ErrorKind::remote,
                                  "echo reply of call " + std::to_string(i) + " differs from the request");
              }
            });
    }
    return TimedSpan{};
  });
}

TimedSpan IceBenchClient::timed_calls(int64_t* samples_ns, uint64_t calls) {
  switch (payload_type_) {
    case PayloadType::octets: return timed_calls_with(octets_, samples_ns, calls);
    case PayloadType::records: return timed_calls_with(records_, samples_ns, calls);
    case PayloadType::longs: return timed_calls_with(longs_, samples_ns, calls);
    case PayloadType::doubles: return timed_calls_with(doubles_, samples_ns, calls);
    case PayloadType::strings: return timed_calls_with(strings_, samples_ns, calls);
  }
  return {};
}

}  // namespace orbench
