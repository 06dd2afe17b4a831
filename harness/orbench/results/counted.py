"""The counting mode's records: one per worker and point, in counts/counts.jsonl of a run.

A worker run under callgrind (counted.py in running) has its instructions per call from each differenced pair of
runs (`per_call`, one value per repeat), and its functions' self and inclusive instructions over the differenced
calls in counts/<point slug>.<role>.functions.tsv (`function<TAB>self<TAB>inclusive`, summed over the repeats:
divide by `calls`), with folded stacks for a flame graph beside it (.folded, the same instructions). A JVM worker
has no instruction count (its JIT makes one meaningless): `jvm` holds the JVM's own deterministic counters per
call instead.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from orbench.results.point import Point

COUNTS_DIR = "counts"
RECORDS_FILE = "counts.jsonl"


@dataclass(frozen=True)
class CountRecord:
    point: Point
    role: str                                  # client or server
    counter: str                               # callgrind, or jvm (the JVM's own counters)
    version: str                               # valgrind's or the JVM's word on its version
    calls: int                                 # the differenced calls over all repeats: the divisor of the files
    runs: tuple[int, int]                      # [N1, N2]: the calls of the two runs of each repeat
    per_call: tuple[float, ...] = ()           # instructions per call of each repeat (callgrind)
    # Of them, those in the allocators (per repeat), and the calls into them per call: counted apart, because their
    # instructions for the same calls hang on the heap's state, which thread timing sets (anatomy/callgrind.py).
    allocator: tuple[float, ...] = ()
    allocator_calls: tuple[float, ...] = ()
    functions_file: str | None = None          # relative to the run directory (callgrind)
    folded_file: str | None = None
    jvm: dict[str, float] = field(default_factory=dict)  # the JVM's counters per call (jvm)
    worker: dict[str, Any] = field(default_factory=dict)  # the worker's own words (ready line, hello)
    error: str | None = None                   # why there is no count

    @property
    def central(self) -> tuple[int, ...]:
        """The repeats the record's figures come from: all of one or two; of more, the middle one (or two) by their
        count outside the allocators. A path that timing changes now and then (a read that finds two oneway
        requests, a write the socket takes in part) moves one repeat, and the median leaves it out, where a mean
        would carry it into the run's figure."""
        n = len(self.per_call)
        if n <= 2:
            return tuple(range(n))
        by = self.outside_allocator or self.per_call
        order = sorted(range(n), key=lambda i: by[i])
        return tuple(order[(n - 1) // 2:n // 2 + 1])

    def central_mean(self, values: tuple[float, ...]) -> float | None:
        """The mean of values (one per repeat) over the central repeats."""
        if len(values) != len(self.per_call) or not values:
            return None
        return sum(values[i] for i in self.central) / len(self.central)

    @property
    def instructions_per_call(self) -> float | None:
        return self.central_mean(self.per_call)

    @property
    def spread_pct(self) -> float | None:
        """How far all the repeats' per-call counts lie apart, % of per_call (0: the same to the instruction)."""
        mean = self.instructions_per_call
        if not mean or len(self.per_call) < 2:
            return None
        return (max(self.per_call) - min(self.per_call)) / mean * 100

    @property
    def outside_allocator(self) -> tuple[float, ...]:
        """Each repeat's instructions per call outside the allocators (none when the record has no split)."""
        if len(self.allocator) != len(self.per_call):
            return ()
        return tuple(p - a for p, a in zip(self.per_call, self.allocator))

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["point"] = self.point.as_record()
        out["runs"] = list(self.runs)
        out["per_call"] = list(self.per_call)
        out["allocator"] = list(self.allocator)
        out["allocator_calls"] = list(self.allocator_calls)
        return {k: v for k, v in out.items() if v is not None and v != {} and v != []}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CountRecord:
        return cls(**{**data, "point": Point.from_record(data["point"]), "runs": tuple(data["runs"]),
                      "per_call": tuple(data.get("per_call", ())), "allocator": tuple(data.get("allocator", ())),
                      "allocator_calls": tuple(data.get("allocator_calls", ()))})


def counts_dir(run_dir: Path) -> Path:
    directory = run_dir / COUNTS_DIR
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def append_record(run_dir: Path, record: CountRecord) -> None:
    with open(counts_dir(run_dir) / RECORDS_FILE, "a") as f:
        f.write(json.dumps(record.to_json(), sort_keys=True) + "\n")


def read_records(run_dir: Path) -> list[CountRecord]:
    """The run's count records, the last one kept for each point and role."""
    path = run_dir / COUNTS_DIR / RECORDS_FILE
    if not path.exists():
        return []
    latest: dict[tuple[Point, str], CountRecord] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            r = CountRecord.from_json(json.loads(line))
            latest[(r.point, r.role)] = r
    return list(latest.values())


def write_functions(path: Path, functions: dict[str, tuple[int, int]]) -> None:
    """function -> (self, inclusive) instructions, heaviest self first."""
    rows = sorted(functions.items(), key=lambda kv: (-kv[1][0], kv[0]))
    path.write_text("".join(f"{f}\t{s}\t{i}\n" for f, (s, i) in rows))


def read_functions(path: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for line in path.read_text().splitlines():
        name, _, rest = line.rpartition("\t")
        function, _, self_count = name.rpartition("\t")
        if function:
            out[function] = (int(self_count), int(rest))
    return out
