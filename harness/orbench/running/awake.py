"""Keeping the measured CPUs awake (campaign key `awake_cpus`): one busy loop per CPU a local worker is pinned
to, at the SCHED_IDLE policy, for the whole run.

A guest whose vCPU has nothing to run halts it, and the hypervisor must schedule it again before the next
interrupt is served: on a 2-vCPU KVM guest (no cpuidle driver, so every idle is a halt) a request to a server
idle for 20 ms paid about 200 us more than one in a closed loop, and at half load only the half of the calls
that found the server idle paid it, so the rise of the mean latency with load read 23% under the queue's
Pollaczek-Khinchine wait. A SCHED_IDLE task runs only when nothing else on its CPU can, and any other task
preempts it on waking, so the vCPU never halts and the workers see an idle CPU that is already awake.

The loops are the harness's children (its CPU accounting counts them as its own, not as other work on the
machine), and each asks the kernel to end it when the harness ends, however it ends.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable

# A child that pins itself, takes SCHED_IDLE, dies with its parent (PR_SET_PDEATHSIG = 1, SIGKILL = 9), and spins.
_LOOP = """
import ctypes, os, sys
ctypes.CDLL(None, use_errno=True).prctl(1, 9)
if os.getppid() != int(sys.argv[2]):
    sys.exit(0)
os.sched_setaffinity(0, {int(sys.argv[1])})
os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
print("ready", flush=True)
while True:
    pass
"""

HOW = "a SCHED_IDLE busy loop per CPU, for the whole run"


class AwakeCPUs:
    """The busy loops on `cpus` while it is entered."""

    def __init__(self, cpus: Iterable[int]):
        self.cpus = sorted(set(cpus))
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> AwakeCPUs:
        self.start()
        return self

    def start(self) -> None:
        """One loop per CPU, each running before this returns."""
        try:
            for cpu in self.cpus:
                p = subprocess.Popen([sys.executable, "-c", _LOOP, str(cpu), str(os.getpid())],
                                     stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
                self.procs.append(p)
                assert p.stdout is not None
                if p.stdout.readline().strip() != b"ready":
                    raise OSError(f"the busy loop for CPU {cpu} did not start (exit {p.poll()})")
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()
            if p.stdout is not None:
                p.stdout.close()
        self.procs = []

    def as_dict(self) -> dict:
        return {"cpus": self.cpus, "how": HOW}
