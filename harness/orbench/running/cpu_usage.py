"""How busy the hosts were during a trial, and where the workers were really allowed to run.

The 1-minute load average lags by a minute and counts the benchmark's own processes, so each trial also records,
from /proc deltas over the trial: on this machine, the share of all CPUs' time that processes outside orbench's
own process tree used (the harness and every worker it started are in that tree; anything else is other work
on the machine); the busy share of the CPUs the placement did not pin a worker to; and the steal share (the
hypervisor gave our vCPUs to someone else). These are read on the hosts the trial's workers ran on: this
machine for a local pair, over SSH for a remote one (a host's /proc says nothing about another's); for a pair
of two hosts the busier figure of the two is recorded.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from orbench.errors import WorkerError
from orbench.hosts.ssh import Host, HostUnreachable

# /proc/stat and /proc/loadavg of a remote host in one short command; the marker splits the two.
_SNAPSHOT_SCRIPT = "cat /proc/stat; echo @loadavg; cat /proc/loadavg"
# The kernel's unit of CPU time in /proc (USER_HZ).
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class Snapshot:
    """One reading of a host's CPU counters: per CPU (busy, total, steal) jiffies since boot, and the 1-minute
    load average. Empty where /proc is missing."""

    cpus: dict[int, tuple[int, int, int]]
    loadavg_1m: float | None
    # CPU jiffies of orbench's own processes by pid (own_tree_ticks); this machine only, None on a remote host
    own: dict[int, int] | None = None
    # Jiffies all CPUs spent in interrupts and softirqs (irq_ticks): on loopback most of it is the network stack
    # serving orbench's own sockets, charged to no process; and when the reading was taken (time.monotonic).
    irq: int = 0
    at: float | None = None


def parse_stat(text: str) -> dict[int, tuple[int, int, int]]:
    """Per CPU: (busy, total, steal) jiffies from /proc/stat's text."""
    out: dict[int, tuple[int, int, int]] = {}
    for line in text.splitlines():
        parts = line.split()
        if not parts or not parts[0].startswith("cpu") or parts[0] == "cpu":
            continue
        v = [int(x) for x in parts[1:]]
        idle = v[3] + (v[4] if len(v) > 4 else 0)  # idle + iowait
        steal = v[7] if len(v) > 7 else 0
        total = sum(v[:8])
        out[int(parts[0][3:])] = (total - idle - steal, total, steal)
    return out


def cpu_times() -> dict[int, tuple[int, int, int]]:
    """This machine's per-CPU counters (parse_stat); empty where /proc/stat is missing."""
    try:
        return parse_stat(Path("/proc/stat").read_text())
    except OSError:
        return {}


def irq_ticks(text: str) -> int:
    """Jiffies of all CPUs in hardware interrupts and softirqs, from /proc/stat's text (its "cpu" line)."""
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0] == "cpu":
            v = [int(x) for x in parts[1:]]
            return sum(v[5:7])
    return 0


def snapshot(host: Host) -> Snapshot:
    """A host's counters now: read directly on this machine, with one short SSH command on a remote host."""
    if host.spec.is_local:
        try:
            text = Path("/proc/stat").read_text()
        except OSError:
            text = ""
        return Snapshot(parse_stat(text), os.getloadavg()[0], own_tree_ticks(), irq_ticks(text), time.monotonic())
    out = host.run_shell(_SNAPSHOT_SCRIPT).stdout.decode(errors="replace")
    stat, _, loadavg = out.partition("@loadavg")
    fields = loadavg.split()
    return Snapshot(parse_stat(stat), float(fields[0]) if fields else None)


def _read_proc(path: str) -> bytes | None:
    """A small /proc file's bytes, None when it is gone: os-level reads, because a sliced trial reads the tree
    twice and pathlib's text reads made a reading 0.7-1.1 ms of the harness's time on a 2-vCPU VM (0.27-0.33 ms
    this way, with 8 children and 17 harness threads)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    chunks: list[bytes] = []
    try:
        # To its end: a process with hundreds of children lists more than one read's worth of pids.
        while chunk := os.read(fd, 4096):
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return b"".join(chunks)


def _children(pid: int, every_thread: bool) -> list[int]:
    """The pids a process started, from /proc/PID/task/TID/children (every thread's, or its main thread's)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task") if every_thread else [str(pid)]
    except OSError:
        return []
    out: list[int] = []
    for tid in tasks:
        text = _read_proc(f"/proc/{pid}/task/{tid}/children")
        if text:
            try:
                out += [int(c) for c in text.split()]
            except ValueError:
                continue
    return out


def _ticks(pid: int) -> int | None:
    stat = _read_proc(f"/proc/{pid}/stat")
    if stat is None:
        return None  # gone meanwhile
    # The command name (field 2) may hold spaces and parentheses: split after its closing parenthesis.
    fields = stat[stat.rfind(b")") + 2:].split()
    # utime + stime, and cutime + cstime: the time of children it has reaped (a short command the harness ran,
    # a worker that ended), which would otherwise vanish from the tree and read as other processes' work.
    return sum(int(f) for f in fields[11:15])


def own_tree_ticks(root: int | None = None) -> dict[int, int]:
    """CPU time (user + system jiffies, with those of the children each has reaped) of every live process in the
    tree under `root` (default: this process,
    the harness, whose children are the workers), by pid. Any thread of the harness may start a worker; a
    worker's own children are found from its main thread (workers do not fork from other threads), which keeps
    this to a few small reads even with JVM workers of dozens of threads."""
    root = os.getpid() if root is None else root
    out: dict[int, int] = {}
    todo = [(root, True)]
    while todo:
        pid, every_thread = todo.pop()
        ticks = _ticks(pid)
        if ticks is None or pid in out:
            continue
        out[pid] = ticks
        todo += [(child, False) for child in _children(pid, every_thread)]
    return out


def own_ticks_used(before: dict[int, int], after: dict[int, int]) -> int:
    """The tree's CPU time between two own_tree_ticks() readings (a process started meanwhile counts whole)."""
    return sum(t - before.get(pid, 0) for pid, t in after.items())


def foreign_cpu_pct(before: dict[int, tuple[int, int, int]], after: dict[int, tuple[int, int, int]],
                    own_ticks: int, irq: int = 0, wall_s: float | None = None) -> float | None:
    """The % of all CPUs' time, between two readings of this machine, that processes outside orbench's own tree
    used: everything busy minus what orbench's processes used and minus `irq` (interrupt and softirq jiffies, the
    network stack's work for orbench's sockets, charged to no process).

    Signed and not clipped: the kernel counts in jiffies (10 ms), a trial may last a few, and each count is off by
    up to one, so one trial's figure is noise around the truth; clipping it at zero, or dividing by the jiffies
    that happened to be counted, would bias every average upwards (a quiet machine then read as 20-30% busy).
    With `wall_s` (the time between the readings) the share is of the CPUs' wall-clock time, which makes the
    duration-weighted mean over trials (results.summary) an unbiased estimate."""
    busy = total = 0
    for cpu, (b1, t1, _s1) in after.items():
        b0, t0, _s0 = before.get(cpu, (b1, t1, 0))
        busy += b1 - b0
        total += t1 - t0
    if wall_s is not None and wall_s > 0 and after:
        total = len(after) * wall_s * CLOCK_TICKS
    return round(100.0 * (busy - irq - own_ticks) / total, 1) if total > 0 else None


def usage_between(before: dict[int, tuple[int, int, int]], after: dict[int, tuple[int, int, int]],
               pinned: set[int]) -> tuple[float | None, float | None]:
    """(busy % of the CPUs outside `pinned`, steal % of all CPUs) between two readings of one host."""
    other_busy = other_total = steal = total = 0
    for cpu, (b1, t1, s1) in after.items():
        b0, t0, s0 = before.get(cpu, (b1, t1, s1))
        steal += s1 - s0
        total += t1 - t0
        if pinned and cpu not in pinned:
            other_busy += b1 - b0
            other_total += t1 - t0
    return (round(100.0 * other_busy / other_total, 1) if other_total > 0 else None,
            round(100.0 * steal / total, 2) if total > 0 else None)


@dataclass(frozen=True)
class HostUsage:
    """The load figures a trial records (trial.Measurement): the busiest of the hosts read."""

    loadavg_1m: float | None
    other_cpus_busy_pct: float | None
    steal_pct: float | None
    usage_hosts: str
    foreign_cpu_pct: float | None = None

    def as_fields(self) -> dict[str, float | str | None]:
        return {"loadavg_1m": self.loadavg_1m, "other_cpus_busy_pct": self.other_cpus_busy_pct,
                "steal_pct": self.steal_pct, "usage_hosts": self.usage_hosts, "foreign_cpu_pct": self.foreign_cpu_pct}


def pair_usage(before: dict[str, Snapshot], after: dict[str, Snapshot], pinned: dict[str, set[int]]) -> HostUsage:
    """The figures of a trial from readings of each host (by name) before and after it; `pinned`: the CPUs each
    host's workers were pinned to."""
    busy: list[float] = []
    steal: list[float] = []
    foreign: list[float] = []
    for name, end in after.items():
        start = before[name]
        b, s = usage_between(start.cpus, end.cpus, pinned.get(name, set()))
        busy += [b] if b is not None else []
        steal += [s] if s is not None else []
        if start.own is not None and end.own is not None:
            wall = end.at - start.at if start.at is not None and end.at is not None else None
            f = foreign_cpu_pct(start.cpus, end.cpus, own_ticks_used(start.own, end.own), end.irq - start.irq, wall)
            foreign += [f] if f is not None else []
    loads = [a.loadavg_1m for a in after.values() if a.loadavg_1m is not None]
    return HostUsage(max(loads) if loads else None, max(busy) if busy else None, max(steal) if steal else None,
                     " ".join(after), max(foreign) if foreign else None)


class UsageReading:
    """The load of a trial's hosts: read before the trial's `run` and after its answer (this module)."""

    def __init__(self, hosts: dict[str, tuple[Host, set[int]]]):
        self.hosts = hosts
        self.before = self._read()

    def _read(self) -> dict[str, Snapshot]:
        try:
            if len(self.hosts) == 1:
                return {name: snapshot(host) for name, (host, _pinned) in self.hosts.items()}
            # Every host at once: one SSH command each, so the readings stay close to the trial's edges.
            with ThreadPoolExecutor(max_workers=len(self.hosts)) as pool:
                read = pool.map(lambda entry: snapshot(entry[0]), self.hosts.values())
                return dict(zip(self.hosts, read))
        except (HostUnreachable, RuntimeError) as exc:
            raise WorkerError(f"cannot read the load of the trial's hosts: {exc}", "load") from None

    def end(self) -> HostUsage:
        return pair_usage(self.before, self._read(), {name: pinned for name, (_h, pinned) in self.hosts.items()})


def cpus_allowed(pid: int) -> str | None:
    """The CPU list the kernel lets a process run on (what pinning really achieved), None if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Cpus_allowed_list:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None
