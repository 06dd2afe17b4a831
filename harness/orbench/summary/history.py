"""The history of every run under a results directory: which runs there are (campaign, host, commit, ORB
versions) and, per point, its p50 and ORB-added latency run after run (a counting run's instructions per call per
worker), each run flagged against the previous run of its campaign with the statistics of `orbench compare`
(compare_summaries).

Rebuilt from the results directory alone: each run's summary.json, recomputed from its raw samples when it is
missing or an older orbench wrote it (summary.read_summary). The page itself is plots/orbench_plots/history.py.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orbench.errors import UserError
from orbench.results.integrity import read_manifest
from orbench.results.store import RunStore
from orbench.summary.compare import Interval, compare_summaries
from orbench.summary.model import RunSummary
from orbench.summary.summary import read_summary, summarize


@dataclass
class RunEntry:
    campaign: str
    run_id: str
    path: Path
    kind: str                    # "campaign" or "soak"
    started_at: str
    status: str
    host: str
    commit: str | None
    dirty: bool
    orb_versions: dict[str, str]
    report: Path | None
    flagged: int = 0             # points that moved against the previous run of the campaign
    compared_with: str | None = None
    summary: RunSummary | None = field(default=None, repr=False)


def _orb_versions(manifest: dict) -> dict[str, str]:
    out = {}
    for name, t in (manifest.get("targets") or {}).items():
        for per_placement in (t.get("workers") or {}).values():
            worker = (per_placement or {}).get("client") if isinstance(per_placement, dict) else None
            if worker is None and isinstance(per_placement, dict) and "orb_version" in per_placement:
                worker = per_placement
            if worker and worker.get("orb"):
                out[name] = f"{worker['orb']} {worker.get('orb_version') or '?'}"
                break
    return out


def _summary(store: RunStore) -> RunSummary | None:
    """The run's summary as this orbench reads it; recomputed (not written back: the history only reads) when
    summary.json is missing or of another version. Its damaged trials are named on stderr as it is read; a run
    with nothing to compute on is skipped with a word (None)."""
    try:
        return read_summary(store) or summarize(store)
    except UserError as exc:
        print(f"orbench: history: {exc}: run left out", file=sys.stderr)
        return None


def find_runs(results: Path) -> list[RunEntry]:
    """Every run directory (one with a manifest.json) two levels under `results`, oldest first."""
    runs = []
    for manifest_path in sorted(results.glob("*/*/manifest.json")):
        run_dir = manifest_path.parent
        if run_dir.is_symlink() or run_dir.name == "latest":
            continue
        try:
            manifest = read_manifest(run_dir)
        except UserError as exc:
            print(f"orbench: history: {exc}: run left out", file=sys.stderr)
            continue
        env = manifest.get("environment") or {}
        git = env.get("git") or {}
        report = run_dir / "report.html"
        kind = manifest.get("kind", "campaign")
        campaign = (manifest.get("campaign") or {}).get("name") if kind == "campaign" else None
        entry = RunEntry(
            campaign=campaign or run_dir.parent.name, run_id=run_dir.name, path=run_dir, kind=kind,
            started_at=manifest.get("started_at", ""), status=manifest.get("status", "?"),
            host=(env.get("host") or {}).get("hostname", "?"), commit=git.get("commit"),
            dirty=bool(git.get("dirty")), orb_versions=_orb_versions(manifest),
            report=report if report.is_file() else None)
        if kind == "campaign":
            entry.summary = _summary(RunStore(run_dir))
        runs.append(entry)
    return sorted(runs, key=lambda r: (r.started_at, r.run_id))


PointKey = tuple[str, str, str, int, str]  # placement (with its option set), mode, payload type, bytes, shape


def point_key(row: dict) -> PointKey:
    # A run before the shape dimension measured only the `in` call.
    return (row["placement"], row["mode"], row["payload_type"], int(row["payload_bytes"]), row.get("shape") or "in")


def point_label(key: PointKey) -> str:
    placement, mode, payload_type, size, shape = key
    return (f"{placement} {mode} {size} B" + ("" if payload_type == "octets" else f" {payload_type}")
            + ("" if shape == "in" else f" {shape}"))


@dataclass(frozen=True)
class HistoryValue:
    """One point of one target in one run: its p50 and ORB-added intervals, each flagged when it moved against
    the previous run of the campaign (None: not compared)."""

    run_id: str
    started_at: str
    p50: Interval | None
    p50_flag: str | None
    orb_added: Interval | None
    orb_added_flag: str | None

    def quantity(self, name: str) -> tuple[Interval | None, str | None]:
        """The interval and flag of "p50" or "orb_added"."""
        return (self.p50, self.p50_flag) if name == "p50" else (self.orb_added, self.orb_added_flag)


@dataclass(frozen=True)
class CountValue:
    """One counted worker (a point, target and role) in one run of the counting mode: its instructions per call,
    flagged when they moved against the previous run of the campaign as compare flags them (None: not compared)."""

    run_id: str
    per_call: float
    flag: str | None
    previous: float | None = None   # the previous run's count it was compared with (None: not compared)


WorkerKey = tuple[PointKey, str, str]   # the point, the target, the role (client or server)


@dataclass(frozen=True)
class History:
    runs: list[RunEntry]
    series: dict[str, dict[tuple[PointKey, str], list[HistoryValue]]]   # campaign -> (point key, target) -> runs
    # campaign -> counted worker -> runs (the counting mode's runs: instructions per call, exact)
    counts: dict[str, dict[WorkerKey, list[CountValue]]] = field(default_factory=dict)


def _interval(change: dict[str, Any] | None) -> Interval | None:
    return None if not change or change.get("b") is None else Interval(**change["b"])


def build_history(results: Path) -> History:
    """Every run, and per campaign, point and target its values run after run. A run's flags are against the
    previous run of its campaign."""
    runs = find_runs(results)
    series: dict[str, dict[tuple[PointKey, str], list[HistoryValue]]] = {}
    counts: dict[str, dict[WorkerKey, list[CountValue]]] = {}
    previous: dict[str, RunEntry] = {}
    for run in runs:
        if run.summary is None:
            continue
        before = previous.get(run.campaign)
        # Against itself when it is the first: the same rows and intervals, nothing flagged.
        result = compare_summaries(before.summary if before else run.summary, run.summary)
        if before is not None:
            run.flagged = result["flagged"]
            run.compared_with = before.run_id
        # Points the previous run did not have: compared with themselves, so they still get their intervals.
        rows = result["points"]
        if before is not None:
            known = {(point_key(r), r["target"]) for r in rows}
            rows += [r for r in compare_summaries(run.summary, run.summary)["points"]
                     if (point_key(r), r["target"]) not in known]
        per_campaign = series.setdefault(run.campaign, {})
        for r in rows:
            per_campaign.setdefault((point_key(r), r["target"]), []).append(HistoryValue(
                run_id=run.run_id, started_at=run.started_at,
                p50=_interval(r["p50"]), p50_flag=r["p50"]["flag"] if before else None,
                orb_added=_interval(r.get("orb_added")),
                orb_added_flag=(r.get("orb_added") or {}).get("flag") if before else None))
        # Every worker the run counted; those the previous run counted too carry compare's row (its flag).
        compared = {_worker_key(r): r for r in result["instructions"]} if before else {}
        for c in run.summary.instructions:
            if c.per_call is None:
                continue
            key = (point_key(c.point.as_record()), c.point.target, c.role)
            row = compared.get(key)
            counts.setdefault(run.campaign, {}).setdefault(key, []).append(
                CountValue(run.run_id, c.per_call, row.get("flag") if row else None, row["a"] if row else None))
        previous[run.campaign] = run
    return History(runs, series, counts)


def _worker_key(row: dict) -> WorkerKey:
    # Two instances of one descriptor compared as one row are named "a / b": the run's own is the second.
    return point_key(row), row["target"].split(" / ")[-1], row["role"]
