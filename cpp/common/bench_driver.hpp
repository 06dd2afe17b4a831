// What a client worker's transport (an ORB stub, a socket) must offer to run the `run` sequence of PROTOCOL.md.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "allocation_counter.hpp"
#include "call_pool.hpp"
#include "clock.hpp"
#include "load_spec.hpp"
#include "pacing.hpp"
#include "run_spec.hpp"
#include "worker_error.hpp"

namespace orbench {

struct Counts {
  uint64_t messages = 0;
  uint64_t bytes = 0;
};

struct SyncOutcome {
  bool complete = false;
  Counts received;
};

// First clock read of the first timed call and last clock read of the last one. At a fixed rate, start_ns is
// the first intended send time, and the other fields are filled in (pacing.hpp).
struct TimedSpan {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint64_t deadline_misses = 0;
  int64_t first_send_ns = 0;  // when the first and the last call were really sent
  int64_t last_send_ns = 0;
};

// One implementation per transport. Every method throws WorkerError on failure; none of them is virtual
// inside the timed loop: `timed_calls` runs the whole loop (see timed_loop below).
class BenchDriver {
 public:
  virtual ~BenchDriver() = default;
  // Builds the payload for `spec` (bytes i & 0xff), untimed. Called once per run, before anything is sent.
  virtual void prepare(const RunSpec& spec) = 0;
  virtual void reset_counters() = 0;
  virtual Counts counters() = 0;
  virtual SyncOutcome sync(uint64_t expected, uint32_t timeout_ms) = 0;
  // The IDL's shutdown() (the socket message SHUTDOWN): returns once its reply came; the server then stops.
  virtual void shutdown_server();
  // The timed calls with their samples dropped, unless a driver has a cheaper way.
  virtual void untimed_calls(uint64_t calls) {
    std::vector<int64_t> ignored(calls);
    timed_calls(ignored.data(), calls);
  }
  // One sample per call into samples_ns[0..calls).
  virtual TimedSpan timed_calls(int64_t* samples_ns, uint64_t calls) = 0;

  // Load at scale (PROTOCOL.md), set by every run before prepare(). `threads`: how many threads will share
  // the run's calls through pool_calls (a socket driver opens a connection for each, kept for later runs).
  // `objects`: the calls go to object order[i] of the server's first `objects` (the driver fetches the
  // references it does not hold yet, untimed, and keeps them); 1, with an empty order, is object 0 only.
  // A driver without them refuses more than one (unsupported).
  virtual void use_threads(uint32_t threads);
  virtual void use_objects(uint32_t objects, std::vector<uint32_t> order);
  // Thread `thread` (0 .. threads - 1)'s share of `pool`, run on that thread while the others run theirs.
  virtual ThreadTally pool_calls(uint32_t thread, CallPool& pool);
  // Fields of a run answer at a shape other than `in` (PROTOCOL.md, "Invocation shapes"), e.g. an AMI run's
  // replies; read after the timed calls.
  virtual nlohmann::ordered_json shape_answer() const { return nlohmann::ordered_json::object(); }
};

// The `memory` object of a run answer or a server's stats line (PROTOCOL.md): heap allocations and their bytes.
nlohmann::ordered_json memory_json(const AllocationCounts& allocated);

// Runs the PROTOCOL.md `run` sequence (reset, warm-up, [sync], reset, timed calls, [sync], counters), writes
// the samples file and returns the answer's fields (without "ok" and "id").
nlohmann::ordered_json run_benchmark(BenchDriver& driver, const RunSpec& spec);
// The "received" object of an answer.
nlohmann::ordered_json counts_json(const Counts& counts);

// The outcomes of the barriers before the timed calls (null when there was none): a group's start barrier,
// a single oneway client's warm-up barrier.
struct Prelude {
  nlohmann::ordered_json start_barrier;
  nlohmann::ordered_json warmup_sync;
};

// The part of the run sequence before the timed calls, after prepare(): the resets, the warm-up calls and
// their barrier, or for a group of clients the start barrier. Shared by runs of calls and soaks.
Prelude before_timed_calls(BenchDriver& driver, const RunSpec& spec, const LoadSpec& load);
// The same with the load fields: several clients sharing the server, a fixed rate, threads, objects
// (PROTOCOL.md). More than one thread runs the pool sequence (pool_run.hpp).
nlohmann::ordered_json run_benchmark(BenchDriver& driver, const RunSpec& spec, const LoadSpec& load);

// Tells `driver` the run's threads and objects (the object of every numbered call, from `seed` when random).
void use_scale(BenchDriver& driver, const RunSpec& spec, const LoadSpec& load, uint64_t seed);
// The answer's "objects", "object_order" and, when it drew anything from it, "seed".
void add_scale_fields(nlohmann::ordered_json& answer, const LoadSpec& load, uint64_t seed);

// A call's bookkeeping, run after its second clock read (never between the two reads).
inline void record_paced_call(TimedSpan& span, int64_t* samples_ns, uint64_t i, int64_t intended, int64_t before,
                              int64_t after, int64_t period_ns) {
  samples_ns[i] = after - intended;
  if (i == 0) span.first_send_ns = before;
  span.last_send_ns = before;
  span.end_ns = after;
  // Without a branch: a late call then runs the same instructions as an early one (the counting mode's calls
  // are paced, and a miss rate that load moves would otherwise move their count).
  span.deadline_misses += static_cast<uint64_t>(after - intended > period_ns);
}

inline void record_call(TimedSpan& span, int64_t* samples_ns, uint64_t i, int64_t before, int64_t after) {
  samples_ns[i] = after - before;
  if (i == 0) span.start_ns = before;
  span.end_ns = after;
}

// The paced form of timed_loop (pacing.hpp). Call i waits until its intended send time t_i (arrivals.hpp)
// when it is early and goes at once when it is late; its sample is completion - t_i. A call is a deadline
// miss when its sample is above the mean period (at a fixed rate: it completes after the next call's intended
// send time t_{i+1}): from there on the client can keep the rate only by sending late.
template <typename Call, typename Check>
TimedSpan paced_loop(ArrivalSchedule& schedule, int64_t* samples_ns, uint64_t calls, Call&& call, Check&& check) {
  const auto period_ns = static_cast<int64_t>(schedule.period_ns());
  TimedSpan span;
  span.start_ns = schedule.peek();
  for (uint64_t i = 0; i < calls; ++i) {
    const int64_t intended = schedule.next();
    wait_to_send(intended, period_ns);
    if constexpr (std::is_void_v<decltype(call(i))>) {
      const int64_t before = monotonic_ns();
      call(i);
      const int64_t after = monotonic_ns();
      record_paced_call(span, samples_ns, i, intended, before, after, period_ns);
      check(i);
    } else {
      const int64_t before = monotonic_ns();
      auto result = call(i);
      const int64_t after = monotonic_ns();
      record_paced_call(span, samples_ns, i, intended, before, after, period_ns);
      check(i, result);
    }
  }
  return span;
}

// The timed loop shared by every driver, a template so that the call is inlined between the two clock
// reads. `call(i)` makes call i; `check(i, result)` (or `check(i)` when the call returns nothing) runs
// after the second clock read, so that verifying an echo reply is not part of the sample.
template <typename Call, typename Check>
TimedSpan timed_loop(int64_t* samples_ns, uint64_t calls, Call&& call, Check&& check) {
  if (ArrivalSchedule* schedule = current_schedule()) return paced_loop(*schedule, samples_ns, calls, call, check);
  TimedSpan span;
  for (uint64_t i = 0; i < calls; ++i) {
    if constexpr (std::is_void_v<decltype(call(i))>) {
      const int64_t before = monotonic_ns();
      call(i);
      const int64_t after = monotonic_ns();
      record_call(span, samples_ns, i, before, after);
      check(i);
    } else {
      const int64_t before = monotonic_ns();
      auto result = call(i);
      const int64_t after = monotonic_ns();
      record_call(span, samples_ns, i, before, after);
      check(i, result);
    }
  }
  return span;
}

// The mode switch of every driver, so that each middleware's timed calls run through this one function.
// `calls` offers oneway(), twoway() and echo(), each returning the call closure for timed_loop (made once per
// run, outside timing; echo's returns the reply), and same(reply), the echo check.
template <typename Calls>
TimedSpan mode_loop(Mode mode, int64_t* samples_ns, uint64_t calls, Calls& make) {
  switch (mode) {
    case Mode::oneway: return timed_loop(samples_ns, calls, make.oneway(), [](uint64_t) {});
    case Mode::twoway: return timed_loop(samples_ns, calls, make.twoway(), [](uint64_t) {});
    case Mode::echo:
      return timed_loop(samples_ns, calls, make.echo(), [&](uint64_t i, const auto& reply) {
        if (!make.same(reply)) {
          throw WorkerError(ErrorKind::remote, "echo reply of call " + std::to_string(i) + " differs from the request");
        }
      });
  }
  return {};
}

}  // namespace orbench
