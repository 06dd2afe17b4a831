"""A trial's anatomy, read around its `run` command where each worker runs: what measure.py calls.

Before the command: a snapshot of both processes (one script run when both workers share a host, else one per
host) and the server's stats line; after its answer, the same again; then the per-call fields (delta.py). In
the anatomy mode (campaign key `anatomy = "syscalls"`), a traced trial also has strace attached to both workers
for the command (strace.py).

Each reading is followed by SETTLE_S of nothing: reading the workers' /proc entries right before a trial slowed
it. Split-core, c-socket oneway 16 and 128 B against the plain C reference of `orbench fidelity`, trials of
1000 calls: 1.10-1.19 times the reference's p50 with the reading right before each trial, 1.07-1.08 with 5 ms
after it, 0.98-1.02 with 10 or 20 ms, 1.00-1.03 with no reading (a busy loop as long as the reading: 1.02-1.04).
Which of the kernel's paths leaves that state behind was not found; leaving out any one of the files read did
not remove it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from orbench.anatomy.delta import Window, memory_between, trial_fields
from orbench.anatomy.snapshot import HostSnapshot, Shell, take_snapshot
from orbench.anatomy.strace import StraceSession, SyscallCount, syscall_fields

# What a campaign's `anatomy` key may say: counters (the default: /proc, TCP_INFO, netstat and the workers' heap
# counters around every trial), syscalls (counters, and after each point one more trial per target with strace
# attached, kept apart in traced.csv), off (nothing).
MODES = ("counters", "syscalls", "off")
# After each reading, before the trial's calls (or the next trial's): 10 ms sufficed where 5 did not (above).
SETTLE_S = 0.015


@dataclass(frozen=True)
class Workers:
    """Where a trial's two workers run: their pids on their hosts and a way to run a script there."""

    client_pid: int
    server_pid: int
    client_shell: Shell
    server_shell: Shell
    same_host: bool
    client_local: bool = True      # the client's host is this machine
    server_local: bool = True


class AnatomyReading:
    """Started just before the `run` command; `end` after its answer gives the trial's anatomy fields."""

    def __init__(self, workers: Workers, server_stats: Callable[[], dict | None],
                 trace_dirs: tuple[str, str] | None = None):
        """`trace_dirs`: with strace attached (a traced trial), where its summaries go on the client's and the
        server's host."""
        self.workers = workers
        self.server_stats = server_stats
        self.before = self._read()
        self.traces: list[tuple[str, StraceSession]] = []
        if trace_dirs is not None:
            self._attach(trace_dirs)
        time.sleep(SETTLE_S)

    def _read(self) -> tuple[HostSnapshot, HostSnapshot, dict | None]:
        w = self.workers
        if w.same_host:
            client = server = take_snapshot([w.client_pid, w.server_pid], w.client_shell, local=w.client_local)
        else:
            # The two hosts at once: each a command over SSH (0.15-0.3 s), so the reading stays close to the
            # trial's edge and a remote trial is not made longer by both in turn.
            with ThreadPoolExecutor(max_workers=1) as pool:
                later = pool.submit(take_snapshot, [w.server_pid], w.server_shell, sockets=False, local=w.server_local)
                client = take_snapshot([w.client_pid], w.client_shell, local=w.client_local)
                server = later.result()
        stats = self.server_stats()
        return client, server, (stats or {}).get("memory")

    def _attach(self, trace_dirs: tuple[str, str]) -> None:
        w = self.workers
        try:
            for role, pid, shell, directory in (("client", w.client_pid, w.client_shell, trace_dirs[0]),
                                                ("server", w.server_pid, w.server_shell, trace_dirs[1])):
                self.traces.append((role, StraceSession.attach(shell, pid, f"{directory}/orbench-strace-{pid}.txt")))
        except Exception:
            self._detach()
            raise

    def _detach(self) -> dict[str, dict[str, SyscallCount]]:
        counts = {}
        traces, self.traces = self.traces, []
        for role, session in traces:
            counts[role] = session.stop()
        return counts

    def end(self, window_calls: int, timed_calls: int, client_memory: dict | None) -> dict:
        """The trial's anatomy fields; `window_calls`: the calls the `run` command made (warm-up + timed)."""
        counts = self._detach()
        after = self._read()
        time.sleep(SETTLE_S)
        window = Window(self.workers.client_pid, self.workers.server_pid, self.before[0], after[0], self.before[1],
                        after[1], self.workers.same_host)
        fields = trial_fields(window, window_calls, timed_calls, client_memory, memory_between(self.before[2], after[2]))
        for role, role_counts in counts.items():
            fields.update(syscall_fields(role, role_counts, window_calls))
        return fields
