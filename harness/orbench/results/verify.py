"""`orbench verify`'s check of a run directory, like `git fsck`: every file a reader would use, read the way the
readers read it (integrity.py), and what is damaged listed rather than left out.

A run is damaged when it has fatal damage (nothing to compute on: its manifest or its trials table), a damaged
trial in any of its tables (trials.csv and the anatomy and profile modes' traced.csv and profiled.csv), a soak
point whose interval log (or a counting run whose counts.jsonl) is missing or broken before its last line, or
an ingested JMH run whose rows are not JSON. summary.json is derived data and checked by the summary layer (summary.read_summary).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from orbench.errors import UserError
from orbench.results import integrity
from orbench.results.counted import COUNTS_DIR, RECORDS_FILE
from orbench.results.integrity import Damage
from orbench.results.soak import soak_records


@dataclass
class RunCheck:
    """What verifying one run found: a fatal error, the damage, and how much was checked."""

    path: Path
    fatal: str | None = None
    damage: list[Damage] = field(default_factory=list)
    trials: int = 0                 # rows read, damaged or not, over the tables
    samples_files: int = 0          # samples files read in full (checksum and values)

    @property
    def damaged(self) -> bool:
        return self.fatal is not None or bool(self.damage)

    def lines(self) -> list[str]:
        if self.fatal:
            return [f"{self.path}: DAMAGED: {self.fatal}"]
        if not self.damage:
            return [f"{self.path}: ok ({self.trials} trials, {self.samples_files} samples files read in full)"]
        return [f"{self.path}: DAMAGED: {len(self.damage)} problem(s) ({self.trials} trials read)",
                *(f"  {d}" for d in self.damage)]


def verify_run(run_dir: Path) -> RunCheck:
    check = RunCheck(run_dir)
    try:
        manifest = integrity.read_manifest(run_dir)
        for table in integrity.TABLES:
            _manifest, read = integrity.read_table(run_dir, table, full=True)
            check.damage += read.damage
            check.trials += len(read.trials) + len(read.damage)
            check.samples_files += sum(1 for t in read.trials if t.ok and t.samples_file)
    except UserError as exc:
        check.fatal = str(exc).replace(f"{run_dir}/", "")
        return check
    check.damage += _soak_damage(run_dir, manifest)
    counts = Path(COUNTS_DIR) / RECORDS_FILE
    if "counting" in manifest and (run_dir / counts).exists():  # none when no worker could be counted
        check.damage += _jsonl_damage(run_dir, counts, "the counting mode's records")
    if manifest.get("kind") == "jmh":
        check.damage += _json_damage(run_dir, ("jmh.json", "jmh-rows.json"))
    return check


def _soak_damage(run_dir: Path, manifest: dict) -> list[Damage]:
    out = []
    for record in soak_records(manifest):
        log = Path(record.dir) / "intervals.jsonl"
        if record.status == "running" and not (run_dir / log).exists():
            continue  # not begun when the run stopped: nothing was measured
        out += _jsonl_damage(run_dir, log, f"soak of {record.point.label} launch {record.launch}")
    return out


def _jsonl_damage(run_dir: Path, log: Path, whose: str) -> list[Damage]:
    """A JSON-lines record missing, or broken before its last line (a last line cut by a crash is expected: its
    readers leave it out)."""
    if not (run_dir / log).is_file():
        return [Damage(str(log), f"missing ({whose})")]
    lines = (run_dir / log).read_text(errors="replace").splitlines()
    for n, line in enumerate(lines[:-1], start=1):
        try:
            json.loads(line)
        except json.JSONDecodeError as exc:
            return [Damage(f"{log}:{n}", f"not JSON ({exc.msg})")]
    return []


def _json_damage(run_dir: Path, names: tuple[str, ...]) -> list[Damage]:
    out = []
    for name in names:
        try:
            json.loads((run_dir / name).read_text())
        except FileNotFoundError:
            out.append(Damage(name, "missing"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            out.append(Damage(name, f"not JSON ({exc})"))
    return out


# The guide's reference set (results/reference/) keeps a run's manifest, summary and report without its raw
# samples, and says so with this file: it is no run to check.
KEPT_SUMMARY = "reference.json"


def runs_under(root: Path) -> list[Path]:
    """Every run directory (one with a manifest.json) under `root`, each once (rglob does not follow the
    `latest` links)."""
    return sorted({p.parent.resolve() for p in root.rglob("manifest.json")
                   if not (p.parent / KEPT_SUMMARY).exists()})
