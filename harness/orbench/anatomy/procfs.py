"""One process's cumulative counters as the kernel keeps them in /proc/PID (Linux).

- CPU time: the exact on-CPU time is the scheduler's sum_exec_runtime, in ns: for the whole process, ended
  threads included, through the process's CPU clock (clock_gettime of clock id ((~pid) << 3) | 2, the
  CPUCLOCK_SCHED of the process, which any process may read; the snapshot script asks perl or python3), and
  per thread in /proc/PID/task/TID/schedstat (first field), which misses a thread that ended. Its split into
  user and system time comes from /proc/PID/stat (utime, stime: the whole process, ended threads included),
  which the kernel samples at each timer tick (CONFIG_HZ, e.g. 250 per second) and reports in clock ticks
  (USER_HZ, 100 per second): the split of a short trial is coarse, its total is not.
- Context switches: voluntary (the thread blocked: a read with no data, a futex) and involuntary (preempted),
  per thread in /proc/PID/task/TID/status. Only live threads have them: a thread that ends during a trial
  (JacORB's request processors come and go in oneway floods) takes its last switches along, so the process's
  count is then a lower bound; the trial records how many threads ended.
- /proc/PID/io syscr and syscw count read(2)- and write(2)-family calls (read, readv, preadv, write, writev...),
  the whole process, whatever their outcome. The send and recv families (send, sendto, sendmsg, sendmmsg, recv,
  recvfrom, recvmsg, recvmmsg) are NOT counted there: a worker that talks to its socket with them (the C
  baseline, omniORB, gRPC) shows only its other reads and writes. The counter preloaded into the workers counts
  those (syscount.py); the full syscall mix needs the anatomy mode (strace.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from orbench.anatomy.syscount import parse_region

# /proc/PID/stat reports utime and stime in these units (sysconf(_SC_CLK_TCK), 100 on Linux).
CLOCK_TICKS_PER_S = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class ProcessCounters:
    """One process's counters since it started, at one moment."""

    pid: int
    process_cpu_ns: int | None       # the process CPU clock: every thread, ended ones included (None: unread)
    user_ticks: int                  # /proc/PID/stat utime, clock ticks, whole process
    system_ticks: int                # /proc/PID/stat stime
    read_calls: int | None           # /proc/PID/io syscr (None when not readable)
    write_calls: int | None          # /proc/PID/io syscw
    thread_cpu_ns: dict[int, int]    # by live thread id: on-CPU ns (schedstat)
    voluntary: dict[int, int]        # by live thread id: voluntary context switches
    involuntary: dict[int, int]
    rss_bytes: int | None = None     # /proc/PID/status VmRSS: resident memory now (a soak's per interval)
    send_calls: int | None = None    # send-family calls (syscount.py; None: the counter is not in the process)
    recv_calls: int | None = None    # recv-family calls


def parse_stat(text: str) -> tuple[int, int]:
    """(utime, stime) in clock ticks from one /proc/PID/stat line. The command name (field 2) may hold spaces
    and parentheses, so fields are counted from the last ')'."""
    rest = text[text.rindex(")") + 2:].split()
    # rest[0] is field 3 (state); utime and stime are fields 14 and 15.
    return int(rest[11]), int(rest[12])


def parse_io(text: str) -> tuple[int | None, int | None]:
    values = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if value.strip().isdigit():
            values[key.strip()] = int(value)
    return values.get("syscr"), values.get("syscw")


def _tid(path: str) -> int | None:
    """The thread id of a /proc/PID/task/TID/... path (as `grep -H` prefixes its lines)."""
    parts = path.split("/")
    return int(parts[4]) if len(parts) > 4 and parts[3] == "task" and parts[4].isdigit() else None


def thread_schedstat(text: str) -> dict[int, int]:
    """On-CPU ns by thread from `grep -H '' /proc/PID/task/*/schedstat` lines (path:runtime wait slices)."""
    out = {}
    for line in text.splitlines():
        path, _, value = line.partition(":")
        fields, tid = value.split(), _tid(path)
        if tid is not None and fields and fields[0].isdigit():
            out[tid] = int(fields[0])
    return out


def thread_switches(text: str) -> tuple[dict[int, int], dict[int, int]]:
    """(voluntary, involuntary) by thread from `grep -H ctxt_switches /proc/PID/task/*/status` lines."""
    voluntary: dict[int, int] = {}
    involuntary: dict[int, int] = {}
    for line in text.splitlines():
        path, _, rest = line.partition(":")
        key, _, value = rest.partition(":")
        tid = _tid(path)
        if tid is None or not value.strip().isdigit():
            continue
        (involuntary if key.strip() == "nonvoluntary_ctxt_switches" else voluntary)[tid] = int(value)
    return voluntary, involuntary


def parse_rss(text: str) -> int | None:
    """Bytes from a `VmRSS:  1234 kB` line (None when absent: a kernel thread, a process gone)."""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        parts = value.split()
        if key.strip() == "VmRSS" and parts and parts[0].isdigit():
            return int(parts[0]) * 1024
    return None


def process_counters(pid: int, sections: dict[str, str], process_cpu_ns: int | None) -> ProcessCounters | None:
    """Counters from the sections the snapshot script prints for one pid (stat, io, schedstat, status, rss,
    syscount); None when the process was gone."""
    if not sections.get("stat", "").strip():
        return None
    user, system = parse_stat(sections["stat"])
    reads, writes = parse_io(sections.get("io", ""))
    voluntary, involuntary = thread_switches(sections.get("status", ""))
    socket_calls = parse_region(sections.get("syscount", ""), pid)
    return ProcessCounters(pid, process_cpu_ns, user, system, reads, writes,
                           thread_schedstat(sections.get("schedstat", "")), voluntary, involuntary,
                           parse_rss(sections.get("rss", "")),
                           None if socket_calls is None else socket_calls.sends,
                           None if socket_calls is None else socket_calls.recvs)
