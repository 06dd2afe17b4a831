// The load fields of a `run` command (PROTOCOL.md, "Load: several clients, a fixed rate", "Load at scale"): how
// many clients share the server's counters, the rate the timed calls are sent at, how many threads of this
// process make them and to how many objects they go. Kept apart from RunSpec so that the payload and mode
// fields and these evolve separately.
#pragma once

#include <cstdint>
#include <optional>

#include "arrivals.hpp"

#include <nlohmann/json.hpp>

namespace orbench {

// Which object each call goes to (PROTOCOL.md, "Load at scale"): call i to object i mod K, or to the i-th
// SplitMix64 output of the seed mod K.
enum class ObjectOrder { round_robin, random };

const char* object_order_name(ObjectOrder order);

struct LoadSpec {
  // 0: closed loop (each call as soon as the previous one returns); else calls per second, each timed from its
  // intended send time.
  double rate_hz = 0;
  // With a rate: calls evenly spaced, or a Poisson process with this seed (none given: one from the clock).
  Arrivals arrivals = Arrivals::fixed;
  std::optional<uint64_t> seed;
  // Clients of this run's group that share one server; above 1 the run sequence never resets the server's
  // counters and its barriers wait for the group's sums.
  uint64_t clients = 1;
  // Threads of this process that make the run's calls, sharing one pool of numbered calls.
  uint32_t threads = 1;
  // Objects of the server the calls go to (the first `objects`), and in which order.
  uint32_t objects = 1;
  ObjectOrder object_order = ObjectOrder::round_robin;

  bool shared() const { return clients > 1; }
};

// The seed a Poisson run uses: the given one, else one from the clock and the process id.
uint64_t effective_seed(const LoadSpec& load);

// Validates and removes "rate_hz", "clients", "arrivals", "seed", "threads", "objects" and "object_order" from
// `command` (so parse_run_spec sees only its own fields).
// Throws WorkerError(usage) naming the field.
LoadSpec take_load_spec(nlohmann::json& command);

// The highest rate accepted: one call per microsecond is beyond any call these workers make.
inline constexpr double kMaxRateHz = 1e6;
// The most threads and objects a run may ask for (PROTOCOL.md).
inline constexpr uint32_t kMaxThreads = 256;
inline constexpr uint32_t kMaxObjects = 100000;

}  // namespace orbench
