#include "bench_driver.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

#include "allocation_counter.hpp"
#include "object_order.hpp"
#include "pool_run.hpp"
#include "samples_file.hpp"

namespace orbench {

nlohmann::ordered_json counts_json(const Counts& counts) {
  return {{"messages", counts.messages}, {"bytes", counts.bytes}};
}

void BenchDriver::shutdown_server() {
  throw WorkerError(ErrorKind::unsupported, "this client cannot ask its server to shut down");
}

void BenchDriver::use_threads(uint32_t threads) {
  if (threads > 1) throw WorkerError(ErrorKind::unsupported, "field \"threads\": this client calls on one thread only");
}

void BenchDriver::use_objects(uint32_t objects, std::vector<uint32_t>) {
  if (objects > 1) throw WorkerError(ErrorKind::unsupported, "field \"objects\": this client has no objects to call");
}

ThreadTally BenchDriver::pool_calls(uint32_t, CallPool&) {
  throw WorkerError(ErrorKind::internal, "pool_calls of a client without threads");
}

void use_scale(BenchDriver& driver, const RunSpec& spec, const LoadSpec& load, uint64_t seed) {
  driver.use_threads(load.threads);
  std::vector<uint32_t> order;
  if (load.objects > 1) {
    // Warm-up call i goes to the object of timed call i: one order serves both.
    const uint64_t numbered = uint64_t{load.threads} * std::max(spec.warmup, spec.calls);
    order = object_order(load.object_order, load.objects, numbered, seed);
  }
  driver.use_objects(load.objects, std::move(order));
}

void add_scale_fields(nlohmann::ordered_json& answer, const LoadSpec& load, uint64_t seed) {
  if (load.objects > 1) {
    answer["objects"] = load.objects;
    answer["object_order"] = object_order_name(load.object_order);
  }
  if (load.arrivals == Arrivals::poisson || (load.objects > 1 && load.object_order == ObjectOrder::random)) {
    answer["seed"] = seed;
  }
}

nlohmann::ordered_json memory_json(const AllocationCounts& allocated) {
  return {{"allocations", allocated.allocations}, {"allocated_bytes", allocated.bytes}};
}

Prelude before_timed_calls(BenchDriver& driver, const RunSpec& spec, const LoadSpec& load) {
  const bool oneway = spec.mode == Mode::oneway;
  // Several clients share the server's counters: the harness reset them once before it sent `run` to all of
  // them, and no client resets them again (it would wipe the others' counts). The barriers wait for the sums.
  const bool shared = load.shared();
  if (!shared) driver.reset_counters();
  nlohmann::ordered_json start_json;
  nlohmann::ordered_json warmup_sync_json;
  if (spec.warmup > 0) {
    driver.untimed_calls(spec.warmup);
    // Oneway warm-up calls may still be queued at the server; without this barrier they would be counted
    // after the next reset. One that times out is in the answer (warmup_sync): late warm-up messages would
    // then be counted as timed ones and could satisfy the closing barrier early, hiding loss.
    if (oneway && !shared) {
      const int64_t wait_start = monotonic_ns();
      const SyncOutcome outcome = driver.sync(spec.warmup, spec.sync_timeout_ms);
      warmup_sync_json = {{"complete", outcome.complete}, {"wait_ns", monotonic_ns() - wait_start}};
      if (!outcome.complete) {
        std::fprintf(stderr, "orbench: warm-up sync incomplete: %llu of %llu messages\n",
                     static_cast<unsigned long long>(outcome.received.messages),
                     static_cast<unsigned long long>(spec.warmup));
      }
    }
  }
  if (shared) {
    // The start barrier: every client of the group has made its warm-up calls (and the server has counted
    // them), so the timed calls of all clients overlap. In every mode, since every mode's calls are counted.
    const int64_t wait_start = monotonic_ns();
    const SyncOutcome outcome = driver.sync(load.clients * spec.warmup, spec.sync_timeout_ms);
    start_json = nlohmann::ordered_json{{"complete", outcome.complete}, {"wait_ns", monotonic_ns() - wait_start}};
    if (!outcome.complete) {
      std::fprintf(stderr, "orbench: start barrier incomplete: %llu of %llu warm-up messages\n",
                   static_cast<unsigned long long>(outcome.received.messages),
                   static_cast<unsigned long long>(load.clients * spec.warmup));
    }
  } else {
    driver.reset_counters();
  }
  return {start_json, warmup_sync_json};
}

nlohmann::ordered_json run_benchmark(BenchDriver& driver, const RunSpec& spec) {
  return run_benchmark(driver, spec, LoadSpec{});
}

nlohmann::ordered_json run_benchmark(BenchDriver& driver, const RunSpec& spec, const LoadSpec& load) {
  const uint64_t seed = effective_seed(load);
  use_scale(driver, spec, load, seed);
  if (load.threads > 1) return run_pool_benchmark(driver, spec, load, seed);
  const bool oneway = spec.mode == Mode::oneway;
  const bool shared = load.shared();
  driver.prepare(spec);
  // Allocated and touched (zeroed) before timing, so no page fault lands inside a sample.
  std::vector<int64_t> samples_ns(spec.calls);

  const Prelude prelude = before_timed_calls(driver, spec, load);
  const nlohmann::ordered_json& start_json = prelude.start_barrier;
  const nlohmann::ordered_json& warmup_sync_json = prelude.warmup_sync;

  TimedSpan span;
  AllocationCounts allocated;
  {
    std::optional<ArrivalSchedule> schedule;
    if (load.rate_hz > 0) schedule.emplace(load.rate_hz, load.arrivals, seed);
    PacingScope pacing(schedule ? &*schedule : nullptr);
    const AllocationCounts before = process_allocations();
    span = driver.timed_calls(samples_ns.data(), spec.calls);
    allocated = process_allocations() - before;
  }
  int64_t end_ns = span.end_ns;

  nlohmann::ordered_json sync_json;
  if (oneway || shared) {
    // Shared: the closing barrier waits for every message of every client (warm-up included), so each
    // client's `received` is the group's total and loss is the group's.
    const uint64_t expected = shared ? load.clients * (spec.warmup + spec.calls) : spec.calls;
    const int64_t sync_start = monotonic_ns();
    const SyncOutcome outcome = driver.sync(expected, spec.sync_timeout_ms);
    const int64_t sync_end = monotonic_ns();
    if (oneway) end_ns = sync_end;
    sync_json = {{"complete", outcome.complete}, {"wait_ns", sync_end - sync_start}};
  }
  const Counts received = driver.counters();

  write_samples_file(spec.samples_file, samples_ns);

  nlohmann::ordered_json answer = {{"calls", spec.calls},
                                   {"elapsed_ns", end_ns - span.start_ns},
                                   {"received", counts_json(received)}};
  if (oneway || shared) answer["sync"] = sync_json;
  if (!warmup_sync_json.is_null()) answer["warmup_sync"] = warmup_sync_json;
  if (counting_allocations()) answer["memory"] = memory_json(allocated);
  if (shared) {
    answer["clients"] = load.clients;
    answer["start_barrier"] = start_json;
    // This process's CLOCK_MONOTONIC, the same clock in every process of the host: the harness takes the
    // group's span from the earliest start to the latest end.
    answer["start_ns"] = span.start_ns;
    answer["end_ns"] = end_ns;
  }
  if (load.rate_hz > 0) {
    answer["rate_hz"] = load.rate_hz;
    answer["arrivals"] = arrivals_name(load.arrivals);
    answer["deadline_misses"] = span.deadline_misses;
    const int64_t sending = span.last_send_ns - span.first_send_ns;
    if (spec.calls > 1 && sending > 0) {
      answer["achieved_rate_hz"] = static_cast<double>(spec.calls - 1) * 1e9 / static_cast<double>(sending);
    } else {
      answer["achieved_rate_hz"] = nullptr;
    }
  }
  add_scale_fields(answer, load, seed);
  if (!spec.shape.is_in()) {
    answer["shape"] = spec.shape.name();
    const nlohmann::ordered_json fields = driver.shape_answer();
    for (const auto& [key, value] : fields.items()) answer[key] = value;
  }
  return answer;
}

}  // namespace orbench
