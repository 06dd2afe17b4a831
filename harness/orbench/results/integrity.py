"""A run's files checked as they are read, the way `git fsck` checks a repository: the one way in for every
reader of a run (RunStore.read, `orbench verify`).

Two kinds of damage:
- **fatal**: nothing left to compute on (no manifest or one that is not JSON or breaks manifest.schema.json, a
  campaign run without its trials table, a table with no header or no readable row): a UserError naming the
  file, and the reader writes nothing;
- **a damaged trial**: its trials.csv row cut short or with a cell that is not of its column's type, or its
  samples file missing, of another size or SHA-256 than its row records (since schema 14), or holding a
  latency no clock gives (<= 0, or longer than MAX_SAMPLE_NS): a Damage naming the file and the row's line,
  and the trial is left out of every statistic.

A full check reads every samples file (checksum and values); a quick one only stats them (size), for readers
that use a summary.json computed earlier (summary.read_summary) and only need to know whether damage appeared
since.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from orbench.errors import UserError
from orbench.results.point import Point
from orbench.results.trial import STATUSES, Trial, from_row
from orbench.results.upgrade import upgrade

# No call of a benchmark lasts an hour: the watchdog and the trial timeouts end a trial long before. A longer
# latency is damage (a byte-swapped or overwritten file), not a measurement.
MAX_SAMPLE_NS = 3_600_000_000_000
SAMPLE_BYTES = 8  # little-endian int64 nanoseconds (PROTOCOL.md)

MANIFEST = "manifest.json"
TRIALS = "trials.csv"
TRACED = "traced.csv"
PROFILED = "profiled.csv"
TABLES = (TRIALS, TRACED, PROFILED)


@dataclass(frozen=True)
class Damage:
    """One damaged thing of a run: the file (relative to the run directory), what is wrong, and the trial it
    takes out of the statistics: its row's table and line, and the trial as a reader names it."""

    file: str
    what: str
    table: str | None = None     # the trials table whose row this is (trials.csv, traced.csv, profiled.csv)
    line: int | None = None      # the row's line in it (the header is line 1)
    trial: str | None = None     # "<point label> launch L trial T"

    @property
    def row(self) -> str | None:
        return f"{self.table}:{self.line}" if self.table and self.line else None

    @property
    def key(self) -> tuple[str, str | None]:
        """What a quick and a full check agree on: the damaged file and the row."""
        return (self.file, self.row)

    def __str__(self) -> str:
        if self.file == self.table:
            return f"{self.row or self.file}: {self.what}"
        where = ", ".join(w for w in (self.row, self.trial) if w)
        return f"{self.file}: {self.what}" + (f" ({where})" if where else "")


@dataclass(frozen=True)
class CheckedTable:
    """A trials table's readable, undamaged trials in the order written, and what was left out."""

    trials: list[Trial]
    damage: list[Damage]


def samples_digest(path: Path) -> tuple[int, str]:
    """A samples file's size in bytes and SHA-256 (hex): what trials.csv records as its row is written."""
    with open(path, "rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
    return path.stat().st_size, digest


def load_manifest(run_dir: Path) -> dict[str, Any]:
    """manifest.json as written (not upgraded), checked to be a JSON object with an integer schema version."""
    path = run_dir / MANIFEST
    if not path.is_file():
        raise UserError(f"{path}: missing: a run directory's manifest (nothing to read without it)")
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: line {exc.lineno} column {exc.colno}: not JSON ({exc.msg})") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: not a JSON object")
    version = data.get("schema_version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise UserError(f"{path}: key schema_version: value {version!r}: not a results schema version")
    return data


def check_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """The upgraded manifest against manifest.schema.json: its first mistake, named by key, as a UserError."""
    import jsonschema

    from orbench.schemas import explain, schema, where

    rules = schema("orbench.results", "manifest")
    errors = sorted(jsonschema.Draft202012Validator(rules).iter_errors(manifest), key=lambda e: list(e.path))
    if not errors:
        return
    first, path = errors[0], run_dir / MANIFEST
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    if first.validator == "required":
        missing = [k for k in first.validator_value if k not in first.instance]
        inside = f" in {where(first)}" if first.absolute_path else ""
        raise UserError(f"{path}: no key {missing[0]!r}{inside}, which a {manifest.get('kind')} run has{more}")
    raise UserError(explain(path, first, rules)[:300] + more)


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The manifest in the current layout, checked."""
    manifest, _rows = upgrade(load_manifest(run_dir), [])
    check_manifest(run_dir, manifest)
    return manifest


# What read_table found, by run, table, depth and the two files' stat, with the stat of every samples file it
# read: `orbench run` reads its run's table three times (the summary, the report's summary and its sample
# figures), each reading and hashing every samples file: 0.5 s a time for quick on a 2-vCPU VM, against 17 ms to
# find it again with a stat of each of its 1012 samples files. Any of those files written since (a resume, a trial
# appended, a samples file damaged) has another stat, and the table is read again.
_CHECKED: dict[tuple, tuple[dict[str, Any], CheckedTable, tuple]] = {}


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def read_table(run_dir: Path, name: str, full: bool = True) -> tuple[dict[str, Any], CheckedTable]:
    """The upgraded manifest and one trials table's undamaged trials. Fatal damage raises UserError.

    A damaged row that a later row of the same trial supersedes (a resume ran the trial again: a row cut by a
    crash, a samples file the new run overwrote) is no damage: the run's record of that trial is the later row.
    Read once per process while none of the files it read changes (_CHECKED); each caller gets its own manifest."""
    files = (str(run_dir.resolve()), name, _stamp(run_dir / name), _stamp(run_dir / MANIFEST))
    for depth in (full, True):
        found = _CHECKED.get((*files, depth))
        if found is not None and found[2] == _samples_stamps(run_dir, found[1]):
            break
    else:
        manifest, table = _read_table(run_dir, name, full)
        found = _CHECKED[(*files, full)] = (manifest, table, _samples_stamps(run_dir, table))
    manifest, table, _ = found
    return copy.deepcopy(manifest), CheckedTable(list(table.trials), list(table.damage))


def _samples_stamps(run_dir: Path, table: CheckedTable) -> tuple:
    """The stat of every samples file a checked table names, its undamaged trials' and its damaged ones'."""
    files = [t.samples_file for t in table.trials if t.samples_file] + [d.file for d in table.damage]
    return tuple(_stamp(run_dir / f) for f in files)


def _read_table(run_dir: Path, name: str, full: bool) -> tuple[dict[str, Any], CheckedTable]:
    raw = load_manifest(run_dir)
    path = run_dir / name
    if not path.exists():
        manifest, _ = upgrade(raw, [])
        check_manifest(run_dir, manifest)
        if name == TRIALS and measures_trials(manifest):
            raise UserError(f"{path}: missing: a campaign run's trials table (nothing to compute on)")
        return manifest, CheckedTable([], [])
    read = _csv_rows(path)
    manifest, _ = upgrade(raw, [r.cells for r in read])
    check_manifest(run_dir, manifest)
    found: list[tuple[Row, Trial | None, Damage | None]] = []
    for row in read:
        trial, hurt = _checked_row(run_dir, name, row, full)
        found.append((row, trial, hurt))
    last = {key: n for n, (row, trial, _) in enumerate(found) if (key := trial.key if trial else row.key)}
    trials = [t for _row, t, hurt in found if t is not None and hurt is None]
    damage = [hurt for n, (row, trial, hurt) in enumerate(found) if hurt is not None
              and last.get(trial.key if trial else row.key, n) <= n]
    if name == TRIALS and not trials and measures_trials(manifest):
        if not damage:
            raise UserError(f"{path}: no trials, only its header (nothing to compute on)")
        raise UserError(f"{path}: none of its {len(damage)} trials can be read (nothing to compute on); the "
                        f"first: {damage[0]}")
    return manifest, CheckedTable(trials, damage)


def measures_trials(manifest: dict[str, Any]) -> bool:
    """Whether the run's results are trials (trials.csv): a campaign's, not a soak's, an ingested JMH run's or
    the counting mode's (its counts are in counts/)."""
    return manifest.get("kind") == "campaign" and "counting" not in manifest


def _checked_row(run_dir: Path, name: str, row: Row, full: bool) -> tuple[Trial | None, Damage | None]:
    """A row's trial and its damage: (trial, None) undamaged, (None, damage) an unreadable row, (trial, damage)
    a readable row whose samples file is damaged."""
    if row.broken:
        return None, Damage(name, row.broken, name, row.line)
    try:
        trial = from_row(row.cells)
    except (ValueError, KeyError, TypeError) as exc:
        return None, Damage(name, f"unreadable row: {_reason(exc)}", name, row.line)
    if trial.status not in STATUSES:
        return None, Damage(name, f"column status: {trial.status!r} is not one of {', '.join(STATUSES)}", name,
                            row.line)
    hurt = check_samples(run_dir, trial, full)
    return trial, (Damage(str(trial.samples_file), hurt, name, row.line, trial_name(trial)) if hurt else None)


def trial_name(t: Trial) -> str:
    return f"{t.point.label} launch {t.launch} trial {t.trial}"


def _reason(exc: BaseException) -> str:
    return str(exc).strip("'\"") if isinstance(exc, KeyError) else str(exc)


@dataclass
class Row:
    """One row of a table as read: its first line, its cells by column, and why it is broken (cut short or with
    cells added), if it is; a broken row whose cells reach its trial's number still says which trial it was."""

    line: int
    cells: dict[str, str]
    broken: str | None = None

    @property
    def key(self) -> tuple[Point, int, int] | None:
        try:
            return (Point.from_record(self.cells), int(self.cells["launch"]), int(self.cells["trial"]))
        except (KeyError, ValueError, TypeError):
            return None


def _csv_rows(path: Path) -> list[Row]:
    """A table's rows; no header, or not text: fatal."""
    out: list[Row] = []
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if not header:
                raise UserError(f"{path}: no header line (an empty table: nothing to compute on)")
            for column in ("seq", "trial", "status"):
                if column not in header:
                    raise UserError(f"{path}:1: header has no column {column!r}: not a trials table")
            # A cut row keeps the cells up to its trial number (the columns' order, trial.py): its trial is known.
            keyed = header.index("trial") + 1
            start = reader.line_num + 1
            for cells in reader:
                if len(cells) == len(header):
                    out.append(Row(start, dict(zip(header, cells))))
                elif cells:
                    broken = (f"cut short: {len(cells)} of {len(header)} cells" if len(cells) < len(header)
                              else f"{len(cells)} cells, the header has {len(header)}")
                    out.append(Row(start, dict(zip(header, cells)) if len(cells) >= keyed else {}, broken))
                start = reader.line_num + 1
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except csv.Error as exc:
        raise UserError(f"{path}:{reader.line_num}: not CSV ({exc})") from None
    return out


def check_samples(run_dir: Path, t: Trial, full: bool = True) -> str | None:
    """What is wrong with a trial's samples file, or None. Quick (not `full`): its presence and size only."""
    if not t.ok or not t.samples_file:
        return None
    path = run_dir / t.samples_file
    if Path(t.samples_file).is_absolute() or ".." in Path(t.samples_file).parts:
        return "not a file inside the run directory"
    if not path.is_file():
        return "missing"
    size = path.stat().st_size
    expected = t.samples_bytes if t.samples_bytes is not None else (
        t.calls * SAMPLE_BYTES if t.calls is not None else None)
    if expected is not None and size != expected:
        recorded = "its row records" if t.samples_bytes is not None else f"{t.calls} calls make"
        return (f"cut short: {size} bytes, {recorded} {expected}" if size < expected
                else f"{size} bytes, {recorded} {expected}")
    if size % SAMPLE_BYTES:
        return f"{size} bytes: not a whole number of {SAMPLE_BYTES}-byte samples"
    if size == 0:
        return "empty"
    if not full:
        return None
    impossible = _impossible(np.fromfile(path, dtype="<i8"))
    if t.samples_sha256 is not None and samples_digest(path)[1] != t.samples_sha256:
        changed = "SHA-256 differs from the one its row records: the file changed after it was written"
        return f"{changed}; {impossible}" if impossible else changed
    return impossible


def _impossible(samples: np.ndarray) -> str | None:
    """Latencies no clock gives: <= 0 ns, or longer than MAX_SAMPLE_NS."""
    found = []
    for bad, what in ((samples <= 0, "<= 0 ns"), (samples > MAX_SAMPLE_NS, "longer than an hour")):
        count = int(bad.sum())
        if count:
            first = int(np.argmax(bad))
            found.append(f"{count} of {samples.size} samples {what} (the first: call {first}, {int(samples[first])} ns)")
    return "; ".join(found) + ": not latencies a clock gives" if found else None
