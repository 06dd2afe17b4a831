"""summary.json: per target x mode x payload x placement statistics of a run, from its raw samples only.

It can always be recomputed (`orbench summarize RUN`) since it reads nothing but the run directory. Four steps,
each typed (summary/model.py): each point from its own trials (point_summary.py), each ORB against its baseline
(pairing.py), its interval pooled with the run-to-run variation its earlier runs showed (run_to_run.py, from the
figures the run kept of them), and the warnings over the result (run_checks.py).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from orbench.results.integrity import Damage
from orbench.results.point import Point, PointGroup
from orbench.results.run_warnings import RunWarning
from orbench.results.store import SCHEMA_VERSION, RunStore, write_json_atomic
from orbench.results.trial import Trial
from orbench.stats import equivalence, stats
from orbench.stats.known_fit import known_answer_fits
from orbench.stats.phases import one_cpu_calls, slice_values, speed_modes, usual_blocks
from orbench.summary.capacity import capacities
from orbench.summary.instructions import instruction_counts
from orbench.summary.model import (
    SUMMARY_VERSION,
    Equivalence,
    HostSpeed,
    KnownAnswerFit,
    MachineLoad,
    PointSummary,
    RunSummary,
    Stopping,
    from_json,
)
from orbench.summary.pairing import pair_with_baselines
from orbench.summary.point_summary import (
    TrialEvidence,
    TrialKey,
    summarize_point,
    trial_segments,
)
from orbench.summary.pooled_spread import with_pooled_spread
from orbench.summary.queueing import queueing_checks
from orbench.summary.run_checks import foreign_share, median, run_warnings
from orbench.summary.run_to_run import with_run_to_run
from orbench.summary.sections import with_interop
from orbench.summary.shape_costs import shape_costs

UNITS = "nanoseconds; throughput in messages/s and MB/s (10^6 bytes)"


def summarize(store: RunStore) -> RunSummary:
    """The run's summary from its undamaged trials; each damaged one is named on stderr and in `damaged`."""
    manifest, table = store.check()
    store.warn(table.damage)
    all_trials = table.trials
    targets_info = manifest.get("targets", {})
    by_point: dict[Point, list[Trial]] = defaultdict(list)
    for t in latest_trials(all_trials):
        by_point[t.point].append(t)
    traced: dict[Point, list[Trial]] = defaultdict(list)
    for t in store.read_traced():
        traced[t.point].append(t)

    points: dict[Point, PointSummary] = {}
    trial_p50: dict[Point, dict[TrialKey, float]] = {}
    for point, trials in by_point.items():
        points[point], p50s = summarize_point(point, trials, traced.get(point, []), store.path,
                                              targets_info.get(point.target, {}))
        if p50s:
            trial_p50[point] = p50s
    # A round trip at rest on one CPU: its slices' calls, read once, valued at their fast end and block by block
    # at the host's usual speed (stats/phases.reads_blocks).
    calls = {point: found for point, trials in by_point.items() if (found := one_cpu_calls(trials, store.path))}
    slices = {point: found for point, trials in by_point.items()
              if (found := slice_values(trials, calls.get(point)))}
    blocks = {point: found for point in slices if point in calls
              and (found := usual_blocks(calls[point])) is not None}
    points = pair_with_baselines(points, trial_p50, by_point, targets_info, slices, blocks)
    points = with_pooled_spread(points)
    points = with_run_to_run(points, store.path)
    points = with_interop(points)
    points = _with_stopping(points, manifest)
    fits = [from_json(KnownAnswerFit, f) for f in known_answer_fits(
        (p.group, s.orb_added_latency_ns.baseline if s.orb_added_latency_ns else None, s.known_answer.known_ns,
         _replicates(s)) for p, s in points.items() if s.known_answer is not None)]
    segs = {point: found for point, trials in by_point.items() if (found := trial_segments(trials))}
    evidence = TrialEvidence(trial_p50, slices, segs)
    warnings = [*damage_warnings(table.damage), *run_warnings(points, manifest, by_point, fits, evidence)]
    found = capacities(by_point, manifest.get("campaign") or {},
                       {name: info["baseline"] for name, info in targets_info.items() if info.get("baseline")})
    return RunSummary(
        schema_version=SCHEMA_VERSION, campaign=manifest.get("campaign", {}).get("name"), run_id=store.run_id,
        status=manifest.get("status"), units=UNITS,
        points=tuple(points[p] for p in sorted(points, key=point_order(targets_info))),
        equivalence=tuple(_equivalence(store, by_point, targets_info)), machine=_machine_load(by_point),
        known_answer_fits=tuple(fits), warnings_detail=tuple(warnings), capacities=tuple(found),
        queueing_checks=tuple(queueing_checks(by_point, manifest.get("campaign") or {},
                                                      manifest.get("launches") or [])),
        shape_costs=tuple(shape_costs(points, trial_p50)),
        instructions=tuple(instruction_counts(store.path, targets_info)), damaged=tuple(table.damage),
        host_speed=host_speed(slices, targets_info))


def damage_warnings(damage: list[Damage]) -> list[RunWarning]:
    return [RunWarning("damaged trial", "", f"{d}: trial left out of every figure") for d in damage]


def host_speed(slices: dict[Point, dict[Any, float]], targets_info: dict[str, Any]) -> HostSpeed | None:
    """How the host's speed varied over the run: at how many baseline points the slices of round trips fell into
    two speed modes (stats/phases.py), the slow mode's share of their slices, and how much slower it was."""
    bases = {info.get("baseline") for info in targets_info.values() if info.get("baseline")}
    found = [speed_modes(list(v.values())) for p, v in slices.items() if p.target in bases and p.mode != "oneway"]
    if not found:
        return None
    two = [m for m in found if m is not None]
    share = sum(m.slow_share * m.slices for m in two) / sum(m.slices for m in two) if two else None
    ratio = float(np.median([m.slow_over_fast for m in two])) if two else None
    text = (f"host speed: two modes at {len(two)} of {len(found)} baseline points; the slow mode held "
            f"{share:.0%} of their slices, its p50 {ratio:.2f}x the fast one's" if two else
            f"host speed: one mode at every one of {len(found)} baseline points")
    return HostSpeed(baseline_points=len(found), two_mode_points=len(two),
                     slow_share=None if share is None else round(share, 4),
                     slow_over_fast=None if ratio is None else round(ratio, 4), text=text)


def _replicates(s: PointSummary) -> list[float]:
    """The known-answer fit's values of a point: each launch's ORB-added latency when it has two launches or
    more (the launch is the level that repeats), else its estimate."""
    added = s.orb_added_latency_ns
    if added is None:
        return []
    if added.launches and len(added.launches) >= 2:
        return [float(v.estimate) for v in added.launches]
    return [] if added.estimate is None else [float(added.estimate)]


def _with_stopping(points: dict[Point, PointSummary], manifest: dict[str, Any]) -> dict[Point, PointSummary]:
    """Each point with why its point group's trials stopped (running/stopping.py)."""
    stopping = {PointGroup.from_record(s): s for s in manifest["stopping"]}
    out = dict(points)
    for point, summary in points.items():
        rule = stopping.get(point.group)
        if not rule:
            continue
        extra: dict[str, Any] = {}
        if point.target in (rule.get("orb_added_ci_half_width_ns") or {}):
            extra = dict(target_added_ci_ns=rule.get("target_added_ci_ns"),
                         target_added_ci_pct=rule.get("target_added_ci_pct"),
                         orb_added_ci_half_width_ns=rule["orb_added_ci_half_width_ns"][point.target])
        out[point] = summary.replace(stopping=Stopping(
            reason=rule["reason"], trials=rule["trials"], target_ci_pct=rule.get("target_ci_pct"),
            p50_ci_width_pct=(rule.get("p50_ci_width_pct") or {}).get(point.target), **extra))
    return out


MODE_ORDER = {"twoway": 0, "oneway": 1, "echo": 2}
KIND_ORDER = {"orb": 0, "known-answer": 1, "socket": 2}


def point_order(targets_info: dict[str, Any]) -> Callable[[Point], tuple]:
    """How summary.json and its tables list points: local pair first, then the group's dimensions (modes in
    their usual order), ORBs before sockets, then by name."""
    def key(p: Point) -> tuple:
        group = p.group.replace(mode=str(MODE_ORDER.get(p.mode, 9)))
        return (p.host_pair != "local", group, KIND_ORDER.get(targets_info.get(p.target, {}).get("kind"), 9),
                p.target)
    return key


def read_summary(store: RunStore) -> RunSummary | None:
    """summary.json when this orbench wrote it (results and summary layout of the current versions) and no
    damage appeared in the run since, else None: an older or unreadable file is never read as if it were
    current. The run is checked quickly (its rows and its samples files' sizes; integrity.py): damage found then
    and not recorded in the summary means its figures may rest on trials a recomputation would leave out."""
    summary = _summary_file(store)
    if summary is None:
        return None
    _manifest, table = store.check(full=False)
    if {d.key for d in table.damage} - {d.key for d in summary.damaged}:
        return None
    store.warn(summary.damaged)
    return summary


def _summary_file(store: RunStore) -> RunSummary | None:
    summary, _why = _read_summary_file(store)
    return summary


def summary_file_damage(store: RunStore) -> Damage | None:
    """What is wrong with summary.json, or None (none written, or readable; an older version is not damage: it
    is recomputed when read)."""
    _summary, why = _read_summary_file(store)
    return Damage(store.summary_path.name, f"{why} (derived: `orbench summarize` writes it again)") if why else None


def _read_summary_file(store: RunStore) -> tuple[RunSummary | None, str | None]:
    """summary.json as its type when of the current versions, and what makes it unreadable if anything does."""
    if not store.summary_path.exists():
        return None, None
    try:
        data = json.loads(store.summary_path.read_text())
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"cannot read: {exc}"
    except json.JSONDecodeError as exc:
        return None, f"line {exc.lineno} column {exc.colno}: not JSON ({exc.msg})"
    if not isinstance(data, dict):
        return None, "not a JSON object"
    if data.get("schema_version") != SCHEMA_VERSION or data.get("summary_version") != SUMMARY_VERSION:
        return None, None
    try:
        return RunSummary.from_json(data), None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return None, f"not a summary of version {SUMMARY_VERSION}: {exc}"


def current_summary(store: RunStore) -> RunSummary:
    """summary.json as this orbench writes it: read when it is of the current versions, else recomputed from the
    raw samples (it is derived data; the store upgrades older results as it reads them) and written back."""
    return read_summary(store) or write_summary(store)


def latest_trials(trials: list[Trial]) -> list[Trial]:
    """One per trial: a resumed run may have run a failed trial again; its last row is the one that counts
    (an ok trial is never followed by another, since --resume skips finished trials)."""
    return list({t.key: t for t in trials}.values())


def write_summary(store: RunStore) -> RunSummary:
    """summary.json recomputed, replacing the old one only once the new one is whole; one that measures fewer
    points than the file it replaces says so in its warnings."""
    summary = summarize(store)
    before = measured_points(store.summary_path)
    if before is not None and len(summary.measured()) < before:
        summary = replace(summary, warnings_detail=(RunWarning(
            "fewer points", "", f"this summary measures {len(summary.measured())} point(s); the summary.json it "
            f"replaces measured {before}" + (f" ({len(summary.damaged)} damaged trial(s) left out)"
                                              if summary.damaged else "")), *summary.warnings_detail))
    write_json_atomic(store.summary_path, summary.to_json())
    return summary


def measured_points(path: Path) -> int | None:
    """How many points a summary.json of any version gives latency figures for; None when there is none or it
    cannot be read."""
    try:
        points = json.loads(path.read_text())["points"]
        return sum(1 for p in points if isinstance(p, dict) and p.get("latency_ns"))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _machine_load(trials: dict[Point, list[Trial]]) -> MachineLoad:
    """How shared the machine was over the run: CPU time of processes outside orbench (foreign_share), and the
    median steal over trials."""
    ok = [t for point_trials in trials.values() for t in point_trials if t.ok]
    return MachineLoad(foreign_cpu_pct=foreign_share(ok),
                       steal_pct=median([t.steal_pct for t in ok if t.steal_pct is not None]))


def _equivalence(store: RunStore, by_point: dict[Point, list[Trial]], targets_info: dict) -> list[Equivalence]:
    """The equivalence tests of Krintz and Wolski (equivalence.py) between every two socket baselines
    measured in the same point group."""
    sockets = sorted({p.target for p in by_point if targets_info.get(p.target, {}).get("kind") == "socket"})
    out = []
    for point in sorted(p for p in by_point if sockets and p.target == sockets[0]):
        for other in sockets[1:]:
            other_point = point.group.with_target(other)
            if other_point not in by_point:
                continue
            a = {(t.launch, t.trial): t for t in by_point[point] if t.ok}
            b = {(t.launch, t.trial): t for t in by_point[other_point] if t.ok}
            paired = sorted(set(a) & set(b))
            try:
                result = equivalence.compare_traces(
                    [stats.read_samples(store.path / str(a[k].samples_file)) for k in paired],
                    [stats.read_samples(store.path / str(b[k].samples_file)) for k in paired], point.target, other)
            except ValueError as exc:
                result = {"a": point.target, "b": other, "why_missing": str(exc)}
            out.append(from_json(Equivalence, {**point.group.as_record(), **result}))
    return out
