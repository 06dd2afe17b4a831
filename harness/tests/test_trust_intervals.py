"""Intervals over trials, checked by simulation: how often does each interval cover the true value?

The simulated trial p50s are drawn from known distributions, so the true mean is known; 4000 repetitions give a
coverage to within about +-0.007 (one standard error), so the bounds below leave a few standard errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from orbench.stats.intervals import Interval, mean_interval, median_interval, paired_difference, robust_cv_pct
from orbench.stats.tdist import f_upper_p, quantile, two_sided_p

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


def _paired(rng, n: int, added: float, mood_p: float = 0.0, mood_ns: float = 3300.0):
    """n paired trials: a machine state shared by trial k of both targets (drift, 3 us), 200 ns of noise each,
    and with probability mood_p a side's trial meets the slow mood on its own (+3.3 us, the bimodal trial p50s
    of a small VM)."""
    drift = rng.normal(0, 3000.0, n)
    base = {k: TRUE_P50 + d + rng.normal(0, 200.0) + mood_ns * (rng.random() < mood_p) for k, d in enumerate(drift)}
    orb = {k: TRUE_P50 + added + d + rng.normal(0, 200.0) + mood_ns * (rng.random() < mood_p)
           for k, d in enumerate(drift)}
    return orb, base


@pytest.mark.parametrize("n, mood_p", [(6, 0.0), (20, 0.0), (20, 0.15), (60, 0.15)])
def test_paired_differences_cover_the_added_latency_despite_drift_and_moods(n, mood_p):
    # The ORB adds 1.5 us. The median's order-statistic interval covers at least 95% whatever the distribution
    # (exactly: 1 - 2 P(Binomial(n, 1/2) < k), 96.9% at 6 pairs, 95.9% at 20, 97.3% at 60).
    rng = np.random.default_rng(7)
    added, hits, widths = 1500.0, 0, []
    for _ in range(REPS // 4):
        orb, base = _paired(rng, n, added, mood_p)
        interval = paired_difference(orb, base)
        assert interval is not None and interval.n == n
        hits += interval.covers(added)
        widths.append(interval.half_width)
    assert 0.945 <= hits / (REPS // 4) <= 0.995
    # Pairing cancels the drift: the interval is set by the noise, not the 3 us drift.
    assert np.median(widths) < (800 if n == 6 else 400)


def test_mood_switches_widen_the_mean_s_interval_not_the_median_s():
    # 30 pairs, 15% of trials a side meets the slow mood alone: the t interval of the mean (orbench's ORB-added
    # interval before) is several times wider than the median's, which still covers.
    rng = np.random.default_rng(11)
    mean_w, median_w = [], []
    for _ in range(300):
        orb, base = _paired(rng, 30, 1500.0, 0.15)
        diffs = [orb[k] - base[k] for k in sorted(orb)]
        mean_w.append(mean_interval(diffs).half_width)
        median_w.append(paired_difference(orb, base).half_width)
    assert np.median(mean_w) > 3 * np.median(median_w)
    assert np.median(median_w) < 200


def test_fewer_than_six_pairs_fall_back_to_the_mean_s_t_interval():
    orb, base = {k: 10.0 + k for k in range(5)}, {k: 0.0 for k in range(5)}
    interval = paired_difference(orb, base)
    assert interval.estimate == 12.0 and interval.low is not None and "mean" in interval.method


def test_the_median_s_interval_by_hand():
    # 10 values: Binomial(10, 1/2) <= 1 has probability 11/1024 <= 2.5%, <= 2 has 56/1024 > 2.5%: k = 2.
    interval = median_interval([float(v) for v in (9, 1, 8, 2, 7, 3, 6, 4, 5, 0)])
    assert (interval.estimate, interval.low, interval.high) == (4.5, 1.0, 8.0)
    assert median_interval([1.0, 2.0, 3.0, 4.0, 5.0]).low is None  # 5 values: no 95% pair of order statistics
    # Many trials (a long campaign): the binomial tail in exact integers, near n/2 -+ 1.96 sqrt(n) / 2.
    many = median_interval([float(v) for v in range(1100)])
    assert (many.estimate, many.low, many.high) == (549.5, 517.0, 582.0)


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


def test_f_matches_known_values_and_t_squared():
    # Tables: F(0.99; 3, 21) = 4.87, F(0.95; 3, 21) = 3.07, F(0.95; 5, 10) = 3.33; and F(1, d) is t(d) squared.
    assert f_upper_p(4.87, 3, 21) == pytest.approx(0.01, abs=0.0005)
    assert f_upper_p(3.07, 3, 21) == pytest.approx(0.05, abs=0.0005)
    assert f_upper_p(3.33, 5, 10) == pytest.approx(0.05, abs=0.0005)
    for t, df in ((1.0, 3), (2.5, 12), (4.0, 40)):
        assert f_upper_p(t * t, 1, df) == pytest.approx(two_sided_p(t, df), rel=1e-9)
    assert f_upper_p(0.0, 3, 21) == 1.0
