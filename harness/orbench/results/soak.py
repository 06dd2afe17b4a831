"""A soak point's record (the manifest's `soaks` list) and its files: one record per point, target and launch,
its files in its own directory of the run (`dir`, soak/<point slug>-l<launch>/ since schema 10; soak/ for a soak
of schema 9 and before, which upgrade.py turns into one record).

The directory holds (harness/campaigns/README.md, "Soak runs"):
- client-<k>.hlog: client k's HdrHistogram interval log;
- intervals.jsonl: one line per client and interval (the worker's fields without the buckets);
- resources.jsonl: per interval, resident memory and CPU time of the harness, the server and every client,
  each read on the host it runs on (`host`);
- gaps.jsonl: per resume, the gap between the last interval kept and the restart.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orbench.results.codec import flat, from_json, nullable, to_json
from orbench.results.point import Point

FILES = ("intervals.jsonl", "resources.jsonl", "gaps.jsonl")


@dataclass
class SoakRecord:
    point: Point = flat()
    launch: int
    dir: str                      # relative to the run directory
    duration_s: float
    interval_s: float
    arrivals: str = "fixed"       # "fixed" or "poisson" (with a rate)
    seed: int | None = nullable()  # Poisson: client k's seed is seed + k
    warmup: int = 0               # untimed calls per client before the first interval
    start_unix: float = 0.0       # when the soak first began (the logs' StartTime)
    status: str = "running"       # running, finished, failed, interrupted
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)   # by client number: the `run` answer
    failures: dict[str, str] = field(default_factory=dict)             # by client number or "setup": why
    hosts: dict[str, str] = field(default_factory=dict)                # role -> host name
    resumed: list[dict[str, Any]] = field(default_factory=list)

    def path(self, run_dir: Path) -> Path:
        return Path(run_dir) / self.dir

    def matches(self, point: Point, launch: int) -> bool:
        return self.point == point and self.launch == launch

    def to_json(self) -> dict[str, Any]:
        return to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SoakRecord:
        return from_json(cls, data)


def soak_records(manifest: dict[str, Any]) -> list[SoakRecord]:
    """The soak points of a run's manifest (as read: upgraded), in the order they ran."""
    return [SoakRecord.from_json(r) for r in manifest.get("soaks") or []]


def soak_dir_name(point: Point, launch: int) -> str:
    return f"soak/{point.slug}-l{launch}"


def read_jsonl(path: os.PathLike) -> list[dict]:
    """The lines of a soak's .jsonl file; a last line cut by a crash is left out."""
    rows = []
    try:
        with open(path) as f:
            for line in f:
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    break
    except FileNotFoundError:
        return []
    return rows
