"""A local process's resident memory and CPU time, read from /proc (Linux)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

_TICK_NS = 1e9 / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class ProcessSample:
    rss_bytes: int
    cpu_ns: int  # user + system, all threads, since the process started


def sample(pid: int | str = "self") -> ProcessSample | None:
    """None when the process is gone."""
    base = Path("/proc") / str(pid)
    try:
        status = (base / "status").read_text()
        stat = (base / "stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    rss = next((int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    # Fields after the command name (which may hold spaces), from its closing parenthesis: utime is the 14th
    # field of the line, stime the 15th.
    fields = stat[stat.rindex(")") + 2:].split()
    cpu = int((int(fields[11]) + int(fields[12])) * _TICK_NS)
    return ProcessSample(rss, cpu)
