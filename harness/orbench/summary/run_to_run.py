"""The run-to-run part of an ORB-added interval: what earlier runs of the campaign on this host say that a run's
own launches cannot.

A run's interval comes from its own launches, and on a cloud VM that is not enough to hold another run's
estimate. Two things are missing. (1) Six launches give a rough standard error, with 3 degrees of freedom: a run
whose launches happened to agree reads a narrow interval (omniORB's 1 B ORB-added latency read +-17 ns in one quick
run, +-53 to +-111 ns in seven others), and another run's estimate falls outside it. (2) Whole runs differ by more
than their launches do: four quick runs read omniORB 1 B at 1414, 1510, 1517 and 1474 ns with half-widths of
38-72 ns while their socket baselines agreed within 0.2%. So the runs' standard errors are pooled (the root mean
square of this run's and its earlier runs', with their degrees of freedom summed, so its t is near 2), and the
run-to-run variance beyond them is added, as a random-effects model estimates it (DerSimonian and Laird,
"Meta-analysis in clinical trials", 1986): tau^2 = max(0, Var(run estimates) - mean(within-run se^2)). The
half-width is t(pooled df) x sqrt(pooled se^2 + tau^2): wider than the run's own where runs differ, narrower where
its three degrees of freedom made its own t large (3.18), as a moderated t borrows variance (Smyth, "Linear models
and empirical Bayes methods for assessing differential expression in microarray experiments", 2004). A run whose
own launches spread far beyond its earlier runs' (F test of its variance against theirs, p < UNLIKE_P: it met a
busier host, or its build changed) borrows nothing that would narrow it: it keeps its own interval where wider.

The run takes its earlier runs' figures when it ends (`gather`, called by `orbench run` before the summary) and
keeps them in the run directory (EARLIER_RUNS_FILE), so its summary still reads nothing but its own directory and
comes out the same when recomputed. Earlier runs count when they are of the same campaign name, on the same host
(its name, and no difference `orbench compare` would name but orbench's own commit), started before this one, with a summary that has the within-run
standard error and the same estimator (SAME_ESTIMATE_FROM); the last MAX_EARLIER of them. The within-run interval stays in the
summary beside the pooled one. The user guide's "ORB-added latency" gives the measurements.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orbench.results.point import Point
from orbench.results.store import RunStore, write_json_atomic
from orbench.stats.tdist import f_upper_p, quantile
from orbench.summary.envdiff import COMMIT, environment_differences
from orbench.summary.model import OrbAdded, PointSummary, RunToRun

EARLIER_RUNS_FILE = "earlier_runs.json"
# The first summary version whose estimates are this one's quantity: from 18 a same-core round trip's slices are
# valued by the fast end of their calls (stats/phases.slice_values), which moved omniORB's 1 B estimate on an AMD
# EPYC guest from 0.8 us to 1.1 us.
SAME_ESTIMATE_FROM = 18
# The runs a tau needs: this one and three earlier (a variance of fewer is too rough to pool).
MIN_RUNS = 4
# The most recent earlier runs taken: the host's behaviour drifts over days, and old runs should not decide.
MAX_EARLIER = 10
# A run's own variance this unlikely beyond its earlier runs' (unlike_earlier) keeps its own interval where wider.
UNLIKE_P = 0.01
POOLED = ("; over {runs} runs on this host: their pooled standard error {pooled:.0f} ns ({df} df) and "
          "run-to-run tau {tau:.0f} ns")
UNLIKE = " (this run's launches spread beyond theirs: its own interval where wider)"
# Until the host has MIN_RUNS runs of the campaign, a run's interval carries a prior run-to-run tau, this share of
# its estimate: every launch of a run meets the host in the state it is in for those minutes, so whole runs differ
# by more than their launches. Over two sets of four quick runs on a 2-vCPU AMD EPYC guest (20261205-074416-vm to
# -074619-vm, 20261205-082905-vm to -083121-vm) the runs' spread beyond their own standard errors was 0.9-1.3% of
# the estimate at the median row, 1.5-1.9% at the 75th percentile and 2.1-2.5% at the 90th; their own intervals
# held another run's estimate in 0.43-0.76 of the cases at the twoway rows.
PRIOR_TAU_SHARE = 0.02
PRIOR = ("; with a prior run-to-run tau of {tau:.0f} ns ({share:.0%} of the estimate; {runs} of the {need} runs on "
         "this host that measure it), {df} df")
# Satterthwaite's degrees of freedom for se^2 + tau^2 with tau taken as known: at most this many.
MAX_PRIOR_DF = 200


@dataclass(frozen=True)
class EarlierValue:
    run_id: str
    estimate: float
    se_ns: float
    df: int


def same_host(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two runs' manifests are of one host as a comparison sees it (envdiff.py: kernel, CPU, governor,
    JDK, placements, ORB versions), by its name too; orbench's own commit may differ."""
    names = [((m.get("environment") or {}).get("host") or {}).get("hostname") for m in (a, b)]
    return names[0] == names[1] and all(d.what == COMMIT for d in environment_differences(a, b))


def _earlier_values(run_dir: Path) -> dict[str, list[float]] | None:
    """slug -> [estimate, within-run se, its df] of each ORB-added latency of an earlier run's summary.json."""
    try:
        data = json.loads((run_dir / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    if int(data.get("summary_version") or 0) < SAME_ESTIMATE_FROM:
        return None
    out: dict[str, Any] = {}
    for row in data.get("points") or []:
        added = row.get("orb_added_latency_ns") or {}
        se, df, est = added.get("se_ns"), added.get("se_df"), added.get("estimate")
        if se is None or df is None or est is None:
            continue
        try:
            out[Point.from_record(row).slug] = [float(est), float(se), int(df)]
        except (KeyError, ValueError):
            continue
    return out


def gather(store: RunStore) -> dict[str, Any]:
    """The earlier runs' ORB-added figures this run's summary pools with, written to EARLIER_RUNS_FILE."""
    manifest = json.loads(store.manifest_path.read_text())  # two keys of it; the run's own, checked before
    runs: list[tuple[str, dict[str, Any]]] = []
    for other in store.other_runs():
        if other.name >= store.run_id:
            continue
        try:
            theirs = json.loads((other / "manifest.json").read_text())
        except (OSError, ValueError):
            continue
        if not same_host(manifest, theirs) or (theirs.get("campaign") or {}).get("name") != \
                (manifest.get("campaign") or {}).get("name"):
            continue
        values = _earlier_values(other)
        if values:
            runs.append((other.name, values))
    runs = runs[-MAX_EARLIER:]
    points: dict[str, list[list[Any]]] = {}
    for run_id, values in runs:
        for slug, (est, se, df) in values.items():
            points.setdefault(slug, []).append([run_id, est, se, df])
    data = {"runs": [r for r, _ in runs], "points": points}
    write_json_atomic(store.path / EARLIER_RUNS_FILE, data)
    return data


def gathered_line(data: dict[str, Any]) -> str:
    """What the run's last lines say of it."""
    n = len(data.get("runs") or [])
    if n + 1 >= MIN_RUNS:
        return (f"ORB-added intervals pooled with {n} earlier run(s) of this campaign on this host, at each point "
                f"{MIN_RUNS - 1} or more of them had ({EARLIER_RUNS_FILE})")
    return (f"ORB-added intervals from this run's launches and a prior run-to-run spread ({PRIOR_TAU_SHARE:.0%} "
            f"of each estimate): {n} earlier run(s) of this campaign on this host, {MIN_RUNS - 1} needed to "
            f"measure the variation between runs")


def read_earlier(run_dir: Path) -> dict[str, list[EarlierValue]]:
    """What gather() kept for the run: slug -> its earlier values; {} for a run without the file."""
    try:
        data = json.loads((run_dir / EARLIER_RUNS_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return {slug: [EarlierValue(str(r), float(e), float(s), int(d)) for r, e, s, d in rows]
            for slug, rows in (data.get("points") or {}).items()}


def tau_ns(estimates: list[float], ses: list[float]) -> float:
    """The run-to-run standard deviation beyond the runs' own standard errors (0 when they explain it all)."""
    excess = statistics.variance(estimates) - statistics.fmean(s * s for s in ses)
    return max(0.0, excess) ** 0.5


def unlike_earlier(se_ns: float, df: int, earlier: list[EarlierValue]) -> bool:
    """Whether a run's own launches spread too far beyond its earlier runs' to borrow their variance: its
    variance against theirs, F test at UNLIKE_P (a run that met a busy host, or a build that changed)."""
    theirs = statistics.fmean(e.se_ns * e.se_ns for e in earlier)
    if theirs <= 0:
        return True
    return f_upper_p(se_ns * se_ns / theirs, df, sum(e.df for e in earlier)) < UNLIKE_P


def run_se(record: RunToRun) -> tuple[float, int] | None:
    """The standard error and degrees of freedom the run's interval was made with: the runs' pooled standard error
    with tau, on their summed degrees of freedom; None where the run was unlike its earlier runs and kept its own
    (then its launches alone say how much its estimate varies)."""
    if record.unlike:
        return None
    return math.hypot(record.pooled_se_ns, record.tau_ns), record.pooled_df


def with_prior(added: OrbAdded, runs: int) -> OrbAdded:
    """The ORB-added latency of a run with fewer than MIN_RUNS on its host (`runs`, itself included), its interval
    widened by the prior run-to-run tau (PRIOR_TAU_SHARE): half-width t(df) x sqrt(se^2 + tau^2), df by
    Satterthwaite with tau known, or the run's own interval where that is wider (then `unlike`: compare tests
    its launches)."""
    assert added.estimate is not None and added.se_ns and added.se_df
    assert added.ci95_low is not None and added.ci95_high is not None
    se, tau = added.se_ns, PRIOR_TAU_SHARE * abs(added.estimate)
    if tau <= 0:
        return added
    df = min(MAX_PRIOR_DF, max(added.se_df, int((se * se + tau * tau) ** 2 / (se ** 4 / added.se_df))))
    half = quantile(0.975, df) * math.hypot(se, tau)
    low, high = min(added.ci95_low, added.estimate - half), max(added.ci95_high, added.estimate + half)
    own = (low, high) == (added.ci95_low, added.ci95_high)
    record = RunToRun(runs=runs, tau_ns=round(tau, 1), pooled_se_ns=round(se, 1), pooled_df=df,
                      within_ci95_low=added.ci95_low, within_ci95_high=added.ci95_high, unlike=own, prior=True)
    if own:
        return added.replace(run_to_run=record)
    return added.replace(ci95_low=low, ci95_high=high, run_to_run=record,
                         ci_method=(added.ci_method or "") + PRIOR.format(tau=tau, share=PRIOR_TAU_SHARE, runs=runs,
                                                                          need=MIN_RUNS, df=df))


def over_runs(added: OrbAdded, earlier: list[EarlierValue]) -> OrbAdded:
    """The ORB-added latency with its interval pooled with what its earlier runs show, when this run and they
    are MIN_RUNS or more (the module's docstring); with fewer, widened by the prior tau (with_prior)."""
    if added.estimate is None or not added.se_ns or not added.se_df or added.ci95_low is None \
            or added.ci95_high is None:
        return added
    if len(earlier) + 1 < MIN_RUNS:
        return with_prior(added, len(earlier) + 1)
    estimates, ses = [e.estimate for e in earlier] + [added.estimate], [e.se_ns for e in earlier] + [added.se_ns]
    tau = tau_ns(estimates, ses)
    pooled = statistics.fmean(s * s for s in ses) ** 0.5
    df = sum(e.df for e in earlier) + added.se_df
    unlike = unlike_earlier(added.se_ns, added.se_df, earlier)
    record = RunToRun(runs=len(earlier) + 1, tau_ns=round(tau, 1), pooled_se_ns=round(pooled, 1), pooled_df=df,
                      within_ci95_low=added.ci95_low, within_ci95_high=added.ci95_high, unlike=unlike)
    half = quantile(0.975, df) * math.hypot(pooled, tau)
    if unlike:
        low, high = min(added.ci95_low, added.estimate - half), max(added.ci95_high, added.estimate + half)
    else:
        low, high = added.estimate - half, added.estimate + half
    if (low, high) == (added.ci95_low, added.ci95_high):
        return added.replace(run_to_run=record)
    return added.replace(ci95_low=low, ci95_high=high, run_to_run=record,
                         ci_method=(added.ci_method or "") + POOLED.format(runs=len(earlier) + 1, tau=tau,
                                                                            pooled=pooled, df=df)
                         + (UNLIKE if unlike else ""))


def with_run_to_run(points: dict[Point, PointSummary], run_dir: Path) -> dict[Point, PointSummary]:
    """Every ORB-added latency of the run pooled with what its earlier runs on this host say (read_earlier), or
    with the prior run-to-run tau where they are too few."""
    earlier = read_earlier(run_dir)
    out = dict(points)
    for point, summary in points.items():
        added = summary.orb_added_latency_ns
        if added is not None:
            out[point] = summary.replace(orb_added_latency_ns=over_runs(added, earlier.get(point.slug, [])))
    return out
