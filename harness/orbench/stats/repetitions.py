"""Repetitions where the variance is: how many launches, trials per launch and calls per trial give a precision
at the least time (Kalibera and Jones, "Rigorous Benchmarking in Reasonable Time").

A point's estimate is the mean over L launches of each launch's median of T trial values (a trial's p50 over C
calls, or an ORB's paired difference from its baseline: stats/launches.py). Its variance has three parts:

    Var(launch value) = s2_launch + f(T) * (s2_trial + k_call / C) / T,     Var(estimate) = Var(launch value) / L

- s2_launch: what a new process launch adds (its JIT history, heap and page placement, its machine mood);
- s2_trial: what a new trial adds within one launch, beyond its calls' own scatter;
- k_call / C: a trial p50's sampling variance over C calls, k_call estimated from each trial's samples cut into
  contiguous blocks (the variance of the blocks' medians times their size: autocorrelated calls inflate it, as
  they should);
- f(T): a median's variance over a mean's, 1 for T <= 2 (the median of two is their mean), pi/2 above.

The 95% half-width is t(0.975, L-1) * sqrt(Var(estimate)). Costs come from the run's time accounting: per launch
(worker starts, full warm-ups, steady-state chunks: paid whatever T and C), per trial (rewarm, readings, samples,
the harness) and per call. Kalibera and Jones choose each level's count from the ratio of variances and costs of
adjacent levels, r = ceil(sqrt(cost_above / cost_here * s2_here / s2_above)); here the whole grid of (L, T, C)
within the campaign's bounds is searched for the cheapest choice that meets the target (or the most precise that
fits a budget), which is the same optimum without their rounding and also honours t's degrees of freedom; the
closed form is reported beside it.

With few launches the launch component is barely estimable (one degree of freedom from two launches); each row's
estimate is shrunk towards the campaign's pooled ratio s2_launch / s2_trial (PRIOR_DF pseudo degrees of freedom),
and with a single launch that ratio is assumed to be 1 (a launch adds as much as a trial) until there are two.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from orbench.stats.tdist import quantile

MEDIAN_FACTOR = math.pi / 2
# Blocks a trial's samples are cut into to estimate the calls' own part of a trial p50's variance.
CALL_BLOCKS = 8
# Pseudo degrees of freedom of the pooled launch/trial ratio a row's launch variance is shrunk towards.
PRIOR_DF = 3.0
# The launch/trial variance ratio assumed before any row has two launches.
ASSUMED_LAUNCH_RATIO = 1.0


@functools.lru_cache(maxsize=256)
def t975(df: int) -> float:
    """Student t's 97.5% quantile (a plan asks for the same few thousands of times)."""
    return quantile(0.975, df)


def median_factor(trials: int) -> float:
    return 1.0 if trials <= 2 else MEDIAN_FACTOR


def block_call_var(samples: np.ndarray, blocks: int = CALL_BLOCKS) -> float | None:
    """k_call of one trial: the variance of its samples' block medians times the block size (so that
    k_call / C is the variance of a p50 over C calls); None below 2 blocks of 20 calls."""
    size = samples.size // blocks
    if size < 20:
        return None
    medians = np.median(samples[: size * blocks].reshape(blocks, size), axis=1)
    return float(np.var(medians, ddof=1)) * size


@dataclass(frozen=True)
class LevelVariances:
    """One row's variance at each level (ns^2; k_call in ns^2 x calls), and what they rest on."""

    launch: float
    trial: float
    call: float
    launches: int          # launches with values
    trials: int            # values in all
    launch_estimated: bool  # False: assumed or mostly shrunk (fewer than 2 launches)

    def launch_value_var(self, trials: int, calls: int) -> float:
        return self.launch + median_factor(trials) * (self.trial + self.call / calls) / trials

    def half_width(self, launches: int, trials: int, calls: int) -> float:
        """The predicted 95% half-width of the estimate over `launches` launches (at least 2)."""
        if launches < 2:
            return math.inf
        return t975(launches - 1) * math.sqrt(self.launch_value_var(trials, calls) / launches)

    def as_dict(self) -> dict:
        return {"launch_ns2": round(self.launch, 1), "trial_ns2": round(self.trial, 1), "call_ns2_calls": round(self.call, 1),
                "launches": self.launches, "values": self.trials, "launch_estimated": self.launch_estimated}


@dataclass(frozen=True)
class RowData:
    """What one row's values say: per launch its trial values (at `calls` calls each) and k_call per trial."""

    per_launch: Mapping[int, Sequence[float]]
    calls: int
    call_vars: Sequence[float]

    def raw(self) -> tuple[float, float, float | None, int]:
        """(k_call, s2_trial, s2_launch or None, launches): the unshrunk estimates."""
        k_call = float(np.median(self.call_vars)) if len(self.call_vars) else 0.0
        groups = [np.asarray(v, dtype=float) for v in self.per_launch.values() if len(v)]
        df = sum(g.size - 1 for g in groups)
        within = sum(float(np.sum((g - g.mean()) ** 2)) for g in groups) / df if df > 0 else None
        per_trial = max(0.0, (within if within is not None else k_call / self.calls) - k_call / self.calls)
        launch = None
        if len(groups) >= 2:
            medians = np.asarray([float(np.median(g)) for g in groups])
            mean_t = float(np.mean([g.size for g in groups]))
            within_total = per_trial + k_call / self.calls
            launch = max(0.0, float(np.var(medians, ddof=1)) - median_factor(round(mean_t)) * within_total / mean_t)
        return k_call, per_trial, launch, len(groups)


def launch_ratio(rows: Sequence[RowData]) -> float:
    """The campaign's pooled s2_launch / (s2_trial + k_call / C): the median over rows with two launches."""
    ratios = []
    for r in rows:
        k_call, trial, launch, _ = r.raw()
        scale = trial + k_call / r.calls
        if launch is not None and scale > 0:
            ratios.append(launch / scale)
    return float(np.median(ratios)) if ratios else ASSUMED_LAUNCH_RATIO


def estimate(row: RowData, ratio: float) -> LevelVariances:
    """A row's variances, its launch part shrunk towards `ratio` (launch_ratio) times its trial scale."""
    k_call, trial, launch, launches = row.raw()
    prior = ratio * (trial + k_call / row.calls)
    df = max(0, launches - 1)
    shrunk = prior if launch is None else (df * launch + PRIOR_DF * prior) / (df + PRIOR_DF)
    values = sum(len(v) for v in row.per_launch.values())
    return LevelVariances(shrunk, trial, k_call, launches, values, launch is not None and df >= 1)


def kalibera_jones_trials(v: LevelVariances, launch_cost_s: float, trial_cost_s: float, calls: int) -> int | None:
    """Kalibera and Jones's closed form for the trials per launch: ceil(sqrt(c_launch / c_trial * s2_trial /
    s2_launch)), with a trial's variance at `calls` calls; None when the launch variance is 0."""
    if v.launch <= 0 or trial_cost_s <= 0:
        return None
    return max(1, math.ceil(math.sqrt(launch_cost_s / trial_cost_s * (v.trial + v.call / calls) / v.launch)))


@dataclass(frozen=True)
class GroupCost:
    """A point group's seconds: per launch whatever T and C (`per_launch_s`), per round of trials (one trial
    of each target: `per_round_s`) and per call of a round (`per_call_s`, every target's call)."""

    per_launch_s: float
    per_round_s: float
    per_call_s: float

    def launch_s(self, trials: int, calls: int) -> float:
        return self.per_launch_s + trials * (self.per_round_s + calls * self.per_call_s)


@dataclass(frozen=True)
class GroupInput:
    """One point group for the planner: its rows' variances, each row's target half-width (ns), its cost."""

    key: str
    rows: Mapping[str, LevelVariances]
    targets_ns: Mapping[str, float]
    cost: GroupCost
    max_calls: int | None = None   # the most calls per trial it may get (None: any of the plan's)

    def ratio(self, launches: int, trials: int, calls: int) -> float:
        """The worst predicted half-width over its target, across the rows (0 without rows)."""
        return max((self.rows[r].half_width(launches, trials, calls) / t for r, t in self.targets_ns.items()
                    if t > 0), default=0.0)


@dataclass(frozen=True)
class GroupChoice:
    trials: int
    calls: int
    ratio: float
    seconds_per_launch: float


@dataclass(frozen=True)
class Choice:
    launches: int
    groups: Mapping[str, GroupChoice]
    seconds: float       # predicted: launches x (launch_fixed_s + the groups' seconds per launch)
    worst_ratio: float
    met: bool            # every group at or under its target (ratio <= 1)


def _options(group: GroupInput, launches: int, trials: Sequence[int], calls: Sequence[int]) -> list[GroupChoice]:
    """The group's (T, C) choices at `launches`, cheapest first, each more precise than every cheaper one."""
    allowed = [c for c in calls if group.max_calls is None or c <= group.max_calls] or [min(calls)]
    every = sorted((GroupChoice(t, c, group.ratio(launches, t, c), group.cost.launch_s(t, c))
                    for t in trials for c in allowed), key=lambda o: (o.seconds_per_launch, o.ratio))
    frontier: list[GroupChoice] = []
    for o in every:
        if not frontier or o.ratio < frontier[-1].ratio:
            frontier.append(o)
    return frontier


def _cheapest(options: list[GroupChoice], ratio: float) -> GroupChoice | None:
    return next((o for o in options if o.ratio <= ratio), None)


def _better(a: Choice, b: Choice) -> bool:
    """Meeting every target beats not; among those that meet them, less time; among those that do not, the
    smaller worst ratio, then less time."""
    if a.met != b.met:
        return a.met
    if a.met:
        return a.seconds < b.seconds
    return (a.worst_ratio, a.seconds) < (b.worst_ratio, b.seconds)


def _choice(n: int, done: int, launch_fixed_s: float, picks: dict[str, GroupChoice]) -> Choice:
    worst = max((p.ratio for p in picks.values()), default=0.0)
    return Choice(n, picks, (n - done) * (launch_fixed_s + sum(p.seconds_per_launch for p in picks.values())), worst,
                  worst <= 1.0)


def plan_for_target(groups: Sequence[GroupInput], launch_fixed_s: float, launches: Sequence[int],
                    trials: Sequence[int], calls: Sequence[int], done: int = 0) -> Choice:
    """The least time at which every group meets its targets; when no choice meets them all, the one that
    comes closest (the smallest worst ratio, then the least time). `launches`: the candidate numbers of
    launches in all, `done` of which ran already (their time is spent; the precision counts them)."""
    best: Choice | None = None
    for n in launches:
        picks = {}
        for g in groups:
            options = _options(g, n, trials, calls)
            picks[g.key] = _cheapest(options, 1.0) or options[-1]
        choice = _choice(n, done, launch_fixed_s, picks)
        if best is None or _better(choice, best):
            best = choice
    assert best is not None
    return best


def _loss(ratio: float) -> tuple[float, float]:
    """What a group's ratio costs the plan: first how far it is above its target (squared: a relative
    variance), then, once every group is at its target, its own squared ratio."""
    return max(ratio, 1.0) ** 2 - 1.0, ratio**2


def plan_for_budget(groups: Sequence[GroupInput], launch_fixed_s: float, budget_s: float, launches: Sequence[int],
                    trials: Sequence[int], calls: Sequence[int], done: int = 0) -> Choice | None:
    """At each number of launches, every group at its cheapest choice, then the budget left spent by marginal
    analysis: again and again the one upgrade (a group's more precise choice) that lowers the total loss the
    most per second it adds, while it fits; the loss is each group's squared ratio above its target, then its
    squared ratio (so time goes first where a target is missed and can still be approached, not into a group
    that no budget brings near it). The number of launches with the least loss wins. None when not even the
    cheapest choice at the fewest launches fits."""
    best: tuple[tuple[float, float], Choice] | None = None
    for n in launches:
        options = {g.key: _options(g, n, trials, calls) for g in groups}
        picks = {k: o[0] for k, o in options.items()}
        spent = (n - done) * (launch_fixed_s + sum(p.seconds_per_launch for p in picks.values()))
        if spent > budget_s:
            continue
        while True:
            step: tuple[float, str, GroupChoice, float] | None = None
            for key, opts in options.items():
                here = _loss(picks[key].ratio)
                for o in opts:
                    if o.ratio >= picks[key].ratio:
                        continue
                    extra = (n - done) * (o.seconds_per_launch - picks[key].seconds_per_launch)
                    if spent + extra > budget_s:
                        continue
                    there = _loss(o.ratio)
                    gain = (here[0] - there[0]) * 1e6 + (here[1] - there[1])  # lexicographic, as one number
                    rate = gain / max(extra, 1e-9)
                    if gain > 0 and (step is None or rate > step[0]):
                        step = (rate, key, o, extra)
            if step is None:
                break
            _, key, o, extra = step
            picks[key] = o
            spent += extra
        choice = _choice(n, done, launch_fixed_s, picks)
        losses = [_loss(p.ratio) for p in picks.values()]
        total = (sum(x[0] for x in losses), sum(x[1] for x in losses))
        if best is None or total < best[0]:
            best = (total, choice)
    return None if best is None else best[1]


def plan_with_room(groups: Sequence[GroupInput], launch_fixed_s: float, budget_s: float, launches: Sequence[int],
                   trials: Sequence[int], calls: Sequence[int], done: int, overrun: float) -> tuple[Choice | None, float]:
    """plan_for_budget, and when it leaves two or more launches to run, the same number of launches each a little
    smaller, so that `overrun` of one launch's seconds stays unspent: one launch running that much longer than
    planned still leaves the last its room. Also the seconds kept (0 when none were)."""
    choice = plan_for_budget(groups, launch_fixed_s, budget_s, launches, trials, calls, done)
    if choice is None or choice.launches - done < 2:
        return choice, 0.0
    kept = overrun * choice.seconds / (choice.launches - done)
    if choice.seconds <= budget_s - kept:  # the plan leaves that much already
        return choice, 0.0
    safer = plan_for_budget(groups, launch_fixed_s, budget_s - kept, [choice.launches], trials, calls, done)
    return (safer, kept) if safer is not None else (choice, 0.0)
