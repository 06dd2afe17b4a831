"""The `run` sequence (PROTOCOL.md, "run", "Load", "Soak runs") over any middleware's Connection: resets,
warm-up and its barriers, the timed loop (closed or paced), the closing barrier, counters, the samples file."""

from __future__ import annotations

import os
import sys
import time
from array import array
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, Protocol

from orbench_worker.errors import WorkerError
from orbench_worker.histogram import Histogram
from orbench_worker.output import log
from orbench_worker.pacing import ArrivalSchedule, spin_for_period, wait_until
from orbench_worker.spec import LoadSpec, RunSpec, SoakSpec

clock = time.monotonic_ns
# A closed-loop soak times its calls in chunks of at most this long, so a call's interval blurs by one chunk.
CHUNK_NS = 10_000_000
MAX_CHUNK = 4096


@dataclass(frozen=True)
class Call:
    """One kind of call, ready to make: `invoke(argument)` is what is timed; `check(result)` runs after the
    second clock read (an echo's reply), or is None."""
    invoke: Callable[[Any], Any]
    argument: Any
    check: Callable[[Any], None] | None = None


class Connection(Protocol):
    """What a binding gives the kit once connected: its calls per mode and payload type, and the server's
    counters and barrier. Failures raise; `error` says which error_kind they are. A binding may also have
    `timed_loop()`, a context the timed calls run in (timed_io)."""

    def prepare(self, spec: RunSpec) -> Call: ...
    def reset_counters(self) -> None: ...
    def shutdown(self) -> None: ...
    def counters(self) -> tuple[int, int]: ...
    def sync(self, expected: int, timeout_ms: int) -> tuple[bool, tuple[int, int]]: ...
    def close(self) -> None: ...


@dataclass
class Span:
    start_ns: int = 0
    end_ns: int = 0
    deadline_misses: int = 0
    first_send_ns: int = 0
    last_send_ns: int = 0


def received_json(counts: tuple[int, int]) -> dict:
    return {"messages": counts[0], "bytes": counts[1]}


def timed_io(conn: Connection) -> AbstractContextManager:
    """The connection's own setting for its timed calls, if it has one (`timed_loop`: the socket baseline drops its
    socket timeouts there, PROTOCOL.md "No timer per call"); nothing for the others."""
    hook = getattr(conn, "timed_loop", None)
    return hook() if hook is not None else nullcontext()


def untimed_calls(call: Call, n: int) -> None:
    invoke, argument, check = call.invoke, call.argument, call.check
    for _ in range(n):
        result = invoke(argument)
        if check is not None:
            check(result)


def timed_calls(call: Call, samples: array, n: int, schedule: ArrivalSchedule | None) -> Span:
    """n timed calls, sample i into samples[i]. The loop body is kept to the two clock reads and the call."""
    if schedule is not None:
        return _paced_calls(call, samples, n, schedule)
    invoke, argument, check = call.invoke, call.argument, call.check
    span = Span()
    before = clock()
    result = invoke(argument)
    after = clock()
    samples[0] = after - before
    span.start_ns = before
    if check is not None:
        check(result)
        for i in range(1, n):
            before = clock()
            result = invoke(argument)
            after = clock()
            samples[i] = after - before
            check(result)
    else:
        for i in range(1, n):
            before = clock()
            invoke(argument)
            after = clock()
            samples[i] = after - before
    span.end_ns = after
    return span


def _paced_calls(call: Call, samples: array, n: int, schedule: ArrivalSchedule) -> Span:
    """Call i waits until its intended send time t_i when early; its sample is completion - t_i, so a stall
    shows in every call due during it; a deadline miss is a sample above the mean period."""
    invoke, argument, check = call.invoke, call.argument, call.check
    period = schedule.period_ns
    spin = spin_for_period(period)
    span = Span(start_ns=schedule.peek())
    for i in range(n):
        intended = schedule.next()
        wait_until(intended, spin_ns=spin)
        before = clock()
        result = invoke(argument)
        after = clock()
        samples[i] = after - intended
        if i == 0:
            span.first_send_ns = before
        span.last_send_ns = before
        span.end_ns = after
        # Without a branch, so a late call runs the same bytecode as an early one (the counting mode's instructions).
        span.deadline_misses += after - intended > period
        if check is not None:
            check(result)
    return span


def _barrier(conn: Connection, expected: int, timeout_ms: int, what: str) -> dict:
    start = clock()
    complete, received = conn.sync(expected, timeout_ms)
    if not complete:
        log(f"{what} incomplete: {received[0]} of {expected} messages")
    return {"complete": complete, "wait_ns": clock() - start}


def before_timed_calls(conn: Connection, call: Call, spec: RunSpec, load: LoadSpec) -> tuple[dict | None, dict | None]:
    """Resets, warm-up calls and their barrier; for a group of clients the start barrier instead of resets
    (the harness reset the shared counters once). Returns (start_barrier, warmup_sync)."""
    start_barrier = warmup_sync = None
    if not load.shared:
        conn.reset_counters()
    if spec.warmup > 0:
        untimed_calls(call, spec.warmup)
        # Late oneway warm-ups would be counted as timed ones after the reset and could hide loss.
        if spec.mode == "oneway" and not load.shared:
            warmup_sync = _barrier(conn, spec.warmup, spec.sync_timeout_ms, "warm-up sync")
    if load.shared:
        start_barrier = _barrier(conn, load.clients * spec.warmup, spec.sync_timeout_ms, "start barrier")
    else:
        conn.reset_counters()
    return start_barrier, warmup_sync


def _rate_fields(load: LoadSpec, seed: int, misses: int, calls: int, first_send: int, last_send: int) -> dict:
    out: dict = {"rate_hz": load.rate_hz, "arrivals": load.arrivals}
    if load.arrivals == "poisson":
        out["seed"] = seed
    sending = last_send - first_send
    out["deadline_misses"] = misses
    out["achieved_rate_hz"] = (calls - 1) * 1e9 / sending if calls > 1 and sending > 0 else None
    return out


def run_calls(conn: Connection, spec: RunSpec, load: LoadSpec) -> dict:
    """A run of `calls` timed calls: the answer's fields (without ok and id); the samples file written."""
    oneway = spec.mode == "oneway"
    call = conn.prepare(spec)
    samples = array("q", [0]) * spec.calls   # allocated and touched before timing
    start_barrier, warmup_sync = before_timed_calls(conn, call, spec, load)
    seed = load.effective_seed()
    schedule = ArrivalSchedule(load.rate_hz, load.arrivals, seed) if load.rate_hz > 0 else None
    with timed_io(conn):
        span = timed_calls(call, samples, spec.calls, schedule)
    end_ns = span.end_ns
    sync = None
    if oneway or load.shared:
        # A group's closing barrier waits for every client's messages, so `received` is the group's total.
        expected = load.clients * (spec.warmup + spec.calls) if load.shared else spec.calls
        sync_start = clock()
        complete, _ = conn.sync(expected, spec.sync_timeout_ms)
        sync_end = clock()
        if oneway:
            end_ns = sync_end
        sync = {"complete": complete, "wait_ns": sync_end - sync_start}
    received = conn.counters()
    write_samples(spec.samples_file, samples)
    answer: dict = {"calls": spec.calls, "elapsed_ns": end_ns - span.start_ns, "received": received_json(received)}
    if sync is not None:
        answer["sync"] = sync
    if warmup_sync is not None:
        answer["warmup_sync"] = warmup_sync
    if load.shared:
        answer.update(clients=load.clients, start_barrier=start_barrier, start_ns=span.start_ns, end_ns=end_ns)
    if schedule is not None:
        answer.update(_rate_fields(load, seed, span.deadline_misses, spec.calls, span.first_send_ns,
                                   span.last_send_ns))
    return answer


def write_samples(path: str, samples: array) -> None:
    """Little-endian int64 ns, in call order, no header; written after the timed loop."""
    if sys.byteorder != "little":
        samples = array("q", samples)
        samples.byteswap()
    with open(path, "wb") as f:
        samples.tofile(f)


def _process_fields() -> dict:
    with open("/proc/self/statm") as f:
        resident_pages = int(f.read().split()[1])
    return {"rss_bytes": resident_pages * os.sysconf("SC_PAGE_SIZE"), "cpu_ns": time.process_time_ns()}


class Intervals:
    """The intervals of one soak, t_0 + k x interval .. t_0 + (k+1) x interval, the last cut at the end; each
    goes out the moment it closes, empty ones too."""

    def __init__(self, t0: int, soak: SoakSpec, emit: Callable[[dict], None]):
        self.t0, self.interval, self.end, self.emit = t0, soak.interval_ns, t0 + soak.duration_ns, emit
        self.index = 0
        self.current, self.total = Histogram(), Histogram()
        self.misses = self.total_misses = 0

    def boundary(self) -> int:
        return min(self.t0 + (self.index + 1) * self.interval, self.end)

    def close_until(self, now: int) -> None:
        while self.index * self.interval < self.end - self.t0 and self.boundary() <= now:
            event = {"event": "interval", "index": self.index, "start_ns": self.t0 + self.index * self.interval,
                     "end_ns": self.boundary(), "deadline_misses": self.misses, **self.current.stats(),
                     "buckets": self.current.sparse(), **_process_fields()}
            self.emit(event)
            self.total.add(self.current)
            self.total_misses += self.misses
            self.current, self.misses = Histogram(), 0
            self.index += 1


def run_soak(conn: Connection, spec: RunSpec, load: LoadSpec, soak: SoakSpec, emit: Callable[[dict], None]) -> dict:
    """Timed calls for a duration, aggregated into one histogram per interval (PROTOCOL.md, "Soak runs")."""
    oneway = spec.mode == "oneway"
    if oneway and load.shared:
        raise WorkerError("usage", 'a oneway soak (duration_s) takes one client: "clients" must be 1')
    call = conn.prepare(spec)
    chunk = array("q", [0]) * MAX_CHUNK
    start_barrier, warmup_sync = before_timed_calls(conn, call, spec, load)
    seed = load.effective_seed()
    schedule = ArrivalSchedule(load.rate_hz, load.arrivals, seed) if load.rate_hz > 0 else None
    t0 = clock()
    end = t0 + soak.duration_ns
    if schedule is not None:
        schedule.start_at(t0)
    intervals = Intervals(t0, soak, emit)
    first_send = last_send = 0
    last_end = t0
    calls = 0
    per_call = 0.0
    while True:
        if schedule is not None:
            # Paced: a call belongs to the interval of its intended send time.
            due = schedule.peek()
            if due >= end:
                break
            intervals.close_until(due)
            span = timed_calls(call, chunk, 1, schedule)
            intervals.current.record(chunk[0])
            intervals.misses += span.deadline_misses
            if calls == 0:
                first_send = span.first_send_ns
            last_send, last_end = span.last_send_ns, span.end_ns
            calls += 1
            continue
        now = clock()
        if now >= end:
            break
        intervals.close_until(now)
        left = min(intervals.boundary() - now, CHUNK_NS)
        n = min(max(int(left / per_call) if per_call > 0 else 1, 1), MAX_CHUNK)
        span = timed_calls(call, chunk, n, None)
        for k in range(n):
            intervals.current.record(chunk[k])
        per_call = max(1.0, (span.end_ns - span.start_ns) / n)
        last_end = span.end_ns
        calls += n
    intervals.close_until(end)
    end_ns = last_end
    sync = None
    if oneway:
        sync_start = clock()
        complete, _ = conn.sync(calls, spec.sync_timeout_ms)
        end_ns = clock()
        sync = {"complete": complete, "wait_ns": end_ns - sync_start}
    answer: dict = {"calls": calls, "elapsed_ns": end_ns - t0, "received": received_json(conn.counters()),
                    "duration_ns": soak.duration_ns, "interval_ns": soak.interval_ns,
                    "intervals": intervals.index, **intervals.total.stats()}
    if sync is not None:
        answer["sync"] = sync
    if warmup_sync is not None:
        answer["warmup_sync"] = warmup_sync
    if load.shared:
        answer.update(clients=load.clients, start_barrier=start_barrier, start_ns=t0, end_ns=end_ns)
    if schedule is not None:
        answer.update(_rate_fields(load, seed, intervals.total_misses, calls, first_send, last_send))
    return answer
