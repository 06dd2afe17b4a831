#include "pool_run.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>

#include "arrivals.hpp"
#include "samples_file.hpp"

namespace orbench {

namespace {

// Where the threads of a pool wait until every one of them has started.
class StartGate {
 public:
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    ++arrived_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return open_; });
  }
  // Waits for `threads` arrivals, runs `before_open` under the gate's lock (so the threads see what it wrote),
  // and lets them go.
  template <typename F>
  void open_when(uint32_t threads, F&& before_open) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return arrived_ == threads; });
      before_open();
      open_ = true;
    }
    changed_.notify_all();
  }
  // Lets every thread that started go at once (a thread could not be started).
  void force_open() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  uint32_t arrived_ = 0;
  bool open_ = false;
};

nlohmann::ordered_json barrier_json(const SyncOutcome& outcome, int64_t wait_ns) {
  return {{"complete", outcome.complete}, {"wait_ns", wait_ns}};
}

}  // namespace

std::vector<ThreadTally> run_pool(BenchDriver& driver, CallPool& pool, uint32_t threads) {
  StartGate gate;
  std::vector<ThreadTally> tallies(threads);
  std::mutex failure_mutex;
  std::exception_ptr failure;
  std::vector<std::thread> crew;
  crew.reserve(threads);
  try {
    for (uint32_t k = 0; k < threads; ++k) {
      crew.emplace_back([&, k] {
        gate.arrive_and_wait();
        try {
          tallies[k] = driver.pool_calls(k, pool);
        } catch (...) {
          {
            std::lock_guard<std::mutex> lock(failure_mutex);
            if (!failure) failure = std::current_exception();
          }
          pool.drain();
        }
      });
    }
  } catch (...) {
    pool.drain();
    gate.force_open();
    for (auto& thread : crew) thread.join();
    throw;
  }
  gate.open_when(threads, [&] {
    if (pool.due_offset_ns != nullptr) pool.t0_ns = monotonic_ns() + kPoolStartLeadNs;
  });
  for (auto& thread : crew) thread.join();
  if (failure) std::rethrow_exception(failure);
  return tallies;
}

nlohmann::ordered_json run_pool_benchmark(BenchDriver& driver, const RunSpec& spec, const LoadSpec& load,
                                          uint64_t seed) {
  const uint32_t threads = load.threads;
  const bool oneway = spec.mode == Mode::oneway;
  const bool shared = load.shared();
  driver.prepare(spec);
  // Allocated and touched before timing, as the one-thread run's samples are.
  const uint64_t total = uint64_t{threads} * spec.calls;
  std::vector<int64_t> samples_ns(total);
  // One schedule for the whole process: call i is due at t_0 + due_offset[i] (arrivals.hpp), drawn now.
  std::vector<int64_t> due_offset_ns;
  if (load.rate_hz > 0) {
    due_offset_ns.resize(total);
    ArrivalSchedule schedule(load.rate_hz, load.arrivals, seed);
    schedule.start_at(0);
    for (auto& due : due_offset_ns) due = schedule.next();
  }

  // The sequence of PROTOCOL.md: a process alone resets, warms up, waits for its warm-up calls and resets
  // again; a process of a group never resets, and its barriers wait for the group's sums.
  if (!shared) driver.reset_counters();
  nlohmann::ordered_json warmup_sync_json;
  nlohmann::ordered_json start_json;
  if (spec.warmup > 0) {
    std::vector<int64_t> ignored(uint64_t{threads} * spec.warmup);
    CallPool warmup;
    warmup.total = ignored.size();
    warmup.samples_ns = ignored.data();
    run_pool(driver, warmup, threads);
    if (!shared) {
      const int64_t wait_start = monotonic_ns();
      const SyncOutcome outcome = driver.sync(warmup.total, spec.sync_timeout_ms);
      warmup_sync_json = barrier_json(outcome, monotonic_ns() - wait_start);
      if (!outcome.complete) {
        std::fprintf(stderr, "orbench: warm-up sync incomplete: %llu of %llu messages\n",
                     static_cast<unsigned long long>(outcome.received.messages),
                     static_cast<unsigned long long>(warmup.total));
      }
    }
  }
  if (shared) {
    const uint64_t expected = load.clients * threads * spec.warmup;
    const int64_t wait_start = monotonic_ns();
    const SyncOutcome outcome = driver.sync(expected, spec.sync_timeout_ms);
    start_json = barrier_json(outcome, monotonic_ns() - wait_start);
    if (!outcome.complete) {
      std::fprintf(stderr, "orbench: start barrier incomplete: %llu of %llu warm-up messages\n",
                   static_cast<unsigned long long>(outcome.received.messages),
                   static_cast<unsigned long long>(expected));
    }
  } else {
    driver.reset_counters();
  }

  CallPool pool;
  pool.total = total;
  pool.samples_ns = samples_ns.data();
  if (!due_offset_ns.empty()) {
    pool.due_offset_ns = due_offset_ns.data();
    pool.period_ns = static_cast<int64_t>(1e9 / load.rate_hz);
  }
  const AllocationCounts allocated_before = process_allocations();
  const std::vector<ThreadTally> tallies = run_pool(driver, pool, threads);
  const AllocationCounts allocated = process_allocations() - allocated_before;

  int64_t start_ns = std::numeric_limits<int64_t>::max();
  int64_t end_ns = std::numeric_limits<int64_t>::min();
  int64_t last_send_ns = std::numeric_limits<int64_t>::min();
  uint64_t deadline_misses = 0;
  nlohmann::ordered_json thread_calls = nlohmann::ordered_json::array();
  for (const ThreadTally& tally : tallies) {
    thread_calls.push_back(tally.calls);
    if (tally.calls == 0) continue;
    start_ns = std::min(start_ns, tally.first_before_ns);
    end_ns = std::max(end_ns, tally.last_after_ns);
    last_send_ns = std::max(last_send_ns, tally.last_before_ns);
    deadline_misses += tally.deadline_misses;
  }
  const int64_t first_send_ns = start_ns;
  if (pool.due_offset_ns != nullptr) start_ns = pool.t0_ns;  // paced: elapsed_ns starts at t_0

  // The closing barrier, in every mode: it proves the count (the threads' calls may reach the server's
  // dispatch threads in any order); for a group, the group's.
  const uint64_t expected = shared ? load.clients * threads * (spec.warmup + spec.calls) : total;
  const int64_t sync_start = monotonic_ns();
  const SyncOutcome outcome = driver.sync(expected, spec.sync_timeout_ms);
  const int64_t sync_end = monotonic_ns();
  if (oneway) end_ns = sync_end;
  const Counts received = driver.counters();

  write_samples_file(spec.samples_file, samples_ns);

  nlohmann::ordered_json answer = {{"calls", total},
                                   {"elapsed_ns", end_ns - start_ns},
                                   {"received", counts_json(received)},
                                   {"sync", barrier_json(outcome, sync_end - sync_start)}};
  if (!warmup_sync_json.is_null()) answer["warmup_sync"] = warmup_sync_json;
  if (counting_allocations()) answer["memory"] = memory_json(allocated);
  answer["threads"] = threads;
  answer["thread_calls"] = thread_calls;
  if (shared) {
    answer["clients"] = load.clients;
    answer["start_barrier"] = start_json;
  }
  answer["start_ns"] = start_ns;
  answer["end_ns"] = end_ns;
  if (load.rate_hz > 0) {
    answer["rate_hz"] = load.rate_hz;
    answer["arrivals"] = arrivals_name(load.arrivals);
    answer["deadline_misses"] = deadline_misses;
    const int64_t sending = last_send_ns - first_send_ns;
    if (total > 1 && sending > 0) {
      answer["achieved_rate_hz"] = static_cast<double>(total - 1) * 1e9 / static_cast<double>(sending);
    } else {
      answer["achieved_rate_hz"] = nullptr;
    }
  }
  add_scale_fields(answer, load, seed);
  return answer;
}

}  // namespace orbench
