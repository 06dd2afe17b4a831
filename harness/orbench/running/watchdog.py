"""The progress watchdog of a trial: while the harness waits for the clients' `run` answers, it reads the
workers' progress, and ends a trial whose workers have stopped making any (a middleware that hangs) after
`stall_timeout_s` seconds instead of the trial timeout of minutes.

Progress is any of: the server counted a new message (its `stats` answer's `received`, PROTOCOL.md; asked
over its stdin, so on a remote host too), a client wrote anything (/proc/PID/io wchar: its socket), or a
client used CPU (/proc/PID/stat utime + stime). The clients' counters are read on this machine
only: a remote client is judged by the server's counter alone. Bytes read (rchar) are not used: a JVM reads
its cgroup files now and then (about 1 KB/s), stuck or not; nor is the server's CPU time: a server that spins
is not progress (GlassFish's stuck 32 KB oneway server burns a CPU while it counts nothing). A stall that ends by itself within
the bound is a result (stats/stalls.py names it); one that does not is a failed trial.

A oneway trial whose messages were lost waits in its closing barrier (sync) for sync_timeout_ms while the
server counts nothing: with sync_timeout_ms above stall_timeout_s, the watchdog ends it as failed, with how far
the server had counted.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from orbench.errors import WorkerError

# The campaign key stall_timeout_s's default (5 s) is in campaign.schema.json; 0 turns the watchdog off. Chosen
# from measured healthy gaps (tests/measure_stall_gaps.py): no trial of quick or of the 1 ms delay servers went
# one poll without progress on a loaded 2-vCPU VM, and GlassFish's own 32 KB oneway stalls that end by
# themselves (1-4 s, a result) stay below it.
# A crawl: stalls of at least CRAWL_GAP_S that end by themselves but keep coming. GlassFish's 32 KB oneway
# trials spent 50-75 s in stalls of 1-4 s each (98% of a trial in 86 of 5000 calls) before hanging for good;
# each stall alone is a result, but once the stalls of one trial add up to CRAWL_FACTOR x stall_timeout_s the
# trial is ended as failed ("crawling"), so a crawling middleware costs seconds too.
CRAWL_GAP_S = 1.0
CRAWL_FACTOR = 2.0
# How often progress is read while a trial runs: a stats line is a few tens of microseconds of the server's
# time, twice a second (a short trial ends before the first).
POLL_S = 0.5
# A client's CPU time counts as progress only when it grew by this share of a CPU over the quiet time: an idle
# JVM's own threads (JIT, GC, timers) tick now and then while its calls are stuck, while a client that
# computes uses all of one.
CLIENT_CPU_SHARE = 0.05
CLOCK_TICKS_PER_S = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class ProgressReading:
    """The counters that move while a trial makes progress (sums over the clients; -1: not known)."""

    server_messages: int
    client_written_bytes: int
    client_cpu_ticks: int


def read_io(pid: int) -> dict[str, int]:
    """/proc/PID/io as numbers (rchar, wchar, ...); empty when the process is gone or unreadable."""
    try:
        with open(f"/proc/{pid}/io") as f:
            text = f.read()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if value.strip().isdigit():
            out[key] = int(value)
    return out


def cpu_ticks(pid: int) -> int:
    """utime + stime of the whole process (ended threads included), in clock ticks; 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return 0
    fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) ": state is field 3
    return int(fields[11]) + int(fields[12])


# The server's messages counted since the last reset, from its stats answer; None when it does not say.
ServerCount = Callable[[], "int | None"]


class Watchdog:
    """Called (check) every time a wait for a client's answer wakes up; raises WorkerError of kind "stalled"
    once no progress was seen for `stall_timeout_s`, and again at every later check (for the other clients of
    a multi-client trial). Thread-safe: each client of a trial waits in its own thread."""

    def __init__(self, server_count: ServerCount | None, client_pids: list[int], stall_timeout_s: float,
                 calls: int, warmup: int):
        self.server_count = server_count
        self.client_pids = client_pids
        self.stall_timeout_s = stall_timeout_s
        self.calls, self.warmup = calls, warmup  # the trial's timed and warm-up calls, over all clients
        self._lock = threading.Lock()
        # The server is first asked at the first poll, not here: a stats exchange just before `run` would leave
        # the workers' CPU idle for a moment before the first calls (quick.toml's rewarm says why that matters).
        self.last = ProgressReading(-2, *self._read_clients())
        self.last_change = self.last_poll = time.monotonic()
        self.longest_quiet_s = 0.0          # the longest time without progress seen so far
        self.stalled_s = 0.0                # time in ended stalls of CRAWL_GAP_S or more
        self.started = self.last_change
        self.tripped: str | None = None

    def _read_clients(self) -> tuple[int, int]:
        return (sum(read_io(p).get("wchar", 0) for p in self.client_pids),
                sum(cpu_ticks(p) for p in self.client_pids))

    def _read(self) -> ProgressReading:
        counted = self.server_count() if self.server_count is not None else None
        return ProgressReading(-1 if counted is None else counted, *self._read_clients())

    def check(self) -> None:
        with self._lock:
            if self.tripped is None:
                self._poll()
            if self.tripped is not None:
                raise WorkerError(self.tripped, "stalled")

    def _poll(self) -> None:
        now = time.monotonic()
        if now - self.last_poll < POLL_S:
            return
        self.last_poll = now
        reading = self._read()
        quiet = now - self.last_change
        computed = (reading.client_cpu_ticks - self.last.client_cpu_ticks) / CLOCK_TICKS_PER_S
        if (reading.server_messages != self.last.server_messages
                or reading.client_written_bytes != self.last.client_written_bytes
                or computed >= CLIENT_CPU_SHARE * max(quiet, POLL_S)):
            if quiet >= CRAWL_GAP_S:
                self.stalled_s += quiet
            self.last, self.last_change = reading, now
            self._crawl_check(now, 0.0)
            return
        self.longest_quiet_s = max(self.longest_quiet_s, quiet)
        self._crawl_check(now, quiet if quiet >= CRAWL_GAP_S else 0.0)
        if self.tripped is not None:
            return
        if quiet >= self.stall_timeout_s:
            # The server's count starts again after the warm-up: it is then the timed calls it received.
            counted = (f"after the server counted {reading.server_messages} messages" if reading.server_messages >= 0
                       else "") + f" (a trial of {self.warmup} warm-up and {self.calls} timed calls"
            self.tripped = (f"no progress for {quiet:.1f} s {counted.strip()}: the server counted nothing new"
                            + (", the client neither sent nor computed)" if self.client_pids else ")"))

    def _crawl_check(self, now: float, current_s: float) -> None:
        stalled = self.stalled_s + current_s
        if self.tripped is None and stalled >= CRAWL_FACTOR * self.stall_timeout_s:
            self.tripped = (f"crawling: {stalled:.1f} s of the trial's {now - self.started:.1f} s went by in stalls of "
                            f"{CRAWL_GAP_S:g} s or more without progress (a trial of {self.warmup} warm-up and "
                            f"{self.calls} timed calls)")
