"""A trial's anatomy from two snapshots (before the `run` command, after its answer) and the workers' own heap
counters: per-call fields of a trials.csv row.

Two windows, each divided by the calls made in it:
- the kernel's counters (CPU, context switches, read/write calls, wire bytes and segments) and the send/recv
  calls the preloaded counter saw (syscount.py) cover the whole
  `run` command: its warm-up and timed calls plus its few control requests (two resets, counters; two syncs
  for oneway), so they are divided by warmup + calls (the control requests add under 0.1% at the usual
  thousands of calls);
- the client's `memory` (run answer) covers the timed calls only, divided by calls; the server's (its stats
  lines before and after) covers the whole command, like the kernel's.
A process that is gone in either snapshot gives no fields.
"""

from __future__ import annotations

from dataclasses import dataclass

from orbench.anatomy.netstat import tcp_events
from orbench.anatomy.procfs import ProcessCounters
from orbench.anatomy.snapshot import HostSnapshot
from orbench.anatomy.tcpinfo import SocketCounters

ROLES = ("client", "server")


@dataclass(frozen=True)
class ProcessDelta:
    """What one process did over a window, in totals."""

    cpu_ns: int
    user_ns: int | None           # the split of cpu_ns by the kernel's tick samples; None when no tick fell
    system_ns: int | None
    voluntary_switches: int       # threads alive at the end: from their start in the window, or from zero
    involuntary_switches: int
    read_calls: int | None        # read-family calls (/proc/PID/io syscr)
    write_calls: int | None       # write-family calls (syscw)
    threads_ended: int            # threads gone by the end: their switches in the window are not counted
    send_calls: int | None = None  # send-family calls (the preloaded counter; None: not in the process)
    recv_calls: int | None = None  # recv-family calls


def _thread_delta(before: dict[int, int], after: dict[int, int]) -> int:
    """Summed over the threads alive at the end (a thread started in the window counts from zero)."""
    return sum(value - before.get(tid, 0) for tid, value in after.items())


def process_delta(before: ProcessCounters, after: ProcessCounters) -> ProcessDelta:
    if before.process_cpu_ns is not None and after.process_cpu_ns is not None:
        cpu = after.process_cpu_ns - before.process_cpu_ns
    else:  # no process clock on that host: the threads alive at the end
        cpu = _thread_delta(before.thread_cpu_ns, after.thread_cpu_ns)
    cpu = max(0, cpu)
    user_ticks, system_ticks = after.user_ticks - before.user_ticks, after.system_ticks - before.system_ticks
    user = system = None
    if user_ticks + system_ticks > 0:
        user = round(cpu * user_ticks / (user_ticks + system_ticks))
        system = cpu - user

    def diff(a: int | None, b: int | None) -> int | None:
        return None if a is None or b is None else b - a

    ended = sum(1 for tid in before.thread_cpu_ns if tid not in after.thread_cpu_ns)
    return ProcessDelta(cpu, user, system, _thread_delta(before.voluntary, after.voluntary),
                        _thread_delta(before.involuntary, after.involuntary),
                        diff(before.read_calls, after.read_calls), diff(before.write_calls, after.write_calls), ended,
                        diff(before.send_calls, after.send_calls), diff(before.recv_calls, after.recv_calls))


@dataclass(frozen=True)
class WireDelta:
    """A process's TCP traffic over a window, summed over its sockets (a socket opened during the window counts
    from zero; one closed during it is lost)."""

    bytes_out: int
    bytes_in: int
    segments_out: int
    segments_in: int
    retransmits: int
    sockets: int


def wire_delta(before: dict[int, SocketCounters], after: dict[int, SocketCounters]) -> WireDelta:
    zero = SocketCounters(0, "", "")
    totals = [0, 0, 0, 0, 0]
    for inode, now in after.items():
        was = before.get(inode, zero)
        totals[0] += now.bytes_out - was.bytes_out
        totals[1] += now.bytes_received - was.bytes_received
        totals[2] += now.data_segs_out - was.data_segs_out
        totals[3] += now.data_segs_in - was.data_segs_in
        totals[4] += now.retrans - was.retrans
    return WireDelta(*totals, sockets=len(after))


def _per_call(value: float | None, calls: int, digits: int = 3) -> float | None:
    return None if value is None or calls <= 0 else round(value / calls, digits)


def process_fields(role: str, delta: ProcessDelta, calls: int) -> dict[str, float | None]:
    """`<role>_cpu_us` ... per call. CPU in microseconds; reads and writes: the kernel's read- and write-family
    counts, recvs and sends: the counter's recv- and send-family counts (None without it)."""
    us = 1000.0
    return {
        f"{role}_cpu_us": _per_call(delta.cpu_ns / us, calls),
        f"{role}_user_us": _per_call(None if delta.user_ns is None else delta.user_ns / us, calls),
        f"{role}_sys_us": _per_call(None if delta.system_ns is None else delta.system_ns / us, calls),
        f"{role}_vcsw": _per_call(delta.voluntary_switches, calls),
        f"{role}_ivcsw": _per_call(delta.involuntary_switches, calls),
        f"{role}_reads": _per_call(delta.read_calls, calls),
        f"{role}_writes": _per_call(delta.write_calls, calls),
        f"{role}_recvs": _per_call(delta.recv_calls, calls),
        f"{role}_sends": _per_call(delta.send_calls, calls),
        f"{role}_threads_ended": delta.threads_ended,
    }


def wire_fields(delta: WireDelta, calls: int) -> dict[str, float | int | None]:
    """The client's connection, per call each way, and its retransmitted segments in the trial."""
    return {"wire_out_bytes": _per_call(delta.bytes_out, calls, 2), "wire_in_bytes": _per_call(delta.bytes_in, calls, 2),
            "wire_out_segs": _per_call(delta.segments_out, calls), "wire_in_segs": _per_call(delta.segments_in, calls),
            "tcp_retrans": delta.retransmits}


def memory_fields(role: str, memory: dict | None, calls: int) -> dict[str, float | int | None]:
    """A worker's `memory` counters (already a difference over the window of `calls`): allocations and bytes per
    call, collections and their time in the trial. Only the client reports its measuring thread's bytes."""
    memory = memory or {}
    fields = {
        f"{role}_allocs": _per_call(memory.get("allocations"), calls),
        f"{role}_alloc_bytes": _per_call(memory.get("allocated_bytes"), calls, 1),
        f"{role}_gc_count": memory.get("gc_count"),
        f"{role}_gc_ms": memory.get("gc_time_ms"),
    }
    if role == "client":
        fields["client_thread_alloc_bytes"] = _per_call(memory.get("thread_allocated_bytes"), calls, 1)
    return fields


def pairs_text(values: dict[str, float | int]) -> str:
    """{"a": 1, "b": 2.5} -> "a=1;b=2.5", the form of a name-value cell in trials.csv."""
    return ";".join(f"{k}={v:g}" for k, v in values.items())


def parse_pairs(text: str | None) -> dict[str, float]:
    """The inverse of pairs_text ("" or None: no pairs)."""
    out: dict[str, float] = {}
    for item in (text or "").split(";"):
        name, _, value = item.partition("=")
        if name and value:
            out[name] = float(value)
    return out


def memory_between(before: dict | None, after: dict | None) -> dict | None:
    """The difference of two cumulative `memory` objects (a server's stats lines)."""
    if not before or not after:
        return None
    return {k: after[k] - before[k] for k in after if k in before}


@dataclass(frozen=True)
class Window:
    """Where each worker ran and what the harness read there before and after a trial."""

    client_pid: int
    server_pid: int
    client_before: HostSnapshot
    client_after: HostSnapshot
    server_before: HostSnapshot     # the same snapshots as the client's when both run on one host
    server_after: HostSnapshot
    same_host: bool


def trial_fields(window: Window, window_calls: int, timed_calls: int, client_memory: dict | None,
                 server_memory: dict | None) -> dict:
    """Every anatomy field of a trial row. `window_calls`: calls the `run` command made (warm-up + timed);
    `client_memory`: the run answer's `memory`; `server_memory`: the difference of the server's stats lines."""
    fields: dict = {"anatomy_calls": window_calls}
    for role, pid, before, after in (("client", window.client_pid, window.client_before, window.client_after),
                                     ("server", window.server_pid, window.server_before, window.server_after)):
        a, b = before.processes.get(pid), after.processes.get(pid)
        if a is not None and b is not None:
            fields.update(process_fields(role, process_delta(a, b), window_calls))
    fields.update(memory_fields("client", client_memory, timed_calls))
    fields.update(memory_fields("server", server_memory, window_calls))
    client_sockets = window.client_after.sockets.get(window.client_pid)
    if client_sockets is not None:
        fields.update(wire_fields(wire_delta(window.client_before.sockets.get(window.client_pid, {}), client_sockets),
                                  window_calls))
    events = tcp_events(window.client_before.netstat, window.client_after.netstat)
    if not window.same_host:
        server_events = tcp_events(window.server_before.netstat, window.server_after.netstat)
        events = {k: events.get(k, 0) + server_events.get(k, 0) for k in set(events) | set(server_events)}
    fields["tcp_events"] = pairs_text({k: v for k, v in sorted(events.items()) if v})
    fields["tcp_timeouts"] = events.get("TcpExt.TCPTimeouts")
    return fields
