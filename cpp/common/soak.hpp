// A soak run (PROTOCOL.md, "Soak runs"): timed calls for a duration instead of a count, aggregated into one
// fixed-size histogram per interval, each interval sent out as an event line the moment it closes. Nothing
// grows with the duration, so the worker's memory stays flat over hours.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include <nlohmann/json.hpp>

#include "bench_driver.hpp"
#include "histogram.hpp"

namespace orbench {

struct SoakSpec {
  int64_t duration_ns = 0;
  int64_t interval_ns = 1'000'000'000;
};

// The longest soak accepted (30 days) and the shortest interval (1 ms).
inline constexpr double kMaxSoakSeconds = 30.0 * 24 * 3600;
inline constexpr double kMinIntervalSeconds = 0.001;

// Validates and removes "duration_s" and "interval_s" from `command`; none when "duration_s" is absent (a run
// of `calls`). Throws WorkerError(usage) naming the field.
std::optional<SoakSpec> take_soak_spec(nlohmann::json& command);

// Where interval events go: the protocol channel in a worker, a list in a test.
using EventSink = std::function<void(nlohmann::ordered_json)>;

// p50/p99/p99.9, min, max and calls of `histogram` as answer fields (the names of PROTOCOL.md).
void add_histogram_stats(nlohmann::ordered_json& out, const LatencyHistogram& histogram);
// Its non-empty buckets as [[index, count], ...].
nlohmann::ordered_json sparse_buckets(const LatencyHistogram& histogram);

// Runs the soak sequence (the run sequence with a duration; PROTOCOL.md) and returns the answer's fields.
// Every interval goes to `emit` as it closes, before this returns.
nlohmann::ordered_json run_soak(BenchDriver& driver, const RunSpec& spec, const LoadSpec& load, const SoakSpec& soak,
                                const EventSink& emit);

}  // namespace orbench
