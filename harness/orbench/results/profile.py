"""The profile mode's records: one per worker of each profiled trial, in profiles/profiles.jsonl of a run.

The profiled trial itself (its latency is not a result: a profiler samples the workers) is a row of
profiled.csv, same columns as trials.csv; its anatomy counters (CPU time per call) come from the same trial.
Each worker's stacks are in profiles/<point slug>.<role>.folded, the folded-stack text flame graph tools and
speedscope read, as raw sample counts; the record says what one sample stands for and the calls to divide by.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from orbench.results.point import Point

PROFILES_DIR = "profiles"
RECORDS_FILE = "profiles.jsonl"
ROLES = ("client", "server")


@dataclass(frozen=True)
class ProfileRecord:
    point: Point
    role: str                 # client or server
    host: str                 # where the worker ran (and was profiled)
    profiler: str             # perf, async-profiler, py-spy
    version: str              # the profiler's own word on its version
    event: str                # what was sampled: cpu-clock, cpu-clock:u (user space only), cpu, wall-clock
    period_ns: int            # the CPU time one sample stands for
    calls: int                # the calls the profiled `run` command made (warm-up and timed): the divisor
    samples: int
    file: str | None          # the folded stacks, relative to the run directory; None when the profile failed
    error: str | None = None  # why there is no profile

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["point"] = self.point.as_record()
        return {k: v for k, v in out.items() if v is not None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProfileRecord:
        return cls(**{**data, "point": Point.from_record(data["point"]), "file": data.get("file"),
                      "error": data.get("error")})


def folded_path(run_dir: Path, point: Point, role: str) -> Path:
    directory = run_dir / PROFILES_DIR
    directory.mkdir(parents=True, exist_ok=True)
    return directory / f"{point.slug}.{role}.folded"


def append_record(run_dir: Path, record: ProfileRecord) -> None:
    directory = run_dir / PROFILES_DIR
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / RECORDS_FILE, "a") as f:
        f.write(json.dumps(record.to_json(), sort_keys=True) + "\n")


def read_records(run_dir: Path) -> list[ProfileRecord]:
    """The run's profile records, the last one kept for each point and role (a resumed run may profile again)."""
    path = run_dir / PROFILES_DIR / RECORDS_FILE
    if not path.exists():
        return []
    latest: dict[tuple[Point, str], ProfileRecord] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            r = ProfileRecord.from_json(json.loads(line))
            latest[(r.point, r.role)] = r
    return list(latest.values())
