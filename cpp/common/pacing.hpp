// The fixed-rate timed loop (PROTOCOL.md, "Load"): call i has an intended send time t_i = t_0 + i / rate, its
// sample is its completion minus t_i (not minus when it was really sent), so a stall shows in the samples of
// every call that should have gone out during it: no coordinated omission.
#pragma once

#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

#include "arrivals.hpp"
#include "clock.hpp"

namespace orbench {

namespace pacing_detail {
// The schedule of the timed loop that is running on this thread, none for a closed loop. Set only around the
// timed calls by PacingScope, so warm-up calls (which go through the same loop) run closed.
inline thread_local ArrivalSchedule* schedule = nullptr;
}  // namespace pacing_detail

inline ArrivalSchedule* current_schedule() { return pacing_detail::schedule; }

// Paces the timed loops of this thread while it lives: by a schedule of its own (a rate, evenly spaced; 0 is
// a closed loop), or by one the caller keeps across several loops (a soak run's chunks).
class PacingScope {
 public:
  explicit PacingScope(double rate_hz) {
    if (rate_hz > 0) {
      own_ = new ArrivalSchedule(rate_hz, Arrivals::fixed, 0);
      pacing_detail::schedule = own_;
    }
  }
  explicit PacingScope(ArrivalSchedule* schedule) { pacing_detail::schedule = schedule; }
  ~PacingScope() {
    pacing_detail::schedule = nullptr;
    delete own_;
  }
  PacingScope(const PacingScope&) = delete;
  PacingScope& operator=(const PacingScope&) = delete;

 private:
  ArrivalSchedule* own_ = nullptr;
};

// Sleep-then-spin: sleep (absolute clock_nanosleep) until kSpinNs before the deadline, then spin on the clock.
// The sleep, because spinning through a whole period would take the CPU from the server, which shares it in
// the same-core placement, and from the other clients; the short spin, because a sleeping thread wakes tens
// of microseconds late on a loaded VM and that delay would sit before the send.
inline constexpr int64_t kSpinNs = 50'000;

// The counting mode sets ORBENCH_PACING_SPIN_NS=0: a spin's turns depend on when the sleep ended, so they
// would put a varying number of instructions in every counted call; a pure sleep costs the same each time.
inline int64_t spin_ns() {
  static const int64_t spin = [] {
    const char* value = std::getenv("ORBENCH_PACING_SPIN_NS");
    return value != nullptr && *value != '\0' ? std::strtoll(value, nullptr, 10) : kSpinNs;
  }();
  return spin;
}

// The counting mode sets ORBENCH_PACING_MIN_SLEEP_NS (half the target's period): a late call then still sleeps
// that long, so a server sharing the client's CPU reads the call before it first; sent at once, a late oneway
// landed with the one before it in one read, one recv fewer (c-socket's server under callgrind, 2-vCPU VM).
inline int64_t min_sleep_ns() {
  static const int64_t least = [] {
    const char* value = std::getenv("ORBENCH_PACING_MIN_SLEEP_NS");
    return value != nullptr && *value != '\0' ? std::strtoll(value, nullptr, 10) : 0;
  }();
  return least;
}

// Linux lets a sleep end up to the thread's timer slack late (50 us by default), so the sleep would end after
// the deadline rather than kSpinNs before it: on a 2-vCPU VM a 200 us absolute sleep woke 68-76 us late (p50)
// at the default slack and 7-13 us late at 1 ns. Each pacing thread sets its own (threads inherit their creator's).
inline bool precise_timer_slack() { return prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) == 0; }

// Waits until deadline_ns, spinning the last `spin` ns, and when least_ns > 0 at least that long from now (a
// late call too).
inline void wait_until(int64_t deadline_ns, int64_t least_ns, int64_t spin) {
  static thread_local const bool precise = precise_timer_slack();
  (void)precise;
  if (least_ns > 0) deadline_ns = std::max(deadline_ns, monotonic_ns() + least_ns);
  // Without a spin every call sleeps, a late one too (an absolute sleep into the past returns at once): a late
  // call that skipped its sleep would run fewer instructions than the others.
  if (spin == 0 || deadline_ns - monotonic_ns() > spin) {
    const int64_t wake = deadline_ns - spin;
    timespec ts{static_cast<time_t>(wake / 1'000'000'000), static_cast<long>(wake % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
    }
  }
  while (monotonic_ns() < deadline_ns) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();  // tells the core (and a hyperthread sibling) that this is a spin
#endif
  }
}

inline void wait_until(int64_t deadline_ns, int64_t least_ns) { wait_until(deadline_ns, least_ns, spin_ns()); }
inline void wait_until(int64_t deadline_ns) { wait_until(deadline_ns, min_sleep_ns(), spin_ns()); }

// The most of the CPUs this process may run on that the spins may take. A spin of kSpinNs before every call
// costs the call rate times kSpinNs: 16 client threads on one vCPU offering a third of a 64k calls/s server's
// capacity spun the whole CPU, so the clients set the latency, not the server (scale run 20261202-170539-vm:
// clients' CPU 0.97 from 35% of c-socket's capacity, its p50 233 us there and 179 us at 50%). A quarter is a
// choice, not tuned: one run with it, 20261202-174251-vm, read the clients' CPU 0.93 there and no curve falling.
inline constexpr double kSpinCpuShare = 0.25;

inline int usable_cpus() {
  static const int cpus = [] {
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? std::max(1, CPU_COUNT(&set)) : 1;
  }();
  return cpus;
}

// The spin before a paced call when the process's calls are due every period_ns on average (all its threads
// together): kSpinNs, or less where that would take more than kSpinCpuShare of its CPUs.
inline int64_t paced_spin_ns(int64_t period_ns) {
  const auto ceiling = static_cast<int64_t>(kSpinCpuShare * usable_cpus() * static_cast<double>(period_ns));
  return std::min(spin_ns(), std::max<int64_t>(0, ceiling));
}

// A paced call's wait for its intended send time, its calls due every period_ns on average.
inline void wait_to_send(int64_t deadline_ns, int64_t period_ns) {
  wait_until(deadline_ns, min_sleep_ns(), paced_spin_ns(period_ns));
}

}  // namespace orbench
