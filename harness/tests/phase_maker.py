"""Made phases: a process that slows one CPU in alternating periods, as a small VM's host does.

On a 2-vCPU cloud VM everything runs at one of two speeds that switch every 0.3-0.8 s (a C socket round trip at
1 B: ~14 or ~17 us), the middleware and its baseline alike. The tests need that on any machine, with a known
answer: this process, pinned to the workers' CPU at a real-time priority (SCHED_FIFO, else the highest nice),
alternates a fast period (it sleeps) with a slow one in which it takes `steal_us` of every `every_us`
microseconds from the CPU, as a hypervisor's steal does, so every call made in a slow period takes longer, on
both sides.

    python -m tests.phase_maker CPU [--period-s 0.3] [--steal-us 6] [--every-us 20] [--seconds 60]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import subprocess
import sys
import time
from pathlib import Path

PR_SET_TIMERSLACK = 29
# A slow period takes STEAL_US of every EVERY_US from the CPU: 30%, as a busy host's steal can.
STEAL_US = 6.0
EVERY_US = 20.0


def _precise_sleeps() -> None:
    """Sleeps of microseconds: the default timer slack (50 us) would stretch each one."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)
    except OSError:
        pass


def _realtime() -> str:
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
        return "SCHED_FIFO"
    except (PermissionError, OSError):
        try:
            os.nice(-20)
            return "nice -20"
        except (PermissionError, OSError):
            return "normal"


def run(cpu: int, period_s: float, steal_us: float, every_us: float, seconds: float) -> None:
    os.sched_setaffinity(0, {cpu})
    _precise_sleeps()
    policy = _realtime()
    print(f"phase maker on CPU {cpu} ({policy}): {period_s:g} s periods, slow ones steal {steal_us:g} of every "
          f"{every_us:g} us", flush=True)
    steal, rest = steal_us / 1e6, (every_us - steal_us) / 1e6
    end = time.monotonic() + seconds
    slow = False
    while time.monotonic() < end:
        period_end = min(end, time.monotonic() + period_s)
        if not slow:
            time.sleep(max(0.0, period_end - time.monotonic()))
        else:
            now = time.monotonic()
            while now < period_end:
                spin_end = now + steal
                while time.monotonic() < spin_end:
                    pass
                time.sleep(rest)
                now = time.monotonic()
        slow = not slow


class PhaseMaker:
    """The maker as a child process for the length of a `with` block."""

    def __init__(self, cpu: int, period_s: float = 0.3, steal_us: float = STEAL_US, every_us: float = EVERY_US):
        self.steal_share = steal_us / every_us  # of the CPU, in a slow period
        self.argv = [sys.executable, "-m", "tests.phase_maker", str(cpu), "--period-s", str(period_s),
                     "--steal-us", str(steal_us), "--every-us", str(every_us), "--seconds", "3600"]
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> PhaseMaker:
        self.proc = subprocess.Popen(self.argv, cwd=Path(__file__).resolve().parent.parent, stdout=subprocess.PIPE,
                                     text=True)
        assert self.proc.stdout is not None
        self.started = self.proc.stdout.readline().strip()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cpu", type=int)
    parser.add_argument("--period-s", type=float, default=0.3)
    parser.add_argument("--steal-us", type=float, default=STEAL_US)
    parser.add_argument("--every-us", type=float, default=EVERY_US)
    parser.add_argument("--seconds", type=float, default=60.0)
    a = parser.parse_args()
    run(a.cpu, a.period_s, a.steal_us, a.every_us, a.seconds)


if __name__ == "__main__":
    main()
