"""GC pauses from a JVM's unified GC log (-Xlog:gc*:file=...:time,uptime,level,tags), as wall-clock intervals.

A pause is logged once, when it ends, on a [gc] line such as
  [2026-11-21T06:23:59.013+0000][1.234s][info][gc] GC(3) Pause Young (Normal) (G1 Evacuation Pause) 24M->3M(256M) 2.345ms
so its start is the line's time minus its duration. Concurrent phases (G1's "Concurrent Mark Cycle") do not stop
the application and are not pauses; they are left out. The [gc,start] line of the same pause carries no
duration and is skipped too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

_LINE = re.compile(r"^\[(?P<time>\d{4}-\d\d-\d\dT[\d:.]+[+-]\d{4})\](?:\[[\d.]+s\])?\[\w+\s*\]\[gc\s*\]\s+"
                   r"GC\((?P<id>\d+)\)\s+(?P<what>Pause .*?)\s+(?P<ms>[\d.]+)ms\s*$")


@dataclass(frozen=True)
class GcPause:
    gc_id: int
    what: str
    end_unix: float
    duration_ms: float
    log: str

    @property
    def start_unix(self) -> float:
        return self.end_unix - self.duration_ms / 1e3


def parse_gc_log(path: Path | str) -> list[GcPause]:
    path = Path(path)
    pauses = []
    for line in path.read_text(errors="replace").splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        when = datetime.strptime(m["time"], "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()
        pauses.append(GcPause(int(m["id"]), m["what"], when, float(m["ms"]), path.name))
    return pauses


def gc_logs(logs_dir: Path, workers: str) -> dict[str, list[Path]]:
    """The GC logs of one set of workers (their tag: point.Point.workers_slug), by role; a restart writes a new
    file (session.TargetSession.start)."""
    return {role: sorted(logs_dir.glob(f"{workers}-{role}-gc-*.log")) for role in ("client", "server")}


def pause_summary(pauses: list[GcPause]) -> dict[str, float | int]:
    if not pauses:
        return {"pauses": 0, "total_ms": 0.0, "max_ms": 0.0}
    return {"pauses": len(pauses), "total_ms": round(sum(p.duration_ms for p in pauses), 3),
            "max_ms": max(p.duration_ms for p in pauses)}
