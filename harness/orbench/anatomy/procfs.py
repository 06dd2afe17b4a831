"""One process's cumulative counters as the kernel keeps them in /proc/PID (Linux).

- CPU time: the exact on-CPU time is the scheduler's sum_exec_runtime, in ns, per thread
  (/proc/PID/task/TID/schedstat, first field), summed over the threads alive at the moment. Its split into
  user and system time comes from /proc/PID/stat (utime, stime: the whole process, ended threads included),
  which the kernel samples at each timer tick (CONFIG_HZ, e.g. 250 per second) and reports in clock ticks
  (USER_HZ, 100 per second): the split of a short trial is coarse, its total is not.
- Context switches: voluntary (the thread blocked: a read with no data, a futex) and involuntary (preempted),
  per thread in /proc/PID/task/TID/status, summed.
- /proc/PID/io syscr and syscw count read(2)- and write(2)-family calls (read, readv, pread, write, writev...),
  the whole process. send(2), recv(2), sendmsg(2) and recvmsg(2) are NOT counted there: a worker that talks to
  its socket with send/recv (the C baseline, omniORB) shows only its other reads and writes. The full syscall
  mix needs the anatomy mode (strace.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

# /proc/PID/stat reports utime and stime in these units (sysconf(_SC_CLK_TCK), 100 on Linux).
CLOCK_TICKS_PER_S = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class ProcessCounters:
    """One process's counters since it started, at one moment."""

    pid: int
    cpu_ns: int                 # sum of the live threads' on-CPU time (schedstat), exact
    user_ticks: int             # /proc/PID/stat utime, clock ticks, whole process
    system_ticks: int           # /proc/PID/stat stime
    voluntary_switches: int     # summed over the live threads
    involuntary_switches: int
    read_calls: int | None      # /proc/PID/io syscr (None when not readable)
    write_calls: int | None     # /proc/PID/io syscw
    threads: int


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


def sum_schedstat(text: str) -> tuple[int, int]:
    """(sum of on-CPU ns, number of threads) from the schedstat lines of every thread, one line each."""
    total = threads = 0
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0].isdigit():
            total += int(fields[0])
            threads += 1
    return total, threads


def sum_switches(text: str) -> tuple[int, int]:
    """(voluntary, involuntary) from `voluntary_ctxt_switches:` / `nonvoluntary_ctxt_switches:` lines."""
    voluntary = involuntary = 0
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if not value.strip().isdigit():
            continue
        if key.strip().endswith("nonvoluntary_ctxt_switches"):
            involuntary += int(value)
        elif key.strip().endswith("voluntary_ctxt_switches"):
            voluntary += int(value)
    return voluntary, involuntary


def process_counters(pid: int, sections: dict[str, str]) -> ProcessCounters | None:
    """Counters from the sections the snapshot script prints for one pid (stat, io, schedstat, status); None
    when the process was gone."""
    if not sections.get("stat", "").strip():
        return None
    user, system = parse_stat(sections["stat"])
    reads, writes = parse_io(sections.get("io", ""))
    cpu_ns, threads = sum_schedstat(sections.get("schedstat", ""))
    voluntary, involuntary = sum_switches(sections.get("status", ""))
    return ProcessCounters(pid, cpu_ns, user, system, voluntary, involuntary, reads, writes, threads)
