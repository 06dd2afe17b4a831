#include "bench_client.hpp"

#include <cstring>
#include <memory>

#include "connect_options.hpp"
#include "corba_errors.hpp"
#include "orb_args.hpp"
#include "payload_values.hpp"

namespace orbench {

nlohmann::ordered_json OrbBenchClient::worker_info() const {
  return {{"role", "client"},
          {"target", orb_port::target_name()},
          {"language", "c++"},
          {"orb", orb_port::orb_name()},
          {"orb_version", orb_port::orb_version()},
          {"runtime", cxx_runtime_description()}};
}

void OrbBenchClient::release() {
  bench_ = orbench::Bench::_nil();
  for (auto& orb : option_orbs_) {
    try {
      orb->destroy();
    } catch (const CORBA::Exception&) {
      // Already gone: nothing to release.
    }
  }
  option_orbs_.clear();
}

void OrbBenchClient::connect(const std::string& endpoint, const nlohmann::json& options) {
  const ConnectOptions parsed = parse_connect_options(options);
  // ORB-wide settings (TCP_NODELAY, socket buffers) exist only as ORB_init arguments: an ORB of their own,
  // under its own ORB id, when they differ from the current one's. Throws `unsupported` for what this ORB
  // cannot set.
  const std::vector<std::string> option_args = orb_port::client_option_args(parsed);
  bench_ = orbench::Bench::_nil();
  if (option_args != option_orb_args_) {
    if (option_args.empty()) {
      orb_ = CORBA::ORB::_duplicate(base_orb_.in());
    } else {
      std::vector<std::string> args = orb_args_;
      args.insert(args.end(), option_args.begin(), option_args.end());
      OrbArgs argv(args);
      const std::string orb_id = "orbench-options-" + std::to_string(option_orbs_.size() + 1);
      CORBA::ORB_var orb = with_corba_errors("connect", [&] { return CORBA::ORB_init(argv.argc(), argv.argv(), orb_id.c_str()); });
      option_orbs_.push_back(CORBA::ORB::_duplicate(orb.in()));
      orb_ = orb._retn();
    }
    option_orb_args_ = option_args;
  }
  CORBA::Object_var object;
  try {
    object = orb_->string_to_object(endpoint.c_str());
  } catch (const CORBA::Exception& error) {
    throw WorkerError(ErrorKind::usage, "bad endpoint: " + describe_corba_exception(error));
  }
  // _narrow may call the server (_is_a) when the IOR's type id does not say enough.
  orbench::Bench_var bench = with_corba_errors("connect", [&] { return orbench::Bench::_narrow(object.in()); });
  if (CORBA::is_nil(bench.in())) throw WorkerError(ErrorKind::usage, "endpoint is not an orbench::Bench");
  if (parsed.sync_scope) {
    // A SyncScopePolicy override on this reference only (CORBA Messaging); `unsupported` where the ORB has none.
    bench = orb_port::with_sync_scope(orb_.in(), bench.in(), *parsed.sync_scope);
  }
  with_corba_errors("connect", [&] { bench->reset_counters(); });
  bench_ = bench._retn();
}

BenchDriver& OrbBenchClient::driver() {
  if (CORBA::is_nil(bench_.in())) throw WorkerError(ErrorKind::transport, "not connected");
  return *this;
}

void OrbBenchClient::prepare(const RunSpec& spec) {
  mode_ = spec.mode;
  payload_type_ = spec.payload_type;
  if (spec.payload_type == PayloadType::octets) {
    const auto length = static_cast<CORBA::ULong>(spec.payload_bytes);
    octets_.length(length);
    CORBA::Octet* bytes = octets_.get_buffer();
    for (CORBA::ULong i = 0; i < length; ++i) bytes[i] = payload::octet(i);
    return;
  }
  const auto count = static_cast<CORBA::ULong>(spec.payload_bytes / payload_unit_bytes(spec.payload_type));
  if (spec.payload_type == PayloadType::longs) {
    longs_.length(count);
    for (CORBA::ULong i = 0; i < count; ++i) longs_[i] = payload::long_value(i);
  } else if (spec.payload_type == PayloadType::doubles) {
    doubles_.length(count);
    for (CORBA::ULong i = 0; i < count; ++i) doubles_[i] = payload::double_value(i);
  } else if (spec.payload_type == PayloadType::strings) {
    strings_.length(count);
    for (CORBA::ULong i = 0; i < count; ++i) strings_[i] = CORBA::string_dup(payload::string_value(i).c_str());
  } else {
    records_.length(count);
    for (CORBA::ULong i = 0; i < count; ++i) {
      orbench::Record& record = records_[i];
      record.id = payload::record_id(i);
      record.value = payload::record_value(i);
      record.flags = payload::record_flags(i);
      record.kind = payload::record_kind(i);
      record.level = payload::record_level(i);
    }
  }
}

void OrbBenchClient::reset_counters() {
  with_corba_errors("reset_counters", [&] { bench_->reset_counters(); });
}

Counts OrbBenchClient::counters() {
  const orbench::Counters counts = with_corba_errors("counters", [&] { return bench_->counters(); });
  return {counts.messages, counts.bytes};
}

SyncOutcome OrbBenchClient::sync(uint64_t expected, uint32_t timeout_ms) {
  const orbench::SyncResult result = with_corba_errors("sync", [&] { return bench_->sync(expected, timeout_ms); });
  return {static_cast<bool>(result.complete), {result.received.messages, result.received.bytes}};
}

void OrbBenchClient::untimed_calls(uint64_t calls) {
  std::vector<int64_t> ignored(calls);
  timed_calls(ignored.data(), calls);
}

namespace {

bool same_payload(const orbench::Octets& a, const orbench::Octets& b) {
  return a.length() == b.length() && std::memcmp(a.get_buffer(), b.get_buffer(), a.length()) == 0;
}

bool same_payload(const orbench::Records& a, const orbench::Records& b) {
  if (a.length() != b.length()) return false;
  for (CORBA::ULong i = 0; i < a.length(); ++i) {
    const orbench::Record& x = a[i];
    const orbench::Record& y = b[i];
    if (x.id != y.id || x.value != y.value || x.flags != y.flags || x.kind != y.kind || x.level != y.level) return false;
  }
  return true;
}

bool same_payload(const orbench::Longs& a, const orbench::Longs& b) {
  return a.length() == b.length() && std::memcmp(a.get_buffer(), b.get_buffer(), a.length() * sizeof(CORBA::Long)) == 0;
}

bool same_payload(const orbench::Doubles& a, const orbench::Doubles& b) {
  if (a.length() != b.length()) return false;
  for (CORBA::ULong i = 0; i < a.length(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

bool same_payload(const orbench::Strings& a, const orbench::Strings& b) {
  if (a.length() != b.length()) return false;
  for (CORBA::ULong i = 0; i < a.length(); ++i) {
    if (std::strcmp(a[i].in(), b[i].in()) != 0) return false;
  }
  return true;
}

// The IDL operations per payload type, so that one timed loop serves them all.
void push(orbench::Bench_ptr bench, const orbench::Octets& p) { bench->push(p); }
void push(orbench::Bench_ptr bench, const orbench::Records& p) { bench->push_records(p); }
void send(orbench::Bench_ptr bench, const orbench::Octets& p) { bench->send(p); }
void send(orbench::Bench_ptr bench, const orbench::Records& p) { bench->send_records(p); }
orbench::Octets* echo(orbench::Bench_ptr bench, const orbench::Octets& p) { return bench->echo_octets(p); }
orbench::Records* echo(orbench::Bench_ptr bench, const orbench::Records& p) { return bench->echo_records(p); }
void push(orbench::Bench_ptr bench, const orbench::Longs& p) { bench->push_longs(p); }
void send(orbench::Bench_ptr bench, const orbench::Longs& p) { bench->send_longs(p); }
orbench::Longs* echo(orbench::Bench_ptr bench, const orbench::Longs& p) { return bench->echo_longs(p); }
void push(orbench::Bench_ptr bench, const orbench::Doubles& p) { bench->push_doubles(p); }
void send(orbench::Bench_ptr bench, const orbench::Doubles& p) { bench->send_doubles(p); }
orbench::Doubles* echo(orbench::Bench_ptr bench, const orbench::Doubles& p) { return bench->echo_doubles(p); }
void push(orbench::Bench_ptr bench, const orbench::Strings& p) { bench->push_strings(p); }
void send(orbench::Bench_ptr bench, const orbench::Strings& p) { bench->send_strings(p); }
orbench::Strings* echo(orbench::Bench_ptr bench, const orbench::Strings& p) { return bench->echo_strings(p); }

}  // namespace

template <typename Payload>
TimedSpan OrbBenchClient::timed_calls_with(const Payload& payload, int64_t* samples_ns, uint64_t calls) {
  orbench::Bench_ptr bench = bench_.in();
  return with_corba_errors("run", [&] {
    switch (mode_) {
      case Mode::oneway:
        return timed_loop(samples_ns, calls, [&](uint64_t) { push(bench, payload); }, [](uint64_t) {});
      case Mode::twoway:
        return timed_loop(samples_ns, calls, [&](uint64_t) { send(bench, payload); }, [](uint64_t) {});
      case Mode::echo:
        // The reply is owned (and freed) outside the timed interval, like the check.
        return timed_loop(
            samples_ns, calls, [&](uint64_t) { return std::unique_ptr<Payload>(echo(bench, payload)); },
            [&](uint64_t i, const std::unique_ptr<Payload>& reply) {
              if (!same_payload(*reply, payload)) {
                throw WorkerError(ErrorKind::remote,
                                  "echo reply of call " + std::to_string(i) + " differs from the request");
              }
            });
    }
    return TimedSpan{};
  });
}

TimedSpan OrbBenchClient::timed_calls(int64_t* samples_ns, uint64_t calls) {
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
