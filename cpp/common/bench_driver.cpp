#include "bench_driver.hpp"

#include <vector>

#include "samples_file.hpp"

namespace orbench {

namespace {
nlohmann::ordered_json counts_json(const Counts& counts) {
  return {{"messages", counts.messages}, {"bytes", counts.bytes}};
}
}  // namespace

nlohmann::ordered_json run_benchmark(BenchDriver& driver, const RunSpec& spec) {
  const bool oneway = spec.mode == Mode::oneway;
  driver.prepare(spec);
  // Allocated and touched (zeroed) before timing, so no page fault lands inside a sample.
  std::vector<int64_t> samples_ns(spec.calls);

  driver.reset_counters();
  if (spec.warmup > 0) {
    driver.untimed_calls(spec.warmup);
    // Oneway warm-up calls may still be queued at the server; without this barrier they would be counted
    // after the next reset.
    if (oneway) driver.sync(spec.warmup, spec.sync_timeout_ms);
  }
  driver.reset_counters();

  const TimedSpan span = driver.timed_calls(samples_ns.data(), spec.calls);
  int64_t end_ns = span.end_ns;

  nlohmann::ordered_json sync_json;
  if (oneway) {
    const int64_t sync_start = monotonic_ns();
    const SyncOutcome outcome = driver.sync(spec.calls, spec.sync_timeout_ms);
    end_ns = monotonic_ns();
    sync_json = {{"complete", outcome.complete}, {"wait_ns", end_ns - sync_start}};
  }
  const Counts received = driver.counters();

  write_samples_file(spec.samples_file, samples_ns);

  nlohmann::ordered_json answer = {{"calls", spec.calls},
                                   {"elapsed_ns", end_ns - span.start_ns},
                                   {"received", counts_json(received)}};
  if (oneway) answer["sync"] = sync_json;
  return answer;
}

}  // namespace orbench
