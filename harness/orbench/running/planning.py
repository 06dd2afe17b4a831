"""Planned repetitions (campaign keys repetitions, budget, plan_from, max_launches; stats/repetitions.py has the
model): from evidence (a previous run of the campaign, the pilot launch, the launches so far) the variance of
each level and the cost of each, per point group; then the launches, the trials per launch and the calls per
trial, per point group, that reach the precision target in the least time, or the most precision that fits the
time left of a budget.

The evidence's trials give the variances (their p50s by launch and trial, their samples for the calls' part);
its time accounting gives the costs (results/accounting.py). A group the evidence did not measure keeps the
campaign's trials and calls.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from orbench.campaign.spec import Campaign
from orbench.results.accounting import TimeAccount, time_account
from orbench.results.point import PointGroup
from orbench.results.repetitions import GroupPlan, RepetitionPlan, RowPlan, half_width_text
from orbench.results.store import RunStore
from orbench.results.trial import Trial
from orbench.results.units import fmt_duration, fmt_ns
from orbench.running.flood import most_calls
from orbench.stats.phases import one_cpu_calls, slice_values
from orbench.stats.repetitions import (
    GroupCost,
    GroupInput,
    RowData,
    block_call_var,
    estimate,
    kalibera_jones_trials,
    launch_ratio,
    plan_for_budget,
    plan_for_target,
    plan_with_room,
)
from orbench.stats.stats import read_samples

# The calls per trial a plan may choose: these multiples of the campaign's `calls`, never below MIN_CALLS (a
# p99 over fewer calls rests on fewer than five values).
CALL_FACTORS = (0.5, 1.0, 2.0, 4.0)
MIN_CALLS = 500
# Trials per launch: at least two, so that each launch still shows its trial-to-trial spread.
MIN_TRIALS = 2
# Without a precision target (a budget alone), every row aims at the same half-width relative to its p50.
RELATIVE_AIM = 0.01
# Seconds a run's summary and report take when no earlier run of the campaign says: per point, and fixed.
AFTER_RUN_PER_POINT_S = 0.15
AFTER_RUN_FIXED_S = 4.0
# How much longer than planned a launch may run before the next one: the plan of the launches still to run keeps
# this share of one launch's seconds unspent while two or more remain. In four middleware runs on a 2-vCPU VM the
# launches ran 0.78-1.23 times their planned share; the one at 1.23 (run 20261130-153008-vm, its third: 221 s
# against 179) left 2 min 18 s, too few for the fourth, and the run ended with three.
LAUNCH_OVERRUN = 0.25


@dataclass(frozen=True)
class Evidence:
    """What a plan is made from: trials whose samples lie under `root`, the time records, where they came from."""

    source: str
    trials: tuple[Trial, ...]
    root: Path
    account: TimeAccount | None
    status: str = ""           # the run's manifest status ("complete", "interrupted", ...)

    @property
    def launches(self) -> int:
        return len({t.launch for t in self.trials})


def evidence_of(store: RunStore, source: str, launches: set[int] | None = None) -> Evidence:
    """A run's trials (those of `launches`, when given) and time accounting."""
    manifest, trials = store.read()
    ok = tuple(t for t in trials if launches is None or t.launch in launches)
    return Evidence(source, ok, store.path, time_account(manifest), str(manifest.get("status") or ""))


def previous_evidence(campaign: Campaign, current: Path) -> Evidence | None:
    """The newest earlier finished run of the campaign (beside `current` in the results store) that measured
    any of its point groups. Passed over: an interrupted or failed run (its launches may be few), and a run made
    before orbench kept its time accounting (no cost per launch: a budget would be overrun)."""
    wanted = {g for pair in campaign.host_pairs() for o in campaign.option_labels()
              for g in campaign.point_groups(pair.label, o)}
    for path in reversed(RunStore(current).other_runs()):
        store = RunStore(path)
        try:
            evidence = evidence_of(store, f"previous run {path.name}")
        except Exception:  # noqa: BLE001 - an unreadable old run is simply not evidence
            continue
        if (evidence.status.startswith("complete") and evidence.account is not None
                and any(t.ok and t.point.group in wanted for t in evidence.trials)):
            return evidence
    return None


@functools.lru_cache(maxsize=65536)
def call_var(path: Path) -> float | None:
    """k_call of one trial's samples file (a plan after every launch asks again; the files never change)."""
    return block_call_var(read_samples(path)) if path.is_file() else None


@functools.lru_cache(maxsize=65536)
def trial_slices(trial: Trial, root: Path) -> tuple[float, ...]:
    """A sliced trial's slice values in order, as the summary pairs them (stats/phases.slice_values)."""
    values = slice_values([trial], one_cpu_calls([trial], root))
    return tuple(values[k] for k in sorted(values))


# -- rows: what a reader takes from a point group -------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    data: RowData
    estimate_ns: float     # the row's value: the ORB-added latency or the p50 (mean of launch medians)
    scale_ns: float        # the p50 its relative aim is taken of


def _launch_mean(per_launch: Mapping[int, list[float]]) -> float:
    return float(np.mean([np.median(v) for v in per_launch.values() if v]))


def rows_of(evidence: Evidence, baselines: Mapping[str, str]) -> dict[PointGroup, dict[str, Row]]:
    """Per point group: a p50 row per target and an ORB-added row per ORB with its baseline."""
    p50: dict[tuple[PointGroup, str], dict[int, dict[int, float]]] = {}
    slices: dict[tuple[PointGroup, str], dict[tuple[int, int], tuple[float, ...]]] = {}
    kcall: dict[tuple[PointGroup, str], dict[tuple[int, int], float]] = {}
    seen_calls: dict[PointGroup, list[int]] = {}
    for t in evidence.trials:
        if not t.ok or t.p50_ns is None or not t.calls:
            continue
        key = (t.point.group, t.point.target)
        p50.setdefault(key, {}).setdefault(t.launch, {})[t.trial] = float(t.p50_ns)
        if t.slice_p50s_ns:
            slices.setdefault(key, {})[(t.launch, t.trial)] = trial_slices(t, evidence.root)
        # A trial's calls are every client's (N processes or N threads); a plan chooses each client's.
        per_client = max(1, t.calls // max(1, t.point.clients))
        seen_calls.setdefault(t.point.group, []).append(per_client)
        if t.samples_file:
            k = call_var(evidence.root / str(t.samples_file))
            if k is not None:
                kcall.setdefault(key, {})[(t.launch, t.trial)] = k * per_client / t.calls
    calls = {g: int(np.median(c)) for g, c in seen_calls.items()}
    out: dict[PointGroup, dict[str, Row]] = {}
    for (group, target), by_launch in p50.items():
        per_launch = {launch: [v[k] for k in sorted(v)] for launch, v in by_launch.items()}
        mine = kcall.get((group, target), {})
        mean = _launch_mean(per_launch)
        out.setdefault(group, {})[f"p50 {target}"] = Row(RowData(per_launch, calls[group], list(mine.values())),
                                                         mean, mean)
    for (group, orb), by_launch in p50.items():
        base = baselines.get(orb)
        if base is None or (group, base) not in p50:
            continue
        other = p50[(group, base)]
        so, sb = slices.get((group, orb), {}), slices.get((group, base), {})
        diffs = {launch: [_trial_added(v[k], other[launch][k], so.get((launch, k)), sb.get((launch, k)))
                          for k in sorted(v) if k in other.get(launch, {})]
                 for launch, v in by_launch.items()}
        diffs = {launch: d for launch, d in diffs.items() if d}
        if not diffs:
            continue
        ko, kb = kcall.get((group, orb), {}), kcall.get((group, base), {})
        ks = [ko[k] + kb[k] for k in ko if k in kb]
        scale = out[group][f"p50 {orb}"].estimate_ns
        out[group][f"ORB-added {orb}"] = Row(RowData(diffs, calls[group], ks), _launch_mean(diffs), scale)
    return out


def _trial_added(orb_p50: float, base_p50: float, orb_slices: tuple[float, ...] | None,
                 base_slices: tuple[float, ...] | None) -> float:
    """A trial pair's ORB-added value: the median of its slice pairs' differences when both were sliced alike
    (what a launch's value is the median of, summary/pairing.py), else the trials' p50 difference."""
    if orb_slices and base_slices and len(orb_slices) == len(base_slices):
        return float(np.median([o - b for o, b in zip(orb_slices, base_slices)]))
    return orb_p50 - base_p50


def row_target_ns(campaign: Campaign, name: str, row: Row) -> float | None:
    """The half-width a row aims at (ns), None when the campaign's target says nothing of it. Either of the
    ORB-added keys suffices, as in the stopping rule; target_ci_pct bounds the p50 interval's whole width."""
    s = campaign.settings
    if not s.has_precision_target:
        return RELATIVE_AIM * abs(row.scale_ns)
    if name.startswith("ORB-added"):
        if s.target_added_ci_ns is None and s.target_added_ci_pct is None:
            return None
        return max(s.target_added_ci_ns or 0.0, (s.target_added_ci_pct or 0.0) / 100 * abs(row.estimate_ns)) or None
    if s.target_ci_pct is None:
        return None
    return s.target_ci_pct / 200 * abs(row.estimate_ns)


# -- costs ------------------------------------------------------------------------------------------------------
# Phases paid once per group and launch whatever its trials and calls (the profiled trials: once, at the end).
PER_LAUNCH_PHASES = ("full_warmup", "steady_chunks", "profiles")


def group_costs(evidence: Evidence, anatomy_trials: str) -> tuple[dict[PointGroup, GroupCost], float, float]:
    """Per point group its seconds per launch, per round and per call of a round (means over the evidence's
    launches); the seconds every launch costs besides its groups (the workers' starts, the harness between
    groups); and the seconds only a run's first launch pays (with `anatomy_trials` "first-launch", its anatomy
    readings beyond the later launches' per-trial ones)."""
    account = evidence.account
    if account is None:  # no evidence of costs (previous_evidence passes such runs over)
        return {}, 0.0, 0.0
    # The anatomy phase holds the anatomy counters' readings and every trial's own (its TCP segments, its CPU
    # use): with the counters on a launch's first round ("first-round") it is a launch's cost; in the first launch
    # only ("first-launch"), the later launches show the per-trial part and the first launch pays the rest once.
    once_only = anatomy_trials == "first-launch"
    fixed_phases = PER_LAUNCH_PHASES + (("anatomy",) if anatomy_trials == "first-round" else ())
    # Rounds and calls as the trials show them, for records that do not say (an older run's).
    rounds_seen: dict[tuple[PointGroup, int], set[int]] = {}
    calls_seen: dict[PointGroup, int] = {}
    for t in evidence.trials:
        rounds_seen.setdefault((t.point.group, t.launch), set()).add(t.trial)
        if t.calls and t.ok:
            calls_seen[t.point.group] = t.calls // max(1, t.point.clients)
    per_group: dict[PointGroup, list[GroupCost]] = {}
    readings: dict[PointGroup, list[float]] = {}   # the anatomy phase's seconds per round, launches after the first
    first: dict[PointGroup, tuple[float, int]] = {}  # the first launch's anatomy seconds and rounds
    for r in account.records:
        if r.group is None:
            continue
        group = PointGroup.from_record(r.group)
        rounds = r.rounds or len(rounds_seen.get((group, r.launch), ()))
        calls = r.calls or calls_seen.get(group, 0)
        if rounds <= 0 or calls <= 0:
            continue
        anatomy = r.seconds.get("anatomy", 0.0)
        if once_only and r.launch == 0:
            first[group] = (anatomy, rounds)
        elif once_only:
            readings.setdefault(group, []).append(anatomy / rounds)
        per_launch = sum(r.seconds.get(p, 0.0) for p in fixed_phases)
        per_round = sum(s for p, s in r.seconds.items()
                        if p not in fixed_phases and p != "timed_calls" and not (once_only and p == "anatomy"))
        per_call = r.seconds.get("timed_calls", 0.0) / (rounds * calls)
        per_group.setdefault(group, []).append(GroupCost(per_launch, per_round / rounds, per_call))
    costs = {g: GroupCost(*(float(np.mean(x)) for x in zip(*[(c.per_launch_s, c.per_round_s, c.per_call_s)
                                                               for c in cs]))) for g, cs in per_group.items()}
    once = 0.0
    if once_only:
        # A group seen in the first launch only reads as the others do per round (none seen: all of it once).
        usual = float(np.median([v for vs in readings.values() for v in vs])) if readings else 0.0
        for g, cost in costs.items():
            per_round = float(np.mean(readings[g])) if g in readings else usual
            costs[g] = GroupCost(cost.per_launch_s, cost.per_round_s + per_round, cost.per_call_s)
            if g in first:
                seconds, rounds = first[g]
                once += max(0.0, seconds - per_round * rounds)
    launches = max(1, len({r.launch for r in account.records}))
    workers = sum(r.seconds.get("workers", 0.0) for r in account.records if r.group is None)
    in_groups = sum(r.seconds.get("harness", 0.0) for r in account.records)
    between = max(0.0, account.seconds.get("harness", 0.0) - in_groups)
    return costs, (workers + between) / launches, once


def after_run_s(evidence: Evidence | None, points: int) -> float:
    """What the summary and the report will take: as the evidence's run took, else an estimate by points."""
    if evidence is not None and evidence.account is not None and evidence.account.after_run:
        return sum(evidence.account.after_run.values())
    return AFTER_RUN_FIXED_S + AFTER_RUN_PER_POINT_S * points


# -- the plan -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Bounds:
    launches: range
    trials: range
    calls: tuple[int, ...]

    @classmethod
    def of(cls, campaign: Campaign, launches_done: int, for_budget: bool) -> Bounds:
        """A budget may have to settle for a single launch (no interval over launches: an infinite half-width
        to the planner); a target needs two. Never past max_launches: once they ran, the range is empty."""
        s = campaign.settings
        most = s.max_launches
        fewest = launches_done + 1 if for_budget else max(2, launches_done + 1)
        calls = tuple(sorted({max(MIN_CALLS, int(s.calls * f)) for f in CALL_FACTORS}))
        return cls(range(fewest, most + 1), range(MIN_TRIALS, max(s.max_trials, s.trials) + 1), calls)


def make_plan(campaign: Campaign, evidence: Evidence, groups: list[PointGroup], launches_done: int,
              after_launch: int | None, budget_left_s: float | None) -> RepetitionPlan:
    """The plan for the launches still to run (`launches_done` ran already): per group its trials and calls;
    with `budget_left_s`, the most precision that fits it, else the least time to the target."""
    baselines = {t.name: t.baseline for t in campaign.targets if t.baseline}
    rows = rows_of(evidence, baselines)
    costs, launch_fixed, first_launch_s = group_costs(evidence, campaign.settings.anatomy_trials)
    # What the first launch pays besides its share (group_costs) is not the launches' to spend.
    first_extra = first_launch_s if launches_done == 0 else 0.0
    ratio = launch_ratio([r.data for g in rows.values() for r in g.values()])
    bounds = Bounds.of(campaign, launches_done, budget_left_s is not None)
    aim = "budget" if budget_left_s is not None else "target"
    if not bounds.launches:
        return RepetitionPlan(after_launch, evidence.source, aim, launches_done, 0.0, math.inf, False, launch_fixed,
                              f"max_launches ({campaign.settings.max_launches}) ran", (), budget_left_s)
    default_cost = _median_cost(costs)
    inputs, variances, targets = [], {}, {}
    for g in groups:
        mine = rows.get(g, {})
        v = {name: estimate(r.data, ratio) for name, r in mine.items()}
        t = {name: tn for name, r in mine.items() if (tn := row_target_ns(campaign, name, r)) is not None and tn > 0}
        variances[g], targets[g] = v, t
        most = most_calls(g.payload_bytes, MIN_CALLS) if g.mode == "oneway" else None
        inputs.append(GroupInput(g.label, v, t, costs.get(g, default_cost), most))
    note = ""
    if budget_left_s is not None:
        choice, kept = plan_with_room(inputs, launch_fixed, budget_left_s - first_extra, bounds.launches, bounds.trials,
                                      bounds.calls, launches_done, LAUNCH_OVERRUN)
        if kept:
            note = (f" {kept:.0f} s ({LAUNCH_OVERRUN:.0%} of a launch) kept unplanned for a launch that runs long, "
                    "so that the last one still fits.")
        if first_extra:
            note += f" {first_extra:.0f} s kept for the first launch's anatomy readings."
        if choice is None and launches_done == 0:
            # A run measures something: one launch at the fewest trials and calls, over the budget.
            choice = plan_for_budget(inputs, launch_fixed, math.inf, [1], bounds.trials[:1], bounds.calls[:1])
            note = (f" The budget's {fmt_duration(max(0.0, budget_left_s))} left do not pay for even one launch at "
                    f"{bounds.trials[0]} trials of {bounds.calls[0]} calls: one such launch runs anyway.")
    else:
        choice = plan_for_target(inputs, launch_fixed, bounds.launches, bounds.trials, bounds.calls, launches_done)
        if not choice.met:
            # Out of reach within max_launches and max_trials: no more time than the fixed repetitions would take.
            fixed = fixed_seconds(campaign, inputs, launch_fixed, launches_done)
            within = plan_for_budget(inputs, launch_fixed, fixed, bounds.launches, bounds.trials, bounds.calls,
                                     launches_done)
            if within is not None:
                choice = within
                note = (" The target is out of reach within max_launches and max_trials: the plan is the most "
                        f"precision in the {fmt_duration(round(fixed, 1))} the campaign's own launches, trials and calls "
                        "would take.")
    if choice is None:  # not even one more launch at the fewest trials and calls fits the budget
        return RepetitionPlan(after_launch, evidence.source, aim, launches_done, 0.0, math.inf, False, launch_fixed,
                              f"no further launch fits the {fmt_duration(max(0.0, budget_left_s or 0.0))} left of the "
                              "budget", (), budget_left_s)
    plans = []
    for g, gi in zip(groups, inputs):
        pick = choice.groups[gi.key]
        cost = gi.cost
        plans.append(GroupPlan(
            g, pick.trials, pick.calls, pick.seconds_per_launch, pick.ratio,
            {name: RowPlan(targets[g].get(name, 0.0), v.half_width(choice.launches, pick.trials, pick.calls),
                           v.as_dict(), kalibera_jones_trials(v, cost.per_launch_s + launch_fixed / max(1, len(groups)),
                                                              cost.per_round_s + pick.calls * cost.per_call_s,
                                                              pick.calls))
             for name, v in variances[g].items()},
            {"per_launch_s": cost.per_launch_s, "per_round_s": cost.per_round_s, "per_call_s": cost.per_call_s}))
    return RepetitionPlan(after_launch, evidence.source, aim, choice.launches, choice.seconds, choice.worst_ratio,
                          choice.met, launch_fixed, _why(campaign, choice.launches, launches_done, plans, ratio, aim,
                                                         budget_left_s, choice.seconds) + note,
                          tuple(plans), budget_left_s)


def _median_cost(costs: Mapping[PointGroup, GroupCost]) -> GroupCost:
    if not costs:
        return GroupCost(0.0, 0.0, 0.0)
    return GroupCost(*(float(np.median(x)) for x in zip(*[(c.per_launch_s, c.per_round_s, c.per_call_s)
                                                          for c in costs.values()])))


def fixed_seconds(campaign: Campaign, inputs: list[GroupInput], launch_fixed: float, done: int) -> float:
    """What the campaign's own launches, trials and calls would take for the launches still to run."""
    s = campaign.settings
    per_launch = launch_fixed + sum(g.cost.launch_s(s.trials, s.calls) for g in inputs)
    return max(0, s.launches - done) * per_launch


def _why(campaign: Campaign, launches: int, done: int, plans: list[GroupPlan], ratio: float, aim: str,
         budget_left_s: float | None, seconds: float) -> str:
    s = campaign.settings
    shares = [r.variances["launch_ns2"] / total for p in plans for r in p.rows.values()
              if (total := r.variances["launch_ns2"] + r.variances["trial_ns2"]
                  + r.variances["call_ns2_calls"] / max(1, p.calls)) > 0]
    kj = [r.kalibera_jones_trials for p in plans for r in p.rows.values() if r.kalibera_jones_trials]
    if not s.has_precision_target:
        goal = f"every row's half-width near {RELATIVE_AIM:.0%} of its p50 or better"
    else:
        goal = " or ".join(x for x in (
            f"ORB-added half-width <= {s.target_added_ci_ns:g} ns" if s.target_added_ci_ns else "",
            f"<= {s.target_added_ci_pct:g}% of its estimate" if s.target_added_ci_pct else "",
            f"p50 interval <= {s.target_ci_pct:g}% of the p50" if s.target_ci_pct else "") if x)
    trials = sorted(p.trials for p in plans)
    calls = sorted(p.calls for p in plans)
    text = (f"{'the most precision in the ' + fmt_duration(budget_left_s or 0.0) + ' left' if aim == 'budget' else 'the least time to the target'} "
            f"({goal}): {launches} launch{'es' if launches != 1 else ''} ({launches - done} to run), trials per launch {trials[0]}-{trials[-1]} "
            f"(median {trials[len(trials) // 2]}), calls per trial {calls[0]}-{calls[-1]}; predicted "
            f"{fmt_duration(round(seconds, 1))} for the launches to run. ") if plans else ""
    if shares:
        text += (f"The launch is {np.median(shares):.0%} of a launch value's variance (median over rows; pooled "
                 f"launch/trial ratio {ratio:.2f})")
        if kj:
            text += f"; Kalibera and Jones's closed form asks for {int(np.median(kj))} trials per launch (median)"
        text += "."
    return text.strip()


def format_plan(plan: RepetitionPlan) -> str:
    """The plan as printed before its launches run: per point group its trials and calls, and the precision
    expected per row (with its target)."""
    lines = [f"plan ({plan.source}): {plan.why}"]
    for g in plan.groups:
        # The rows with an aim (all of them when none has one): what the plan answers for.
        shown = {n: r for n, r in g.rows.items() if r.target_ns} or g.rows
        rows = "; ".join(f"{name} {half_width_text(r.expected_ns)}"
                         + (f" (aim ±{fmt_ns(r.target_ns)})" if r.target_ns else "") for name, r in shown.items())
        lines.append(f"  {g.group.label}: {g.trials} trials x {g.calls} calls per launch"
                     + (f"; expected {rows}" if rows else "; no evidence: the campaign's trials and calls"))
    return "\n".join(lines)


def groups_planned(plan: RepetitionPlan | None) -> dict[PointGroup, GroupPlan]:
    return {} if plan is None else {g.group: g for g in plan.groups}
