"""The comparison's statistics: Welch's test, Benjamini-Hochberg, drift; false alarms checked by simulation."""

from __future__ import annotations

import numpy as np
import pytest
from orbench.stats.significance import benjamini_hochberg, drift, log_values, pct, welch


def test_welch_matches_a_hand_computed_case():
    # a: mean 2, var 1 (n 3); b: mean 5, var 4 (n 3): se^2 = 1/3 + 4/3, t = 3 / sqrt(5/3) = 2.324,
    # df = (5/3)^2 / ((1/9 + 16/9) / 2) = 2.941, two-sided p = 0.1045 (as R's t.test gives)
    change = welch([1.0, 2.0, 3.0], [3.0, 5.0, 7.0])
    assert change.estimate == pytest.approx(3.0)
    assert change.p == pytest.approx(0.1045, abs=0.0005)
    assert change.low < 0 < change.high  # p > 0.05: the interval crosses zero
    assert welch([1.0], [2.0]).p is None
    assert welch([1.0, 1.0], [1.0, 1.0]).p == 1.0
    shifted = welch([1.0, 2.0, 3.0], [3.0, 5.0, 7.0], null=3.0)
    assert shifted.estimate == pytest.approx(0.0) and shifted.p == pytest.approx(1.0)


def test_benjamini_hochberg_steps_up():
    # Sorted p: 0.001 (<= 0.05 x 1/5), 0.008 (<= 0.02), 0.031 (> 0.03), 0.039 (<= 0.04), 0.6 (> 0.05): the
    # largest rank passing is 4, so the first four are rejected, 0.031 included.
    assert benjamini_hochberg([0.6, 0.039, 0.001, 0.031, 0.008]) == [False, True, True, True, True]
    assert benjamini_hochberg([0.2, 0.3, None]) == [False, False, False]
    assert benjamini_hochberg([]) == []


def test_benjamini_hochberg_keeps_a_pure_null_quiet():
    # 72 rows, nothing changed: each at 5% would flag 3.6 rows on average; BH flags one row or more in about 5%
    # of comparisons.
    rng = np.random.default_rng(11)
    any_flag = sum(any(benjamini_hochberg(rng.uniform(size=72).tolist())) for _ in range(2000)) / 2000
    assert any_flag < 0.08


def test_drift_is_removed_and_a_real_change_beyond_it_still_shows():
    rng = np.random.default_rng(5)

    def trials(p50, n=20, cv=0.03):
        return (p50 * np.exp(rng.normal(0, cv, n))).tolist()

    # The machine is 20% slower in B; baselines of four sizes move alike; one target moved 30% (10% beyond).
    base_a = {size: trials(10_000 + size) for size in (1, 1000, 4096, 65536)}
    base_b = {size: trials((10_000 + size) * 1.2) for size in base_a}
    ratios = [float(np.mean(log_values(base_b[s])) - np.mean(log_values(base_a[s]))) for s in base_a]
    d = drift(ratios)
    assert pct(d) == pytest.approx(20, abs=3)
    for size in base_a:  # the baselines themselves: no change beyond the drift
        assert welch(log_values(base_a[size]), log_values(base_b[size]), null=d).p > 0.001
    moved = welch(log_values(trials(20_000)), log_values(trials(20_000 * 1.3)), null=d)
    assert moved.p < 0.001 and pct(moved.estimate) == pytest.approx(10, abs=3)
    assert drift([]) is None
