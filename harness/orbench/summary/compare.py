"""`orbench compare RUN_A RUN_B`: the points both runs measured, side by side; machine drift told apart from a
target's own change, and false alarms controlled across the rows.

**Drift**: per point group (placement, mode, payload: its targets' trials ran in the same minutes, so a load that
came and went hit them alike) the median move of the socket baselines, log ratio B/A of their mean trial p50s.
When every baseline is 20% slower the machine is, and a target 20% slower has not changed. **A target's own
change** is its ORB-added latency (paired per-trial differences within each run, where drift cancels). Runs whose
earlier runs on the same host set their intervals (summary/run_to_run.py) are tested as those intervals
are made: Welch's t on the two estimates, each with the runs' pooled standard error and the run-to-run tau, on
the runs' summed degrees of freedom (a moderated t: six launches' own standard error has 3 of them), unless a
run's launches spread beyond its earlier runs'.
Other runs with two process launches or more are tested on their launches' values (Welch's t on each launch's
median difference; Yuen's on their 20% trimmed means from six launches a side): the launch is where a run's
variance is, so a change must stand out against how much launches of the same build differ. Runs of one launch have only the trials of one process: the Wilcoxon-Mann-Whitney test on
the two runs' per-trial differences, the change being their Hodges-Lehmann shift (stats/significance.py),
which cannot see launch-to-launch differences (two such runs of the same build are flagged more often than the
false discovery rate says). Its p50 move is shown beside
the drift, not tested again. A baseline's p50 is tested against its point group's drift only when there are
three baselines or more (with two, their moves are the drift and neither tells which one moved); other rows
without an ORB-added latency are tested against the drift (Welch, log scale). **Many rows**: all p values of a
comparison go through the Benjamini-Hochberg procedure at a false discovery rate of 5%, and a flag also needs a
change at least as large as two runs of the same build show (MIN_P50_CHANGE_PCT beyond drift;
MIN_ADDED_CHANGE_NS and MIN_ADDED_CHANGE_PCT): trials within one run share their workers' processes, so two runs
differ by a little more than their trials do. A flag means "moved"; no flag means "not shown to have moved",
never "the same". Runs from different environments (kernel, CPU, placement, JDK, ORB versions, orbench commit),
or run while other processes kept the machine busy, are compared with a warning naming each. Both summaries are
recomputed from the raw samples, so runs made by an older orbench compare on today's statistics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from orbench.results.point import Point, PointGroup
from orbench.results.store import RunStore
from orbench.results.units import fmt_ns
from orbench.stats.significance import (
    FDR_Q,
    POWER,
    Change,
    benjamini_hochberg,
    drift,
    log_values,
    minimum_detectable,
    pct,
    rank_shift,
    welch,
    welch_estimates,
)
from orbench.summary.envdiff import environment_differences
from orbench.summary.instructions import compare_instructions, format_instruction_rows
from orbench.summary.model import OrbAdded, PointSummary, RunSummary
from orbench.summary.run_checks import BUSY_FOREIGN_CPU_PCT
from orbench.summary.run_to_run import run_se
from orbench.summary.summary import summarize
from orbench.summary.table import aligned, columns
from orbench.targets.descriptor import PARAMETER_SEPARATOR

# The smallest changes flagged: about what two runs of the same build differ by (the user guide, "Known answers").
# An ORB-added floor at the change to be found (it was 100 ns and 5%) passes only the runs whose estimate came out
# above the true change; the launches' own test is what keeps A/A pairs quiet (21 pairs of quick runs: no row
# flagged at this floor, one with none at all).
MIN_P50_CHANGE_PCT = 3.0
MIN_ADDED_CHANGE_NS = 50.0
MIN_ADDED_CHANGE_PCT = 2.5
# How an ORB-added row is tested when both runs had earlier runs on their host (_run_se), else over launches.
OVER_RUNS_TEST = "welch over runs on this host"
# ... or where either run had too few runs on its host, its own standard error with the prior run-to-run tau.
OVER_RUNS_PRIOR_TEST = "welch with a prior run-to-run spread"
OVER_LAUNCHES_TEST = "welch over launches"

# What one drift line of the comparison covers: a point group without its payload.
DRIFT_SCOPE = ("host_pair", "placement", "options", "mode", "clients", "rate_hz")


@dataclass
class Interval:
    estimate: float | None
    low: float | None
    high: float | None

    def text(self) -> str:
        if self.estimate is None:
            return "-"
        if self.low is None:
            return fmt_ns(self.estimate)
        return f"{fmt_ns(self.estimate)} [{fmt_ns(self.low)}, {fmt_ns(self.high)}]"


def _p50(p: PointSummary) -> Interval:
    ci = p.p50_ci95_ns
    return Interval(p.p50, None if ci is None else ci.low, None if ci is None else ci.high)


def _added(p: PointSummary) -> Interval:
    a = p.orb_added_latency_ns
    return Interval(None, None, None) if a is None else Interval(a.estimate, a.ci95_low, a.ci95_high)


def _trial_p50s(p: PointSummary) -> list[float]:
    """The values a p50 move is tested on: each launch's value when the point has two launches or more (the
    launch is where the variance is), else the trials' p50s."""
    launches = () if p.launches is None else p.launches.values
    if len(launches) >= 2:
        return [v.estimate for v in launches]
    return [] if p.trial_p50_ns is None else list(p.trial_p50_ns.values)


def _launch_added(p: PointSummary) -> list[float]:
    a = p.orb_added_latency_ns
    return [v.estimate for v in (a.launches or ())] if a is not None else []


def _baseline_moves(pa: dict[Point, PointSummary], pb: dict[Point, PointSummary]) -> dict[PointGroup, dict[str, float]]:
    """Per point group (its targets' trials ran in the same minutes, so a load that came and went hit them
    alike): each socket baseline's move, the log ratio of its mean trial p50 B/A."""
    moves: dict[PointGroup, dict[str, float]] = {}
    for key, a in pa.items():
        b = pb.get(key)
        if b is None or a.kind != "socket":
            continue
        la, lb = log_values(_trial_p50s(a)), log_values(_trial_p50s(b))
        if la and lb:
            moves.setdefault(key.group, {})[key.target] = sum(lb) / len(lb) - sum(la) / len(la)
    return moves


def _drift_summary(moves: dict[PointGroup, dict[str, float]]) -> tuple[dict[Any, float], list[dict[str, Any]]]:
    """The machine's drift: per point group the median move of its baselines, and per DRIFT_SCOPE (a point
    group without its payload) the median of those, for point groups without a baseline and for the reader."""
    per_group: dict[Any, float] = {g: d for g, m in moves.items() if (d := drift(list(m.values()))) is not None}
    by_scope: dict[str, list[float]] = {}
    for group, d in list(per_group.items()):
        by_scope.setdefault(group.label_of(*DRIFT_SCOPE), []).append(d)
    summary = []
    for scope, values in by_scope.items():
        d = drift(values)
        assert d is not None
        per_group[scope] = d
        summary.append({"scope": scope, "drift_pct": pct(d), "point_groups": len(values),
                        "range_pct": [pct(min(values)), pct(max(values))]})
    return per_group, summary


def _p50_null(key: Point, row_has_added: bool, moves: dict[PointGroup, dict[str, float]],
              drifts: dict[Any, float]) -> tuple[float, str | None]:
    """What a row's p50 move is judged against, and why it is not tested (None: it is). A target with an
    ORB-added latency is judged by that (its own change; drift cancels in it): its p50 move is shown beside the
    drift, untested. A baseline is judged against its point group's drift (the median move of its baselines)
    only when there are three or more: with two, their moves are the drift and neither tells which one moved."""
    group_drift = drifts.get(key.group, drifts.get(key.label_of(*DRIFT_SCOPE), 0.0))
    if row_has_added:
        return group_drift, "judged by its ORB-added latency"
    baselines = moves.get(key.group, {})
    if key.target in baselines and len(baselines) < 3:
        return group_drift, "a baseline: with fewer than three at the point, the baselines' moves are the drift"
    return group_drift, None


def _p50_change(a: PointSummary, b: PointSummary, log_drift: float, untested: str | None) -> dict[str, Any]:
    ia, ib = _p50(a), _p50(b)
    out: dict[str, Any] = {"a": ia.__dict__, "b": ib.__dict__, "change_pct": None, "beyond_drift_pct": None,
                           "p": None, "flag": None, "untested": untested}
    if ia.estimate is None or ib.estimate is None:
        return out
    out["change_pct"] = (ib.estimate - ia.estimate) / abs(ia.estimate) * 100 if ia.estimate else None
    la, lb = log_values(_trial_p50s(a)), log_values(_trial_p50s(b))
    if la and lb:
        change = welch(la, lb, null=log_drift)
        out.update(beyond_drift_pct=pct(change.estimate), p=change.p, se=change.se, df=change.df,
                   beyond_drift_ci_pct=None if change.low is None else [pct(change.low), pct(change.high)])
    return out


def _added_change(a: PointSummary, b: PointSummary) -> dict[str, Any] | None:
    ia, ib = _added(a), _added(b)
    if ia.estimate is None and ib.estimate is None:
        return None
    out: dict[str, Any] = {"a": ia.__dict__, "b": ib.__dict__, "change_ns": None, "change_pct": None, "p": None,
                           "flag": None}
    pa = list((a.orb_added_latency_ns and a.orb_added_latency_ns.per_pair) or ())
    pb = list((b.orb_added_latency_ns and b.orb_added_latency_ns.per_pair) or ())
    la, lb = _launch_added(a), _launch_added(b)
    ra, rb = _run_se(a.orb_added_latency_ns), _run_se(b.orb_added_latency_ns)
    change: Change
    if ra is not None and rb is not None and ia.estimate is not None and ib.estimate is not None:
        # Both runs' earlier runs on their host say what a run's estimate varies by, on far more degrees of
        # freedom than six launches' three: the row is judged by that, as its interval is.
        change = welch_estimates(ia.estimate, ra[0], ra[1], ib.estimate, rb[0], rb[1])
        prior = any(x.orb_added_latency_ns.run_to_run.prior for x in (a, b))  # type: ignore[union-attr]
        out["test"] = OVER_RUNS_PRIOR_TEST if prior else OVER_RUNS_TEST
    elif len(la) >= 2 and len(lb) >= 2:
        # Judged against the launches' spread: rows that differ by launch alone are not a change.
        change = welch(la, lb)
        out["test"] = OVER_LAUNCHES_TEST
    elif pa and pb:
        # One launch on a side: only the trials of one process to go by (pseudo-replication; the row says so).
        change = rank_shift(pa, pb)
        out["test"] = "rank test over the trials of one launch"
    if out.get("test"):
        out.update(change_ns=change.estimate, change_ci_ns=None if change.low is None else [change.low, change.high],
                   p=change.p, se=change.se, df=change.df)
        if ia.estimate:
            out["change_pct"] = change.estimate / abs(ia.estimate) * 100
    return out


def _run_se(added: OrbAdded | None) -> tuple[float, int] | None:
    """The standard error and degrees of freedom the run's interval was made with where earlier runs on its host,
    or the prior run-to-run tau, set it (run_to_run.run_se); None where the run kept its own: its test is then
    its own too."""
    return None if added is None or added.run_to_run is None else run_se(added.run_to_run)


def _minimum_change(quantity: str, change: dict, alpha: float) -> float | None:
    """The row's minimum detectable effect: the smallest change flagged with probability POWER were it the only
    change of the comparison (Benjamini-Hochberg then asks p <= q / tests), at the row's own spread, and never
    below the smallest change a flag needs. p50 rows in percent beyond drift, ORB-added rows in ns."""
    if change.get("se") is None:
        return None
    k = minimum_detectable(float(change["se"]), change.get("df"), alpha)
    if quantity == "p50":
        return max(pct(k), MIN_P50_CHANGE_PCT)
    a = change["a"].get("estimate")
    return max(k, MIN_ADDED_CHANGE_NS, MIN_ADDED_CHANGE_PCT / 100 * abs(a) if a is not None else 0.0)


def _large_enough(quantity: str, change: dict) -> bool:
    if quantity == "p50":
        return abs(change.get("beyond_drift_pct") or 0) >= MIN_P50_CHANGE_PCT
    ns = abs(change.get("change_ns") or 0)
    return ns >= MIN_ADDED_CHANGE_NS and (change["change_pct"] is None or abs(change["change_pct"]) >= MIN_ADDED_CHANGE_PCT)


def compare_summaries(a: RunSummary, b: RunSummary, manifests: tuple[dict, dict] | None = None) -> dict[str, Any]:
    pa = {p.point: p for p in a.measured()}
    pb = {p.point: p for p in b.measured()}
    moves = _baseline_moves(pa, pb)
    drifts, drift_summary = _drift_summary(moves)
    pairs = [(k, k) for k in pa if k in pb] + _instance_pairs(pa, pb)
    rows = []
    for key, key_b in pairs:
        target = key.target if key_b == key else f"{key.target} / {key_b.target.split(PARAMETER_SEPARATOR)[1]}"
        added = _added_change(pa[key], pb[key_b])
        null, untested = _p50_null(key, added is not None, moves, drifts)
        row: dict[str, Any] = {**key.as_record(), "target": target, "kind": pa[key].kind,
                               "p50": _p50_change(pa[key], pb[key_b], null, untested)}
        if added is not None:
            row["orb_added"] = added
        rows.append(row)
    # Benjamini-Hochberg over every test of the comparison, then the size each flag needs.
    tests = [(r, q) for r in rows for q in ("p50", "orb_added")
             if r.get(q) and r[q].get("p") is not None and not r[q].get("untested")]
    rejected = benjamini_hochberg([r[q]["p"] for r, q in tests], FDR_Q)
    for (r, q), reject in zip(tests, rejected):
        change = r[q]
        r[q]["significant"] = reject
        if reject and _large_enough(q, change):
            moved = change["beyond_drift_pct"] if q == "p50" else change["change_ns"]
            change["flag"] = "slower" if moved > 0 else "faster"
    # Each tested row's minimum detectable effect: what a lone change must be to be flagged (power POWER).
    alpha = FDR_Q / max(1, len(tests))
    for r, q in tests:
        mde = _minimum_change(q, r[q], alpha)
        if mde is not None:
            r[q]["mde_pct" if q == "p50" else "mde_ns"] = mde
    flagged_rows = sum(1 for r in rows if any((r.get(q) or {}).get("flag") for q in ("p50", "orb_added")))
    env = [d.text() for d in environment_differences(*manifests)] if manifests else []
    env = [f"the runs' environments differ: {d}" for d in env]
    for side, summary in (("A", a), ("B", b)):
        foreign = summary.machine.foreign_cpu_pct
        if foreign is not None and foreign > BUSY_FOREIGN_CPU_PCT:
            env.append(f"run {side} shared the machine: other processes used {foreign:.0f}% of the CPUs' time over the "
                       "trials; latency and ORB-added latency grow with contention, so a flag may be the load")
    counted = compare_instructions(a, b)
    return {"run_a": a.run_id, "run_b": b.run_id, "points": rows, "instructions": counted,
            "drift": drift_summary, "tests": len(tests), "fdr_q": FDR_Q,
            "min_change": {"p50_beyond_drift_pct": MIN_P50_CHANGE_PCT, "orb_added_ns": MIN_ADDED_CHANGE_NS,
                           "orb_added_pct": MIN_ADDED_CHANGE_PCT},
            "mde": {"power": POWER, "alpha": alpha},
            "warnings": env,
            "only_in_a": [k.label for k in pa if k not in {ka for ka, _ in pairs}],
            "only_in_b": [k.label for k in pb if k not in {kb for _, kb in pairs}],
            "flagged": sum(1 for r in rows for q in ("p50", "orb_added") if (r.get(q) or {}).get("flag"))
            + sum(1 for r in counted if r.get("flag")),
            "flagged_rows": flagged_rows + sum(1 for r in counted if r.get("flag"))}


def _instance_pairs(pa: dict[Point, PointSummary], pb: dict[Point, PointSummary]) -> list[tuple[Point, Point]]:
    """Instances of one descriptor with a parameter that only one run has at a point (c-socket-delay@2000 in A,
    c-socket-delay@2500 in B) compare as one row when each run has exactly one such instance there: the row
    then shows what the change of the parameter did."""
    def by_descriptor(points: dict[Point, PointSummary], other: dict[Point, PointSummary]) -> dict[tuple, list[Point]]:
        out: dict[tuple, list[Point]] = {}
        for k in points:
            if k not in other and PARAMETER_SEPARATOR in k.target:
                out.setdefault((k.group, k.target.split(PARAMETER_SEPARATOR)[0]), []).append(k)
        return out

    only_a, only_b = by_descriptor(pa, pb), by_descriptor(pb, pa)
    return [(only_a[d][0], only_b[d][0]) for d in only_a if len(only_a[d]) == 1 and len(only_b.get(d, [])) == 1]


def compare_runs(a: RunStore, b: RunStore) -> dict[str, Any]:
    """Both runs summarised afresh from their raw samples (older runs are upgraded as they are read); a damaged
    trial is left out (integrity.py) and the comparison says how many each run lost."""
    sa, sb = summarize(a), summarize(b)
    result = compare_summaries(sa, sb, (a.read_manifest(), b.read_manifest()))
    for side, store, s in (("A", a, sa), ("B", b, sb)):
        if s.damaged:
            result["warnings"].append(f"run {side} has {len(s.damaged)} damaged trial(s), left out of its figures "
                                      f"(`orbench verify {store.path}` lists them)")
    return result


def _flag_text(change: dict) -> str:
    return {"slower": "SLOWER", "faster": "FASTER"}.get(change.get("flag") or "", "")


def _p50_cells(change: dict) -> tuple[str, str, str, str]:
    a, b = Interval(**change["a"]), Interval(**change["b"])
    moved = "" if change.get("beyond_drift_pct") is None else f"{change['beyond_drift_pct']:+.1f}%"
    return (a.text(), b.text(), moved, _flag_text(change))


def _added_cells(change: dict | None) -> tuple[str, str, str, str]:
    if not change:
        return ("", "", "", "")
    a, b = Interval(**change["a"]), Interval(**change["b"])
    moved = ""
    if change.get("change_ns") is not None:
        sign = "+" if change["change_ns"] >= 0 else "-"
        moved = f"{sign}{fmt_ns(abs(change['change_ns']))}"
        if change.get("change_ci_ns"):
            lo, hi = change["change_ci_ns"]
            moved += f" [{fmt_ns(lo) if lo >= 0 else '-' + fmt_ns(-lo)}, {fmt_ns(hi) if hi >= 0 else '-' + fmt_ns(-hi)}]"
    return (a.text(), b.text(), moved, _flag_text(change))


def _mde_cell(row: dict) -> str:
    """The row's minimum detectable effect, from the quantity it is judged by."""
    added = row.get("orb_added") or {}
    if added.get("mde_ns") is not None:
        return f"{fmt_ns(added['mde_ns'])}"
    if row["p50"].get("mde_pct") is not None:
        return f"{row['p50']['mde_pct']:.1f}%"
    return "-"


def format_comparison(result: dict[str, Any]) -> str:
    header = ("placement", "mode", "payload", "target", "p50 A [95% CI]", "p50 B [95% CI]", "beyond drift", "",
              "ORB-added A", "ORB-added B", "change [95% CI]", "", "MDE")
    rows: list[tuple[str, ...]] = [header]
    for r in result["points"]:
        rows.append((*columns(Point.from_record(r)), *_p50_cells(r["p50"]), *_added_cells(r.get("orb_added")),
                     _mde_cell(r)))
    lines = [f"A = {result['run_a']}", f"B = {result['run_b']}"]
    for w in result.get("warnings", []):
        lines.append(f"warning: {w}")
    for d in result.get("drift", []):
        lo, hi = d["range_pct"]
        lines.append(f"machine drift {d['scope']}: the socket baselines moved {d['drift_pct']:+.1f}% "
                     f"(median over {d['point_groups']} point groups, from {lo:+.1f}% to {hi:+.1f}%); each p50 is judged "
                     "beyond its own point group's drift")
    mc = result["min_change"]
    lines += [f"flag: a target's own change is its ORB-added latency (Welch's t over the runs' launches; runs of one "
              "launch: Wilcoxon-Mann-Whitney on the paired trial differences of that one process); rows "
              "without one: p50 beyond drift (log scale; baselines only when three or more); Benjamini-Hochberg at "
              f"q = {result['fdr_q']} over {result['tests']} tests, and a change of at least "
              f"{fmt_ns(mc['orb_added_ns'])} and {mc['orb_added_pct']:g}% (ORB-added) or {mc['p50_beyond_drift_pct']:g}% "
              "(p50)"]
    if result.get("mde"):
        lines.append(f"MDE: the smallest change a row could have flagged, with probability {result['mde']['power']:.0%} "
                     "were it the only change (Benjamini-Hochberg then asks p <= q / tests = "
                     f"{result['mde']['alpha']:.2g}), at the row's spread and at least the smallest change a flag "
                     "needs; ORB-added in ns, p50 in % beyond drift. An unflagged row reads \"no change larger than "
                     "its MDE\", never \"the same\"")
    lines.append("")
    lines += aligned(rows)
    for side in ("a", "b"):
        if result[f"only_in_{side}"]:
            lines.append(f"only in {side.upper()}: " + ", ".join(result[f"only_in_{side}"]))
    lines.extend(format_instruction_rows(result.get("instructions") or []))
    lines.append(f"{len(result['points'])} common point(s), {len(result.get('instructions') or [])} counted "
                 f"worker(s), {result['flagged']} change(s) flagged in {result['flagged_rows']} row(s)")
    return "\n".join(lines)
