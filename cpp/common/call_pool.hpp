// A run's calls on several threads of one client process (PROTOCOL.md, "Load at scale"): one pool of numbered
// calls that free threads claim, one schedule of intended send times for the whole process when paced, and
// each thread's tally. The loops are templates, as timed_loop is, so that the call is inlined between the
// two clock reads; claiming a number and waiting for its send time happen before the first read.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "clock.hpp"
#include "pacing.hpp"
#include "run_spec.hpp"
#include "worker_error.hpp"

namespace orbench {

struct CallPool {
  uint64_t total = 0;            // calls 0 .. total - 1
  int64_t* samples_ns = nullptr;  // sample i of call i
  // Paced: call i is due at t0_ns + due_offset_ns[i]; null for a closed loop.
  const int64_t* due_offset_ns = nullptr;
  int64_t t0_ns = 0;
  int64_t period_ns = 0;  // paced: a sample above it is a deadline miss
  std::atomic<uint64_t> next{0};

  // The next call number; total or more when the pool is empty.
  uint64_t claim() { return next.fetch_add(1, std::memory_order_relaxed); }
  // After a failure: every thread stops at its next claim.
  void drain() { next.store(total); }
};

// What one thread did in a pool run. The send and completion times are this process's CLOCK_MONOTONIC.
struct ThreadTally {
  uint64_t calls = 0;
  int64_t first_before_ns = std::numeric_limits<int64_t>::max();  // the earliest clock read before a call
  int64_t last_before_ns = std::numeric_limits<int64_t>::min();   // the latest one before a call
  int64_t last_after_ns = std::numeric_limits<int64_t>::min();    // the latest one after a call
  uint64_t deadline_misses = 0;
};

// A call's bookkeeping, after its second clock read.
inline void record_pool_call(ThreadTally& tally, int64_t* samples_ns, uint64_t i, int64_t start, int64_t before,
                             int64_t after) {
  samples_ns[i] = after - start;
  ++tally.calls;
  if (before < tally.first_before_ns) tally.first_before_ns = before;
  tally.last_before_ns = before;
  tally.last_after_ns = after;
}

// This thread's share of the pool: it claims a number, (paced) waits for that call's send time, makes the call,
// and claims again until the pool is empty. Closed loop: sample = completion - start; paced: completion - t_i.
template <typename Call, typename Check>
ThreadTally pool_loop(CallPool& pool, Call&& call, Check&& check) {
  ThreadTally tally;
  for (uint64_t i = pool.claim(); i < pool.total; i = pool.claim()) {
    int64_t intended = 0;
    if (pool.due_offset_ns != nullptr) {
      intended = pool.t0_ns + pool.due_offset_ns[i];
      wait_to_send(intended, pool.period_ns);
    }
    if constexpr (std::is_void_v<decltype(call(i))>) {
      const int64_t before = monotonic_ns();
      call(i);
      const int64_t after = monotonic_ns();
      record_pool_call(tally, pool.samples_ns, i, pool.due_offset_ns != nullptr ? intended : before, before, after);
      check(i);
    } else {
      const int64_t before = monotonic_ns();
      auto result = call(i);
      const int64_t after = monotonic_ns();
      record_pool_call(tally, pool.samples_ns, i, pool.due_offset_ns != nullptr ? intended : before, before, after);
      check(i, result);
    }
    if (pool.due_offset_ns != nullptr && pool.samples_ns[i] > pool.period_ns) ++tally.deadline_misses;
  }
  return tally;
}

// The mode switch of mode_loop (bench_driver.hpp) for a pool; `make` is this thread's own.
template <typename Calls>
ThreadTally mode_pool_loop(Mode mode, CallPool& pool, Calls& make) {
  switch (mode) {
    case Mode::oneway: return pool_loop(pool, make.oneway(), [](uint64_t) {});
    case Mode::twoway: return pool_loop(pool, make.twoway(), [](uint64_t) {});
    case Mode::echo:
      return pool_loop(pool, make.echo(), [&](uint64_t i, const auto& reply) {
        if (!make.same(reply)) {
          throw WorkerError(ErrorKind::remote, "echo reply of call " + std::to_string(i) + " differs from the request");
        }
      });
  }
  return {};
}

}  // namespace orbench
