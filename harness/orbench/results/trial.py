"""A trial: one row of trials.csv, typed. The only code that turns a trial into CSV text and back.

Columns: `seq`, the point's dimensions (point.Point's fields, in order), `launch`, `trial`, then the measurement fields
below, in order. A value the trial did not produce (a failed trial's latencies, a twoway trial's loss) is None
and an empty cell. Older runs' rows are brought to this layout by upgrade.py before they get here.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from orbench.results.point import Point

# Statuses of a trial: ok (measured), failed (with the reason), skipped (the target cannot run the point),
# given_up (not run: its point's trials failed or stalled in a row, running/skips.py; the error says why;
# `orbench run --resume` runs such trials again only with --retry-skipped).
STATUSES = ("ok", "failed", "skipped", "given_up")
GIVEN_UP = "given_up"
SKIPPED = "skipped"


@dataclass(frozen=True, kw_only=True)
class Measurement:
    """What a trial produced, besides where it ran. Field order is the CSV column order."""

    status: str
    error: str = ""
    calls: int | None = None             # timed calls (N clients: N x calls per client)
    warmup: int | None = None            # untimed calls per client before them
    samples_file: str | None = None      # relative to the run directory
    # The samples file as the store appended this row (since schema 14): its size and SHA-256, checked on read
    # (integrity.py). None: an older run's trial, or no samples file.
    samples_bytes: int | None = None
    samples_sha256: str | None = None
    p50_ns: float | None = None
    p90_ns: float | None = None
    p99_ns: float | None = None
    min_ns: float | None = None
    max_ns: float | None = None
    mean_ns: float | None = None
    elapsed_ns: int | None = None        # the timed calls' span (N clients: earliest start to latest end)
    received_messages: int | None = None
    received_bytes: int | None = None
    lost_messages: int | None = None     # oneway: timed calls the server did not count
    sync_complete: bool | None = None    # oneway: the closing barrier saw every message
    # oneway, one client: the barrier after the warm-up calls completed (None: the worker did not report it)
    warmup_sync_complete: bool | None = None
    throughput_msgs_per_s: float | None = None
    throughput_mb_per_s: float | None = None
    started_at: str | None = None        # local time, ISO 8601
    duration_s: float | None = None      # the whole trial as the harness saw it
    # How busy the pair's hosts were during the trial (running/cpu_usage.py): the 1-minute load average at its end,
    # the busy share of the CPUs no worker was pinned to, the steal share; each the busiest of the pair's hosts.
    loadavg_1m: float | None = None
    trial_end_unix: float | None = None  # when the answer came back
    other_cpus_busy_pct: float | None = None
    steal_pct: float | None = None
    usage_hosts: str | None = None        # the hosts the three figures above were read on, e.g. "local", "alpha beta"
    # % of all CPUs' time used by processes outside orbench's own process tree (this machine only)
    foreign_cpu_pct: float | None = None
    # The load dimensions (N clients, a fixed rate): what they measure.
    deadline_misses: int | None = None
    achieved_rate_hz: float | None = None
    client_p50s_ns: tuple[float, ...] | None = None
    aggregate_calls_per_s: float | None = None
    start_barrier_complete: bool | None = None
    # Load at scale (running/load_usage.py, running/sweep.py; since schema 12). offered_rate_hz: what the
    # clients were asked to send in all (a sweep step's share of its probe's capacity, or N x rate_hz).
    offered_rate_hz: float | None = None
    client_calls: tuple[int, ...] | None = None    # timed calls each client (thread or process) made
    fairness: float | None = None                  # Jain's index of the clients' calls/s: 1 = served evenly
    server_cpu_util: float | None = None           # share of the CPUs the server may use that it used
    client_cpu_util: float | None = None           # the clients' processes together, of the CPUs they may use
    server_threads: int | None = None              # the server's threads at the trial's end
    server_threads_max: int | None = None          # the most seen while the trial ran (sampled)
    bottleneck: str | None = None                  # which side saturated: server, client, shared-cpu, none
    settle_ratio: float | None = None              # the second half's mean latency over the first half's
    # A serial server's service times over the trial (PROTOCOL.md, "--serial"): their mean and mean square.
    server_service_ns: float | None = None
    server_service_sq_ns2: float | None = None
    # The sliced design (running/slices.py; since schema 14): the calls per slice (empty: a sequential trial),
    # and each slice's p50 and mean in the order the slices ran; slice k pairs with slice k of the baseline.
    slice_calls: int | None = None
    slice_p50s_ns: tuple[float, ...] | None = None
    slice_means_ns: tuple[float, ...] | None = None
    # The calls of each slice, in order (since schema 19): where the samples file's slices end. A threads point's
    # slice holds every thread's calls of it. An older run's are the even split its runner made (upgrade.py).
    slice_sizes: tuple[int, ...] | None = None
    # The TCP data segments the client sent per call over the trial's warm-up and timed calls (since schema 17;
    # running/wire_reading.py), every trial with a client on this machine: below 1 for oneways, its sends joined
    # data already queued (coalescing), which can change from trial to trial.
    out_segs_per_call: float | None = None
    # The milliseconds the client JVM's JIT compilers finished during the timed calls (since schema 18; the run
    # answer's memory.jit_ms, summed over a sliced trial's slices and a group's client processes): above 0, its
    # call path was still being compiled while it was timed. Empty for a worker without a JIT.
    client_jit_ms: int | None = None
    # A sliced trial's slices as turns (since schema 20; running/slices.py, PROTOCOL.md "Turns"): how many turns
    # the client took inside its one `run`; empty when each slice was a `run` of its own, or the trial unsliced.
    slice_turns: int | None = None
    # The anatomy of a call (orbench.anatomy; since schema 8), read where each worker runs. Per call unless said:
    # the kernel's counters over the `run` command's anatomy_calls (warm-up and timed calls), the client's heap
    # over its timed calls. Strings hold "name=value;..." pairs.
    anatomy_calls: int | None = None
    client_cpu_us: float | None = None             # on-CPU time, the scheduler's exact sum over the threads
    client_user_us: float | None = None            # its split by the kernel's timer-tick samples
    client_sys_us: float | None = None
    client_vcsw: float | None = None               # voluntary context switches (blocked: a read, a futex)
    client_ivcsw: float | None = None              # involuntary ones (preempted)
    client_reads: float | None = None              # read-family calls: read, readv, pread... (/proc/PID/io syscr)
    client_writes: float | None = None             # write-family calls: write, writev, pwrite... (syscw)
    # recv-family calls: recv, recvfrom, recvmsg, recvmmsg (since schema 12: the counter preloaded into the
    # worker, anatomy/syscount.py; syscr does not count them); None: the worker ran without the counter
    client_recvs: float | None = None
    client_sends: float | None = None              # send-family calls: send, sendto, sendmsg, sendmmsg (the same)
    client_threads_ended: int | None = None        # in the trial: threads that ended (their switches are lost)
    server_cpu_us: float | None = None
    server_user_us: float | None = None
    server_sys_us: float | None = None
    server_vcsw: float | None = None
    server_ivcsw: float | None = None
    server_reads: float | None = None
    server_writes: float | None = None
    server_recvs: float | None = None
    server_sends: float | None = None
    server_threads_ended: int | None = None
    wire_out_bytes: float | None = None            # the client's TCP bytes to the server (TCP_INFO)
    wire_in_bytes: float | None = None             # and from it
    wire_out_segs: float | None = None             # data segments each way
    wire_in_segs: float | None = None
    tcp_retrans: int | None = None                 # in the trial: the client connection's retransmitted segments
    tcp_timeouts: int | None = None                # in the trial: the namespace's retransmission timeouts
    tcp_events: str | None = None                  # in the trial: the namespace's TCP event counters that moved
    client_allocs: float | None = None             # C++: malloc/calloc/realloc calls
    client_alloc_bytes: float | None = None        # C++: bytes they asked for; Java: bytes every thread allocated
    client_thread_alloc_bytes: float | None = None  # Java: bytes the measuring thread allocated
    client_gc_count: int | None = None             # Java, in the trial: collections and their pause time
    client_gc_ms: int | None = None
    server_allocs: float | None = None
    server_alloc_bytes: float | None = None
    server_gc_count: int | None = None
    server_gc_ms: int | None = None
    # The anatomy mode's traced trials only (traced.csv): system calls per call by name, and their sum.
    client_syscalls: str | None = None
    client_syscalls_total: float | None = None
    server_syscalls: str | None = None
    server_syscalls_total: float | None = None


@dataclass(frozen=True, kw_only=True)
class Trial(Measurement):
    """One trial of one point: its place in the run (the process launch it ran in, its number within that
    launch), the point, and what it measured."""

    seq: int
    point: Point
    trial: int
    launch: int = 0

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @classmethod
    def of(cls, seq: int, point: Point, trial: int, measurement: Measurement, launch: int = 0) -> Trial:
        return cls(seq=seq, point=point, trial=trial, launch=launch, **_values(measurement))

    @property
    def key(self) -> tuple[Point, int, int]:
        """What identifies a trial within a run: its point, launch and number."""
        return (self.point, self.launch, self.trial)

    def replace(self, **changes: Any) -> Trial:
        return dataclasses.replace(self, **changes)


def _values(m: Measurement) -> dict[str, Any]:
    return {f.name: getattr(m, f.name) for f in dataclasses.fields(Measurement)}


MEASUREMENT_FIELDS = [f.name for f in dataclasses.fields(Measurement)]
COLUMNS = ["seq", *Point.columns(), "launch", "trial", *MEASUREMENT_FIELDS]


def split_evenly(calls: int, parts: int) -> list[int]:
    """`calls` in `parts` runs as even as can be, the first ones one call longer where they do not divide: how
    the runner cuts a sliced trial's calls (running/slices.slice_sizes), and so the slice_sizes of a run from
    before they were recorded (upgrade.py)."""
    base, extra = divmod(calls, parts)
    return [base + (1 if k < extra else 0) for k in range(parts)]


def to_row(t: Trial) -> dict[str, str]:
    """The trial as trials.csv cells."""
    row = {"seq": str(t.seq), **{k: _cell(v) for k, v in t.point.as_record().items()}, "launch": str(t.launch),
           "trial": str(t.trial)}
    row.update({name: _cell(getattr(t, name)) for name in MEASUREMENT_FIELDS})
    return row


def measurement_cell(name: str, text: str) -> Any:
    """One measurement column's cell as its field's type (upgrade.py reads older rows' cells through it)."""
    return _cell_value(name, _HINTS[name], text)


def as_cell(value: Any) -> str:
    """A measurement field's value as its trials.csv cell (upgrade.py writes a new column's cells through it)."""
    return _cell(value)


def from_row(row: Mapping[str, str]) -> Trial:
    """A trials.csv row of the current layout (upgrade.py brings older ones to it). A cell that is not of its
    column's type raises ValueError naming the column; a missing column, KeyError."""
    values = {name: _cell_value(name, _HINTS[name], row[name]) for name in MEASUREMENT_FIELDS}
    return Trial(seq=_cell_value("seq", int, row["seq"]), point=Point.from_record(row), trial=_cell_value("trial", int, row["trial"]),
                 launch=_cell_value("launch", int, row["launch"]), **values)


def _cell_value(name: str, hint: Any, text: str) -> Any:
    try:
        return _parse(hint, text)
    except ValueError:
        raise ValueError(f"column {name}: {text!r} is not {_type_name(hint)}") from None


def _type_name(hint: Any) -> str:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    kind = args[0] if args else hint
    if typing.get_origin(kind) is tuple:
        return "a list of numbers"
    return {int: "an integer", float: "a number", bool: "True or False"}.get(kind, "text")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, tuple):
        return ";".join(_cell(v) for v in value)
    return str(value)


_HINTS = typing.get_type_hints(Measurement)


def _parse(hint: Any, text: str) -> Any:
    """A cell as its field's type: `int | None` and the like; "" is None for every optional field."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if text == "" and type(None) in typing.get_args(hint):
        return None
    kind = args[0] if args else hint
    if typing.get_origin(kind) is tuple:
        item = typing.get_args(kind)[0]
        return tuple(item(float(v)) if item is int else float(v) for v in text.split(";") if v)
    if kind is bool:
        if text not in ("True", "False"):
            raise ValueError(f"not a boolean: {text!r}")
        return text == "True"
    if kind is int:
        try:
            return int(text)
        except ValueError:  # "300.0", as a spreadsheet may write it back
            return int(float(text))
    return kind(text)
