"""Intervals over trials, checked by simulation: how often does each interval cover the true value?

The simulated trial p50s are drawn from known distributions, so the true mean is known; 4000 repetitions give a
coverage to within about +-0.007 (one standard error), so the bounds below leave a few standard errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from orbench.results.intervals import Interval, mean_interval, paired_difference, robust_cv_pct
from orbench.results.tdist import quantile, two_sided_p

REPS = 4000
TRUE_P50 = 20_000.0


# The two methods orbench used before, kept here to show why they were replaced.
def bootstrap_mean_ci95(values, resamples: int, seed: int) -> tuple[float, float]:
    """The percentile bootstrap of the mean over trials (orbench's p50 interval before the t interval)."""
    x = np.asarray(values, dtype=float)
    means = x[np.random.default_rng(seed).integers(0, x.size, size=(resamples, x.size))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(lo), float(hi)


def spread_pct(values) -> float:
    """(max - min) / median of per-trial p50s, in percent (orbench's spread before the robust one)."""
    x = np.asarray(values, dtype=float)
    return float((x.max() - x.min()) / np.median(x) * 100.0)


def _coverage(draw, n: int, method: str, seed: int = 1, reps: int = REPS) -> float:
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        x = draw(rng, n)
        if method == "t":
            hits += mean_interval(x).covers(TRUE_P50)
        else:
            lo, hi = bootstrap_mean_ci95(x, resamples=1000, seed=int(rng.integers(1 << 30)))
            hits += lo <= TRUE_P50 <= hi
    return hits / reps


def normal(rng, n):
    return rng.normal(TRUE_P50, 1500.0, n)


def skewed(rng, n):
    # Right-skewed like real trial p50s (a slow trial now and then): lognormal with the same mean.
    sigma = 0.25
    return TRUE_P50 * np.exp(rng.normal(-sigma**2 / 2, sigma, n))


@pytest.mark.parametrize("n, low, high", [(3, 0.70, 0.80), (5, 0.80, 0.88)])
def test_the_percentile_bootstrap_covers_far_less_than_95_pct_with_few_trials(n, low, high):
    assert low <= _coverage(normal, n, "bootstrap", reps=2000) <= high


@pytest.mark.parametrize("n", [3, 5, 10, 30])
def test_the_t_interval_covers_95_pct_of_normal_trials_at_any_n(n):
    assert 0.935 <= _coverage(normal, n, "t") <= 0.965


@pytest.mark.parametrize("n, low", [(5, 0.90), (30, 0.925)])
def test_the_t_interval_on_skewed_trials_comes_close_with_many_trials(n, low):
    assert low <= _coverage(skewed, n, "t") <= 0.97


def test_paired_differences_cover_the_added_latency_despite_drift():
    # Every trial k shares a machine state (drift) that moves both targets alike; the ORB adds 1.5 us.
    rng = np.random.default_rng(7)
    added, hits, widths = 1500.0, 0, []
    for _ in range(REPS):
        drift = rng.normal(0, 3000.0, 8)
        base = {k: TRUE_P50 + d + rng.normal(0, 200.0) for k, d in enumerate(drift)}
        orb = {k: TRUE_P50 + added + d + rng.normal(0, 200.0) for k, d in enumerate(drift)}
        interval = paired_difference(orb, base)
        assert interval is not None
        hits += interval.covers(added)
        widths.append(interval.half_width)
    assert 0.935 <= hits / REPS <= 0.965
    # Pairing cancels the drift: the interval is set by the 200 ns noise, not the 3 us drift.
    assert np.median(widths) < 400


def test_the_robust_spread_does_not_grow_with_the_number_of_trials():
    # It settles on the true spread (1.4826 x MAD estimates the standard deviation: 1500 ns of 20 us is 7.5%),
    # a little low at a handful of trials; (max - min) / median, the old spread, keeps growing with n.
    rng = np.random.default_rng(3)

    def median_of(spread, n):
        return float(np.median([spread(normal(rng, n)) for _ in range(400)]))

    robust = {n: median_of(robust_cv_pct, n) for n in (10, 60, 600)}
    old = {n: median_of(spread_pct, n) for n in (10, 60, 600)}
    assert 0.8 < robust[60] / robust[10] < 1.25
    assert 0.95 < robust[600] / robust[60] < 1.05
    assert 7.0 < robust[600] < 8.0
    assert old[60] / old[10] > 1.4 and old[600] / old[60] > 1.3


def test_one_trial_has_an_estimate_but_no_interval():
    one = mean_interval([5.0])
    assert one == Interval(5.0, None, None, 1, one.method)
    assert not one.covers(5.0) and one.half_width is None
    assert paired_difference({0: 1.0}, {1: 2.0}) is None
    assert robust_cv_pct([1.0, 2.0]) is None


def test_student_t_matches_known_values():
    for df, t975 in [(1, 12.706), (2, 4.303), (4, 2.776), (9, 2.262), (29, 2.045), (1000, 1.962)]:
        assert quantile(0.975, df) == pytest.approx(t975, abs=0.001)
    assert two_sided_p(0.0, 5) == pytest.approx(1.0)
    assert two_sided_p(2.571, 5) == pytest.approx(0.05, abs=0.0005)
    assert two_sided_p(1.96, 1e6) == pytest.approx(0.05, abs=0.0005)
