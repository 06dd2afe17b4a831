// The load fields of a `run` command (PROTOCOL.md, "Load: several clients, a fixed rate"): how many clients
// share the server's counters, and the rate the timed calls are sent at. Kept apart from RunSpec so that the
// payload and mode fields and these evolve separately.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

namespace orbench {

struct LoadSpec {
  // 0: closed loop (each call as soon as the previous one returns); else calls per second, each timed from its
  // intended send time.
  double rate_hz = 0;
  // Clients of this run's group that share one server; above 1 the run sequence never resets the server's
  // counters and its barriers wait for the group's sums.
  uint64_t clients = 1;

  bool shared() const { return clients > 1; }
};

// Validates and removes "rate_hz" and "clients" from `command` (so parse_run_spec sees only its own fields).
// Throws WorkerError(usage) naming the field.
LoadSpec take_load_spec(nlohmann::json& command);

// The highest rate accepted: one call per microsecond is beyond any call these workers make.
inline constexpr double kMaxRateHz = 1e6;

}  // namespace orbench
