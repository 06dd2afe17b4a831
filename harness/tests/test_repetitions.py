"""Planned repetitions against known answers: simulated runs with known launch, trial and call variances (the
estimates recover them, the predicted half-width is the one the summary's own estimator gets), and plans that
put the repetitions where the variance is, within a budget."""

import math

import numpy as np
import pytest
from orbench.stats.launches import over_launches
from orbench.stats.repetitions import (
    GroupCost,
    GroupInput,
    LevelVariances,
    RowData,
    block_call_var,
    estimate,
    kalibera_jones_trials,
    launch_ratio,
    plan_for_budget,
    plan_for_target,
    plan_with_room,
)

SD_LAUNCH, SD_TRIAL, SD_CALL = 300.0, 200.0, 4000.0   # ns


def simulate(rng, launches: int, trials: int, calls: int, sd_launch=SD_LAUNCH, sd_trial=SD_TRIAL,
             sd_call=SD_CALL) -> RowData:
    """Trial p50s of a row with the three levels: each launch and trial shifts every call alike, each call adds
    its own normal scatter; k_call from each trial's samples."""
    per_launch, kcalls = {}, []
    for launch in range(launches):
        shift = rng.normal(0, sd_launch)
        values = []
        for _ in range(trials):
            samples = 20000 + shift + rng.normal(0, sd_trial) + rng.normal(0, sd_call, calls)
            values.append(float(np.median(samples)))
            kcalls.append(block_call_var(samples))
        per_launch[launch] = values
    return RowData(per_launch, calls, kcalls)


def test_block_call_var_is_a_medians_sampling_variance():
    rng = np.random.default_rng(1)
    k = np.median([block_call_var(rng.normal(0, SD_CALL, 4000)) for _ in range(200)])
    # The median of n normal values has variance pi/2 sigma^2 / n: k is pi/2 sigma^2.
    assert k == pytest.approx(math.pi / 2 * SD_CALL**2, rel=0.15)


def test_the_estimates_recover_each_level():
    rng = np.random.default_rng(2)
    row = simulate(rng, launches=60, trials=5, calls=1000)
    v = estimate(row, launch_ratio([row]))
    assert v.launch_estimated and v.launches == 60
    assert v.launch == pytest.approx(SD_LAUNCH**2, rel=0.35)
    assert v.trial == pytest.approx(SD_TRIAL**2, rel=0.35)
    assert v.call == pytest.approx(math.pi / 2 * SD_CALL**2, rel=0.15)


def test_the_predicted_half_width_is_what_the_summary_gets_and_covers_95_percent():
    """The model's half-width against stats.launches.over_launches (the summary's estimator) on many simulated
    runs of L launches x T trials x C calls with the true variances."""
    rng = np.random.default_rng(3)
    launches, trials, calls = 4, 3, 1000
    truth = LevelVariances(SD_LAUNCH**2, SD_TRIAL**2, math.pi / 2 * SD_CALL**2, 99, 999, True)
    predicted = truth.half_width(launches, trials, calls)
    halves, covered = [], 0
    for _ in range(400):
        row = simulate(rng, launches, trials, calls)
        got = over_launches(row.per_launch)
        halves.append((got["ci95_high"] - got["ci95_low"]) / 2)
        covered += got["ci95_low"] <= 20000 <= got["ci95_high"]
    # The mean half-width of a t interval is below t * sigma / sqrt(L) by the mean of s/sigma (c4, 0.92 at 4).
    assert np.mean(halves) == pytest.approx(0.92 * predicted, rel=0.12)
    assert 0.90 <= covered / 400 <= 0.99


def test_with_one_launch_the_launch_part_is_assumed_and_then_shrunk():
    rng = np.random.default_rng(4)
    one = simulate(rng, launches=1, trials=5, calls=1000)
    v = estimate(one, launch_ratio([one]))
    assert not v.launch_estimated and v.launch == pytest.approx(v.trial + v.call / 1000)


def cost(per_launch, per_round, per_call=1e-5):
    return GroupCost(per_launch, per_round, per_call)


def group(v: LevelVariances, target: float, c: GroupCost, key="g") -> GroupInput:
    return GroupInput(key, {"row": v}, {"row": target}, c)


def test_launch_variance_asks_for_launches_trial_variance_for_trials():
    grid = dict(launches=range(2, 21), trials=range(2, 21), calls=(1000,))
    launchy = LevelVariances(400.0**2, 50.0**2, 0.0, 5, 20, True)
    trialy = LevelVariances(20.0**2, 600.0**2, 0.0, 5, 20, True)
    expensive_launch = cost(per_launch=5.0, per_round=0.05)
    a = plan_for_target([group(launchy, 250, expensive_launch)], 1.0, **grid)
    b = plan_for_target([group(trialy, 250, expensive_launch)], 1.0, **grid)
    assert a.met and b.met
    assert a.launches > b.launches and a.groups["g"].trials < b.groups["g"].trials
    # Kalibera and Jones's closed form and the grid agree where neither is at a bound.
    mixed = LevelVariances(150.0**2, 300.0**2, 0.0, 5, 20, True)
    c = plan_for_target([group(mixed, 100, cost(per_launch=1.0, per_round=0.05))], 1.0, **grid)
    kj = kalibera_jones_trials(mixed, 1.0 + 1.0, 0.05 + 1000 * 1e-5, 1000)
    assert c.met and kj is not None and 2 < kj < 20
    assert abs(c.groups["g"].trials - kj) <= max(2, kj // 3), (c, kj)


def test_more_calls_when_the_calls_scatter_and_trials_cost():
    calls_scatter = LevelVariances(10.0**2, 10.0**2, math.pi / 2 * 8000.0**2, 5, 20, True)
    plan = plan_for_target([group(calls_scatter, 150, cost(1.0, per_round=0.5, per_call=2e-5))], 0.5,
                           range(2, 11), range(2, 11), (500, 1000, 2000, 4000))
    assert plan.met and plan.groups["g"].calls == 4000
    # A group with a bound on its calls per trial (a oneway flood's: running/flood.py) gets no more.
    bounded = GroupInput("g", {"row": calls_scatter}, {"row": 150}, cost(1.0, per_round=0.5, per_call=2e-5), 1000)
    plan = plan_for_target([bounded], 0.5, range(2, 11), range(2, 11), (500, 1000, 2000, 4000))
    assert plan.groups["g"].calls == 1000


def test_a_budget_is_kept_and_buys_precision():
    rng = np.random.default_rng(5)
    groups = [group(LevelVariances(float(rng.uniform(50, 400)) ** 2, float(rng.uniform(50, 400)) ** 2, 1e9, 4, 12,
                                   True), 300, cost(float(rng.uniform(0.5, 2)), float(rng.uniform(0.1, 0.4))),
                    key=f"g{i}") for i in range(12)]
    grid = dict(launches=range(1, 11), trials=range(2, 11), calls=(500, 1000, 2000))
    small, large = plan_for_budget(groups, 2.0, 60, **grid), plan_for_budget(groups, 2.0, 240, **grid)
    assert small is not None and large is not None
    assert small.seconds <= 60 and large.seconds <= 240 and large.seconds > 0.8 * 240
    assert large.worst_ratio < small.worst_ratio
    assert plan_for_budget(groups, 2.0, 1.0, **grid) is None  # not one launch fits


def test_a_budget_spends_first_where_a_target_is_missed_and_reachable():
    hopeless = LevelVariances(5000.0**2, 100.0**2, 1e8, 5, 20, True)    # launches vary by 5 us: no plan helps
    close = LevelVariances(150.0**2, 300.0**2, 1e8, 5, 20, True)
    groups = [group(hopeless, 100, cost(1.0, 0.2), "hopeless"), group(close, 100, cost(1.0, 0.2), "close")]
    plan = plan_for_budget(groups, 1.0, 120, range(2, 11), range(2, 21), (1000,))
    assert plan is not None
    assert plan.groups["close"].ratio < 1.5 and plan.groups["close"].trials >= plan.groups["hopeless"].trials


def test_a_budget_plan_keeps_room_for_a_launch_that_runs_long():
    """With two or more launches to run, the plan keeps a share of one launch's seconds unspent, at the same number
    of launches (a middleware run's third launch took 1.23 times its plan and left no room for the fourth); with
    one launch left, it spends the budget."""
    rng = np.random.default_rng(7)
    groups = [group(LevelVariances(float(rng.uniform(50, 400)) ** 2, float(rng.uniform(50, 400)) ** 2, 1e9, 4, 12,
                                   True), 300, cost(float(rng.uniform(0.5, 2)), float(rng.uniform(0.1, 0.4))),
                    key=f"g{i}") for i in range(12)]
    grid = dict(launches=range(1, 5), trials=range(2, 11), calls=(500, 1000, 2000))
    full = plan_for_budget(groups, 2.0, 100, **grid, done=1)
    roomy, kept = plan_with_room(groups, 2.0, 100, **grid, done=1, overrun=0.25)
    assert full is not None and roomy is not None and full.launches - 1 >= 2
    assert roomy.launches == full.launches and kept == pytest.approx(0.25 * full.seconds / (full.launches - 1))
    assert roomy.seconds <= 100 - kept < full.seconds
    # A plan that leaves the room already is kept as it is.
    assert plan_with_room(groups, 2.0, 1000, **grid, done=1, overrun=0.25)[1] == 0.0
    last, none_kept = plan_with_room(groups, 2.0, 60, range(4, 5), grid["trials"], grid["calls"], done=3, overrun=0.25)
    assert last is not None and none_kept == 0.0 and last.seconds > 0.8 * 60
