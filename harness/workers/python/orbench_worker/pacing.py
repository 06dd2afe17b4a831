"""Paced timed calls (PROTOCOL.md, "Load" and "Arrivals"): intended send times, evenly spaced or Poisson from
SplitMix64, and the sleep-then-spin wait before each call."""

from __future__ import annotations

import math
import os
import threading
import time

MASK64 = 2**64 - 1
# Sleep until this long before the deadline, then spin: a sleeping thread wakes late on a loaded VM, and a
# thread spinning through the whole period would take the CPU from a server sharing the core.
SPIN_NS = 50_000
# The counting mode sets ORBENCH_PACING_SPIN_NS=0: a spin's turns depend on when the sleep ended, so they would put
# a varying number of instructions in every counted call; a pure sleep costs the same each time.
if (_spin := os.environ.get("ORBENCH_PACING_SPIN_NS", "")).isdigit():
    SPIN_NS = int(_spin)
# The counting mode sets ORBENCH_PACING_MIN_SLEEP_NS (half the target's period): a late call then still sleeps that
# long, so a server sharing the client's CPU reads the call before it first (sent at once, a late oneway landed with
# the one before it in one read).
MIN_SLEEP_NS = int(_least) if (_least := os.environ.get("ORBENCH_PACING_MIN_SLEEP_NS", "")).isdigit() else 0


class SplitMix64:
    """Steele, Lea and Flood's generator: one seed gives the same send times in every language."""

    def __init__(self, seed: int):
        self.state = seed & MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def next_unit(self) -> float:
        """The top 53 bits times 2^-53: in [0, 1)."""
        return (self.next() >> 11) * 2.0**-53


class ArrivalSchedule:
    """t_0 is the first clock read (or start_at); fixed: t_i = t_0 + i / rate; poisson: exponential gaps."""

    def __init__(self, rate_hz: float, arrivals: str, seed: int):
        self.period_ns = 1e9 / rate_hz
        self.poisson = arrivals == "poisson"
        self.random = SplitMix64(seed)
        self.t0: int | None = None
        self.index = 0
        self.offset_ns = 0.0

    def start_at(self, t0_ns: int) -> None:
        self.t0 = t0_ns

    def peek(self) -> int:
        if self.t0 is None:
            self.t0 = time.monotonic_ns()
        if self.poisson:
            return self.t0 + int(self.offset_ns)
        return self.t0 + int(self.index * self.period_ns)

    def next(self) -> int:
        due = self.peek()
        if self.poisson:
            self.offset_ns += -math.log1p(-self.random.next_unit()) * self.period_ns
        else:
            self.index += 1
        return due


# Linux lets a sleep end up to the thread's timer slack late (50 us by default), so it would end after the
# deadline rather than SPIN_NS before it (a 200 us absolute sleep woke 68-76 us late at the default slack on a
# 2-vCPU VM, 7-13 us at 1 ns). Each pacing thread sets its own slack to 1 ns, once; elsewhere nothing happens.
_precise = threading.local()


def thread_slack_path() -> str:
    """The calling thread's timer slack (Linux: /proc/TID/timerslack_ns, writable by the thread itself)."""
    return f"/proc/{threading.get_native_id()}/timerslack_ns"


def precise_timer_slack() -> bool:
    try:
        with open(thread_slack_path(), "w") as f:
            f.write("1")
        return True
    except OSError:
        return False


# The most of the CPUs this process may run on that the spins may take: a spin before every call costs the call
# rate times the spin, which at a high rate would make the client what is measured (cpp/common/pacing.hpp).
SPIN_CPU_SHARE = 0.25


def spin_for_period(period_ns: float) -> int:
    """The spin before a paced call when calls are due every period_ns on average: SPIN_NS, or less where that
    would take more than SPIN_CPU_SHARE of the process's CPUs."""
    return max(0, min(SPIN_NS, int(SPIN_CPU_SHARE * len(os.sched_getaffinity(0)) * period_ns)))


def wait_until(deadline_ns: int, least_ns: int | None = None, spin_ns: int | None = None) -> None:
    """Waits until deadline_ns, spinning the last spin_ns (default SPIN_NS), and at least least_ns (default
    MIN_SLEEP_NS) from now when that is above 0."""
    if not hasattr(_precise, "set"):
        _precise.set = precise_timer_slack()
    least = MIN_SLEEP_NS if least_ns is None else least_ns
    spin = SPIN_NS if spin_ns is None else spin_ns
    if least > 0:
        deadline_ns = max(deadline_ns, time.monotonic_ns() + least)
    left = deadline_ns - time.monotonic_ns()
    if spin == 0:  # every call sleeps, a late one too: one that skipped its sleep would run fewer instructions
        time.sleep(max(left, 0) / 1e9)
    elif left > spin:
        time.sleep((left - spin) / 1e9)
    while time.monotonic_ns() < deadline_ns:
        pass
