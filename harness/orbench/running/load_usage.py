"""Who is the bottleneck under load: the server's and the clients' CPU utilisation over a trial's timed calls,
and the server's thread count while it ran (issue of every multi-client run on a small machine: the clients
share CPUs with each other and, same-core, with the server; a capacity reached because the clients' CPU was
full describes the client machine, not the middleware).

A sampling thread reads, every SAMPLE_PERIOD_S while the trial runs, each worker's CPU clock (the scheduler's
exact on-CPU time, every thread, ended ones included: anatomy/snapshot.process_cpu_ns) and the server's number
of threads (/proc/PID/task), with the time on CLOCK_MONOTONIC, the clock the workers report their first and
last timed call on. The CPU used over the timed calls is then interpolated at those two instants: warm-up
calls and barriers before and after are left out (the kernel updates a running thread of another process only
at its scheduler tick, so each end may be up to a tick, 4 ms at HZ=250, behind). Local workers only (a remote
worker's clock is read on its host; there the fields stay empty).

The thread is one per harness process, started with the run and kept: a thread started just before each trial
(as this module did) slowed the trial after it. `orbench fidelity`'s split-core c-socket oneway row at 16 and
128 B (anatomy on first rounds) read 1.18-1.21 times the plain C program's p50 with a sampling thread per trial
and 1.02-1.03 with one for the run; driven without the harness (tests/measure_task_start.py, three runs), a
thread started before each trial made it 1.08-1.12 against 1.03-1.07, and the server's CPU took about twice the
function-call interrupts (the IPIs of remote wake-ups) per trial, 218-314 against 95-140.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass

from orbench.anatomy.snapshot import process_cpu_ns

# 20 readings a second: a step of half a second still gets ten, and reading a few /proc entries costs the
# harness microseconds each time.
SAMPLE_PERIOD_S = 0.05
# A side that used this share of the CPUs it may use was saturated.
SATURATED = 0.9


@dataclass(frozen=True)
class _Reading:
    at_ns: int
    server_cpu_ns: int | None
    client_cpu_ns: int | None
    server_threads: int | None
    # The counters were read within took_ns after at_ns: a thread preempted between the clock and the counters
    # (milliseconds on a busy VM) reads them late, and a check of a window's CPU time must allow that much.
    took_ns: int = 0


def _threads(pid: int) -> int | None:
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return None


def _cpus(pid: int) -> int | None:
    try:
        return len(os.sched_getaffinity(pid))
    except OSError:
        return None


def _client_cpu(pids: list[int]) -> int | None:
    values = [process_cpu_ns(p) for p in pids]
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


class _SamplingThread:
    """The harness's one sampling thread: it reads every active sampler each SAMPLE_PERIOD_S and sleeps without
    a timeout while none is active. Lane threads (host pairs run at once) may each have a sampler active."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._active: list[LoadSampler] = []
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Starts the thread if it is not running; the runner calls it before its first trial."""
        with self._changed:
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="load-sampler", daemon=True)
                self._thread.start()

    def add(self, sampler: LoadSampler) -> None:
        self.start()
        with self._changed:
            self._active.append(sampler)
            self._changed.notify()

    def remove(self, sampler: LoadSampler) -> None:
        with self._changed:
            self._active = [s for s in self._active if s is not sampler]

    def _loop(self) -> None:
        while True:
            with self._changed:
                while not self._active:
                    self._changed.wait()
                self._changed.wait(SAMPLE_PERIOD_S)
                active = list(self._active)
            for sampler in active:
                sampler.read_if_active()


SAMPLING = _SamplingThread()


class LoadSampler:
    """Started just before a trial's `run` command(s), stopped after the answers; SAMPLING reads it between."""

    def __init__(self, server_pid: int, client_pids: list[int]):
        self.server_pid, self.client_pids = server_pid, list(client_pids)
        self.server_cpus = _cpus(server_pid)
        allowed: set[int] = set()
        for pid in self.client_pids:
            try:
                allowed |= os.sched_getaffinity(pid)
            except OSError:
                pass
        self.client_cpus = len(allowed) or None
        self.shared = self._shared_cpus()
        self.readings: list[_Reading] = []
        # Readings come from this thread and SAMPLING's: one at a time, so that they stay in time order.
        self._lock = threading.Lock()
        self._active = True
        self._read()
        SAMPLING.add(self)

    def _shared_cpus(self) -> bool:
        """Whether the server and the clients may only run on the same CPUs (same-core placement)."""
        try:
            server = os.sched_getaffinity(self.server_pid)
            clients = set().union(*(os.sched_getaffinity(p) for p in self.client_pids))
        except OSError:
            return False
        return server == clients

    def _read(self) -> None:
        at = time.monotonic_ns()
        server, clients, threads = process_cpu_ns(self.server_pid), _client_cpu(self.client_pids), \
            _threads(self.server_pid)
        self.readings.append(_Reading(at, server, clients, threads, time.monotonic_ns() - at))

    def read_if_active(self) -> None:
        with self._lock:
            if self._active:
                self._read()

    def stop(self) -> None:
        SAMPLING.remove(self)
        with self._lock:
            self._active = False
            self._read()

    def _at(self, at_ns: int, field: str) -> float | None:
        """A cumulative counter interpolated at `at_ns` between the readings around it."""
        points = [(r.at_ns, getattr(r, field)) for r in self.readings if getattr(r, field) is not None]
        if len(points) < 2 or not points[0][0] <= at_ns <= points[-1][0]:
            return None
        for (t0, v0), (t1, v1) in zip(points, points[1:]):
            if t0 <= at_ns <= t1:
                return v0 + (v1 - v0) * ((at_ns - t0) / (t1 - t0) if t1 > t0 else 0.0)
        return None

    def fields(self, start_ns: int | None, end_ns: int | None) -> dict:
        """The trial's load fields over [start_ns, end_ns] (the timed calls, CLOCK_MONOTONIC); over the whole
        sampled window when the workers did not say."""
        if not self.readings:
            return {}
        start = start_ns if start_ns is not None else self.readings[0].at_ns
        end = end_ns if end_ns is not None else self.readings[-1].at_ns
        threads = [r.server_threads for r in self.readings if r.server_threads is not None]
        utils = {}
        if end > start:
            for side, cpus in (("server", self.server_cpus), ("client", self.client_cpus)):
                a, b = self._at(start, f"{side}_cpu_ns"), self._at(end, f"{side}_cpu_ns")
                if a is not None and b is not None and cpus:
                    utils[side] = round((b - a) / (end - start) / cpus, 4)
        return busy_fields(threads, utils, self.shared)


class LoadOverWindows:
    """Who was busy over several windows of one target's calls, each read by a LoadSampler of its own (a sliced
    trial's slices, running/slices.py): what ran between them (the other side's slices) does not count.

    A slice is a few milliseconds, under the sampling period, so its sampler has a reading just before the `run`
    command and one after the answer, both sides idle at those two instants (their counters exact there).
    Interpolating the timed calls' share between them, as a long trial does, spread the slice's CPU over the
    command's delivery and answer as well: split-core at 4 client threads, c-socket's server read 0.74-0.81 of its
    CPU sliced (run 20261206-071800-vm) where whole trials read 0.89-0.98 (-071811-vm), and the rows said "client".
    So each side's CPU is what the two readings enclose, over the time that side's work took:
    - the server's work is the calls alone (it never sees a command): its CPU per call, warm-up calls included,
      times the timed calls' rate. A warm-up call after the other side's slice costs more than a timed one, so
      this can pass 1 by a few percent; it is capped there. Sliced, c-socket's server then read 0.94-1.00 and
      omniORB's 0.93-1.00 (runs -072015-vm, -072031-vm), whole trials beside them 0.84-0.96 and 0.83-0.96.
    - the client's also includes reading the command and starting its threads: its CPU from the first reading
      to the last timed call (its answer after it is left in, and is small).
    """

    def __init__(self) -> None:
        self.spent: dict[str, float] = {"server": 0.0, "client": 0.0}
        self.busy_ns: dict[str, float] = {"server": 0.0, "client": 0.0}
        self.cpus: dict[str, int | None] = {"server": None, "client": None}
        self.threads: list[int] = []
        self.shared = False

    def add(self, sampler: LoadSampler, start_ns: int | None, end_ns: int | None, warmup: int, calls: int) -> None:
        """One slice: its sampler, its timed calls' first and last instants, and its warm-up and timed calls
        per thread."""
        self.shared = sampler.shared
        self.cpus = {"server": sampler.server_cpus, "client": sampler.client_cpus}
        threads = [r.server_threads for r in sampler.readings if r.server_threads is not None]
        self.threads.extend(threads[-1:])
        if start_ns is None or end_ns is None or end_ns <= start_ns or calls <= 0 or len(sampler.readings) < 2:
            return
        busy = {"server": (end_ns - start_ns) * (warmup + calls) / calls,
                "client": end_ns - sampler.readings[0].at_ns}
        for side in self.spent:
            first, last = (getattr(r, f"{side}_cpu_ns") for r in (sampler.readings[0], sampler.readings[-1]))
            if first is not None and last is not None and busy[side] > 0:
                self.spent[side] += last - first
                self.busy_ns[side] += busy[side]

    def fields(self) -> dict:
        utils = {side: round(min(1.0, self.spent[side] / self.busy_ns[side] / cpus), 4)
                 for side, cpus in self.cpus.items() if cpus and self.busy_ns[side] > 0}
        return busy_fields(self.threads, utils, self.shared)


def busy_fields(threads: list[int], utils: dict[str, float], shared: bool) -> dict:
    """A trial's load fields: the server's threads (at the end, the most seen), each side's CPU utilisation, and
    which side saturated where both are known."""
    out: dict = {"server_threads": threads[-1] if threads else None,
                 "server_threads_max": max(threads) if threads else None}
    out.update({f"{side}_cpu_util": util for side, util in utils.items()})
    if len(utils) == 2:
        out["bottleneck"] = bottleneck(utils["server"], utils["client"], shared)
    return out


def bottleneck(server_util: float, client_util: float, shared: bool) -> str:
    """Which side saturated: the server, the clients, both on one shared CPU, or none (the limit is waiting)."""
    if shared and server_util + client_util >= SATURATED:
        return "shared-cpu"
    if server_util >= SATURATED:
        return "server"
    if client_util >= SATURATED:
        return "client"
    return "none"
