// The one clock of the C and C++ workers (PROTOCOL.md: clock_gettime(CLOCK_MONOTONIC)), and its own cost.
#pragma once

#include <cstdint>
#include <ctime>

namespace orbench {

// Inline: this sits right around the timed call, so it must not add a call through the PLT.
inline int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// The known-answer servers' extra work per call (--delay-ns, PROTOCOL.md): spin on this clock until `deadline`.
// Real CPU work on the server's core, not a sleep, so it costs what an ORB's own work would.
inline void spin_until_ns(int64_t deadline) {
  while (monotonic_ns() < deadline) {
  }
}

inline constexpr const char* kClockName = "clock_gettime(CLOCK_MONOTONIC)";

// Mean cost of one clock read, from `reads` back-to-back reads; reported by `hello` as timer.cost_ns.
double timer_cost_ns(int reads = 1'000'000);

// The reads `hello` measures the timer's cost over: 1,000,000, or the environment's ORBENCH_TIMER_READS (1 or
// more; the counting mode sets it low: under callgrind a million reads take seconds and mean nothing).
int timer_reads();

}  // namespace orbench
