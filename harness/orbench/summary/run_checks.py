"""A run's warnings, from its point summaries (after the pairing), its manifest and its trials: what a reader
must know before trusting a number (unsteady trials, stalls, lost messages, missed known answers, a busy or
unpinned machine, stopping targets not reached). Each is a RunWarning; summary.json groups them by kind."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from orbench.results.point import Point, PointGroup
from orbench.results.run_warnings import RunWarning
from orbench.results.trial import Trial
from orbench.stats import stats
from orbench.stats.known_fit import fit_text
from orbench.summary.invariants import invariant_warnings
from orbench.summary.model import KnownAnswerFit, PointSummary
from orbench.summary.point_summary import MIN_SAMPLES_FOR_P99, TrialEvidence

# Trial p50s of one point whose robust spread (1.4826 MAD / median, stats/intervals.py) exceeds this are
# flagged: the trials disagree (often two modes), and the point's interval is wide for that reason.
UNSTEADY_CV_PCT = 10.0
# A remote host's 1-minute load average above this share of its CPUs at the start means other work there.
BUSY_LOAD_PER_CPU = 0.5
# Processes outside orbench's own process tree used more than this share of all CPUs' time, as a median over
# trials (machine_load.py): other work shared the machine. orbench's own workers and harness never count.
BUSY_FOREIGN_CPU_PCT = 10.0
# Other work on the CPUs no worker was pinned to, as a median over trials, on a host where orbench's own
# processes cannot be told apart (a remote one): above this the host was shared.
BUSY_OTHER_CPUS_PCT = 30.0
# Steal above this share (median over trials): the hypervisor ran someone else on our vCPUs.
BUSY_STEAL_PCT = 5.0
# A JVM target whose client JIT finished compilations during more than this share of its timed trials
# (trials.csv client_jit_ms) was timed while still compiling. Middleware runs 20261130-184944-vm, -190150-vm
# and -195514-vm: java-socket 6-7% (the floor: a baseline's few compiles), JacORB 10-13%, Ice Java 10-14%,
# GlassFish 27% in each, gRPC Java 52-57%.
JIT_BUSY_SHARE = 0.25


def run_warnings(points: dict[Point, PointSummary], manifest: dict[str, Any], trials: dict[Point, list[Trial]],
                 fits: list[KnownAnswerFit], evidence: TrialEvidence) -> list[RunWarning]:
    """Every warning of the run, in the order a reader meets them: per point, then the pairing's, then the
    run's (stopping, launches, invariants, load, hosts, placements, pinning, the runner's own, known-answer fits)."""
    out = [w for s in points.values() for w in _point_warnings(s)]
    measured = [s.latency_ns.count for s in points.values() if s.latency_ns is not None]
    few = [n for n in measured if n < MIN_SAMPLES_FOR_P99]
    if few:
        out.append(RunWarning(
            "few samples", "", f"{len(few)} point(s) have fewer than {MIN_SAMPLES_FOR_P99} samples (as few as "
            f"{min(few)}): their p99 rests on fewer than 10 values; raise calls or trials"))
    out += [w for s in points.values() for w in _pairing_warnings(s)]
    few_for_p999 = [n for n in measured if n < stats.samples_needed(99.9)]
    if few_for_p999:
        out.append(RunWarning(
            "few samples", "", f"{len(few_for_p999)} point(s) have fewer than {stats.samples_needed(99.9)} samples "
            f"(as few as {min(few_for_p999)}): their p99.9 rests on fewer than {stats.VALUES_BEYOND_PERCENTILE} "
            "values; the percentile spectrum draws such tails hollow and summary.json leaves them null"))
    out += _stopping_warnings(manifest)
    out += _launch_warnings(manifest, points)
    out += invariant_warnings(points, evidence)
    out += _load_warnings(list(trials.values()))
    out += jit_warnings(list(trials.values()))
    # Each trial records its hosts' load (_load_warnings); the load at the start is judged only for remote
    # hosts, since a build just before a run raises this machine's 1-minute average for a minute.
    for name, host in manifest["hosts"].items():
        env = host.get("environment") or {}
        usage, host_cpus = env.get("loadavg"), env.get("logical_cpus") or 1
        if name != "local" and isinstance(usage, list) and usage[0] > BUSY_LOAD_PER_CPU * host_cpus:
            out.append(RunWarning("busy host", name, f"1-minute load average {usage[0]:.2f} on {host_cpus} "
                                  "CPUs at the start", usage[0] / host_cpus))
    for pl in manifest.get("placements", []):
        if not pl.get("pinned"):
            out.append(RunWarning("not pinned", f"placement {pl['name']}", "latency depends on where the "
                                  "scheduler put the workers"))
    out += _pinning_warnings(manifest)
    out += [RunWarning("run", "", w) for w in manifest.get("warnings", [])]
    out += [_fit_warning(fit) for fit in fits if not (fit.slope_ok and fit.intercept_ok)]
    return out


def _point_warnings(s: PointSummary) -> list[RunWarning]:
    """Stalls, unsteady trial p50s, oneway loss and a warm-up barrier that timed out, at one point."""
    out = []
    label = s.point.label
    if s.stalls:
        worst = max(s.stalls, key=lambda st: st.share)
        out.append(RunWarning(
            "stalls", label, f"{len(s.stalls)} trial(s) where a few calls took most of the time; worst: launch "
            f"{worst.launch + 1} trial {worst.trial}, {worst.calls} of {worst.of_calls} calls (up to "
            f"{worst.longest_ns / 1e6:.1f} ms) took {worst.share:.0%} of it", worst.share))
    cv = None if s.trial_p50_ns is None else s.trial_p50_ns.robust_cv_pct
    if cv is not None and cv > UNSTEADY_CV_PCT:
        out.append(RunWarning("trial p50s unsteady", label, f"robust spread {cv:.0f}% (> {UNSTEADY_CV_PCT:.0f}%) "
                              "between trials: the interval is wide for it", cv))
    if s.oneway is not None:
        late, lost, calls = s.oneway.warmup_sync_incomplete_trials, s.oneway.lost_messages, s.oneway.calls
        if late:
            out.append(RunWarning("warm-up barrier timed out", label, f"in {late} trial(s): late warm-up "
                                  "messages counted as timed ones may hide loss", late))
        if lost:
            out.append(RunWarning("messages lost", label, f"{lost} of {calls} messages lost", lost / calls))
    return out


def _pairing_warnings(s: PointSummary) -> list[RunWarning]:
    """A known answer the interval misses, an ORB-added latency without an interval, launches that disagree."""
    added, label = s.orb_added_latency_ns, s.point.label
    if added is None or added.estimate is None:
        return []
    out = []
    known = s.known_answer
    if known is not None and not known.covered:
        out.append(RunWarning("known answer missed", label, f"known {known.known_ns} ns, recovered {known.text}: "
                              "the interval misses the truth", abs(added.estimate - known.known_ns)))
    if added.ci95_low is None:
        out.append(RunWarning("no interval", label, "one paired trial only, no confidence interval (use trials >= 3)"))
    if added.disagreement is not None and added.disagreement.text:
        out.append(RunWarning("launches disagree", label, added.disagreement.text +
                              ": the interval is around a mixture; read the launches' values"))
    return out


def _stopping_warnings(manifest: dict[str, Any]) -> list[RunWarning]:
    """Point groups whose stopping rule ended them before their intervals met the campaign's targets."""
    targets_set = ("target_ci_pct", "target_added_ci_ns", "target_added_ci_pct")
    # One record per point group: a later one (a launch after the first, a resumed run) is the one that counts.
    last = {PointGroup.from_record(s): s for s in manifest["stopping"]}
    # Planned repetitions aim at the interval over launches, not within one: their groups end by plan.
    not_reached = [s for s in last.values() if any(s.get(k) is not None for k in targets_set)
                   and s["reason"] not in ("ci", "planned", "budget")]
    cut = [s for s in manifest["stopping"] if s["reason"] == "budget"]
    out = [RunWarning("cut by the budget", "", f"{len(cut)} point group run(s) ran fewer trials than planned: the "
                      "budget's time was up (campaign key budget)")] if cut else []
    if not not_reached:
        return out
    wanted = ", ".join(f"{k} {not_reached[0][k]}" for k in targets_set if not_reached[0].get(k) is not None)
    return out + [RunWarning("stopping target not reached", "", f"{len(not_reached)} point(s) ended by "
                             f"{', '.join(sorted({s['reason'] for s in not_reached}))} before their intervals met "
                             f"{wanted}")]


def _fit_warning(fit: KnownAnswerFit) -> RunWarning:
    return RunWarning(
        "known answers off the line", fit.group.label, f"{fit_text(fit)} against {fit.baseline}: "
        + ("slope off 1 by more than 1%" if not fit.slope_ok else "")
        + (" and " if not fit.slope_ok and not fit.intercept_ok else "")
        + ("intercept interval misses 0" if not fit.intercept_ok else ""), abs(fit.slope - 1))


def _launch_warnings(manifest: dict[str, Any], points: dict[Point, PointSummary]) -> list[RunWarning]:
    """One launch only (its intervals cannot see the next launch), and workers that never reached a steady
    state before their first timed trial."""
    out = []
    # The launches that ran (planned repetitions choose their number as they go), else the campaign's.
    launches = len(manifest.get("launches") or ()) or int((manifest.get("campaign") or {}).get("launches") or 1)
    if launches == 1 and any(s.orb_added_latency_ns is not None for s in points.values()):
        out.append(RunWarning("one launch", "", "every worker ran in one process launch: the intervals are over "
                              "trials of that one process and do not cover what differs from launch to launch "
                              "(JIT, heap, page placement); set the campaign key launches to 3 or more"))
    for record in manifest.get("steady_state") or []:
        if not record.get("reached"):
            point = Point.from_record(record)
            cv, jit = record.get("cv_pct"), record.get("chunk_jit_ms")
            if jit:  # a JVM's JIT-quiet chunks (running/steady.py): the JIT still compiled in the last one
                why = record.get("error") or f"its JIT still finished {jit[-1]} ms of compiles in the last chunk"
            else:
                why = record.get("error") or (f"the last {record.get('window')} chunk p50s still varied "
                                              f"{cv:.1f}%" if cv is not None else "too few chunks")
            if record.get("stopped_by") == "max_s":
                why += f"; the chunks' time bound (steady_max_s) ended them after {record.get('seconds', 0):.2f} s"
            out.append(RunWarning("not steady", f"{point.label} L{int(record.get('launch', 0)) + 1}",
                                  f"warmed {record.get('steady_calls')} calls after {record.get('warmup_calls')} "
                                  f"without a steady state ({why}): timed anyway", cv or 0.0))
    return out


def median(values: list[float]) -> float | None:
    return float(np.median(values)) if values else None


def foreign_share(trials: list[Trial]) -> float | None:
    """Other processes' share of the CPUs over trials: the mean of the trials' signed foreign_cpu_pct weighted by
    their durations, clipped at zero only here. One trial's figure is a few jiffies' worth of noise around the
    truth (running/cpu_usage.py); a median of them, or of figures clipped one by one, reads a quiet machine as
    busy."""
    pairs = [(t.foreign_cpu_pct, t.duration_s if t.duration_s and t.duration_s > 0 else 0.0)
             for t in trials if t.foreign_cpu_pct is not None]
    if not pairs:
        return None
    weight = sum(d for _f, d in pairs)
    mean = sum(f * d for f, d in pairs) / weight if weight > 0 else sum(f for f, _d in pairs) / len(pairs)
    return round(max(0.0, mean), 1)


def jit_warnings(trials: list[list[Trial]]) -> list[RunWarning]:
    """A JVM target timed while its JIT was still compiling: the share of its timed trials whose client finished
    compilations (client_jit_ms > 0), above JIT_BUSY_SHARE; its latencies then include the JIT's work, and its
    launches can disagree by how far each got."""
    by_target: dict[str, list[int]] = defaultdict(list)
    for t in (t for point_trials in trials for t in point_trials if t.ok and t.client_jit_ms is not None):
        by_target[t.point.target].append(t.client_jit_ms)
    out = []
    for target, ms in sorted(by_target.items()):
        busy = [m for m in ms if m > 0]
        share = len(busy) / len(ms)
        if share > JIT_BUSY_SHARE:
            out.append(RunWarning(
                "JIT at work", target, f"its client's JIT finished compilations during {len(busy)} of {len(ms)} "
                f"timed trials (median {float(np.median(busy)):.0f} ms in those): it was timed while still "
                "compiling, its latencies include that work, and its launches can disagree by how far each got",
                share))
    return out


def _load_warnings(trials: list[list[Trial]]) -> list[RunWarning]:
    """Other work on the hosts during the run, from what each trial recorded on the hosts it ran on
    (`usage_hosts`): on this machine the CPU time of processes outside orbench's own process tree (its workers
    and harness never count, so the benchmark's own load never makes a machine "busy"); on a remote host, where
    orbench's processes are not told apart, the busy share of the CPUs no worker was pinned to; and steal."""
    out = []
    by_hosts: dict[str, list[Trial]] = defaultdict(list)
    for t in (t for point_trials in trials for t in point_trials if t.ok):
        by_hosts[t.usage_hosts or "local"].append(t)
    for names, ok in sorted(by_hosts.items()):
        what = "" if names == "local" else f"host(s) {names}"
        typical = foreign_share(ok)
        if typical is not None and typical > BUSY_FOREIGN_CPU_PCT:
            by_point: dict[Any, list[Trial]] = defaultdict(list)
            for t in ok:
                by_point[t.point].append(t)
            shares = [(s, p) for p, ts in by_point.items() if (s := foreign_share(ts)) is not None]
            worst, where = max(shares, key=lambda sp: sp[0])
            busy = sum(1 for s, _p in shares if s > BUSY_FOREIGN_CPU_PCT)
            out.append(RunWarning(
                "busy machine", what, f"processes outside orbench used {typical:.0f}% of the CPUs' time over the "
                f"trials ({busy} of {len(shares)} points above {BUSY_FOREIGN_CPU_PCT:.0f}%, worst {worst:.0f}% at "
                f"{where.label}): other work shared the machine", typical))
        elif names != "local":
            other = median([t.other_cpus_busy_pct for t in ok if t.other_cpus_busy_pct is not None])
            if other is not None and other > BUSY_OTHER_CPUS_PCT:
                out.append(RunWarning(
                    "busy machine", what, f"the CPUs no worker was pinned to were {other:.0f}% busy (median over "
                    f"trials, > {BUSY_OTHER_CPUS_PCT:.0f}%): other work shared it", other))
        steal = median([t.steal_pct for t in ok if t.steal_pct is not None])
        if steal is not None and steal > BUSY_STEAL_PCT:
            out.append(RunWarning("busy host", what, f"{steal:.1f}% steal time (median over trials): the hypervisor "
                                  "ran other guests on its CPUs", steal))
    return out


def _pinning_warnings(manifest: dict[str, Any]) -> list[RunWarning]:
    """Pinning asked for but not in force: the worker's Cpus_allowed_list differs from the placement's CPU."""
    out = []
    placements = {p["name"]: p for p in manifest.get("placements", [])}
    for target, info in manifest.get("targets", {}).items():
        for pl_name, workers in (info.get("workers") or {}).items():
            pl = placements.get(pl_name) or {}
            if not pl.get("pinned"):
                continue
            allowed = (workers or {}).get("cpus_allowed") or {}
            for role in ("server", "client"):
                want = str(pl.get(f"{role}_cpus"))
                got = allowed.get(role)
                if got is not None and got != want:
                    out.append(RunWarning("pinning missing", f"placement {pl_name}", f"{target} {role} may run on CPUs "
                                          f"{got}, not only on {want} as the placement asks"))
    return out
