"""The statistics on known numbers: percentiles, intervals, ORB-added latency from paired trials."""

import numpy as np
import pytest
from orbench.stats import stats


def test_latency_summary_on_known_values():
    s = stats.latency_summary(np.arange(1, 101, dtype=np.int64))
    assert s["p50"] == pytest.approx(50.5)
    assert s["p90"] == pytest.approx(90.1)
    assert s["p99"] == pytest.approx(99.01)
    assert (s["min"], s["max"], s["count"]) == (1, 100, 100)


def test_mean_interval_by_hand():
    values = [10.0, 12.0, 14.0, 16.0, 18.0]  # mean 14, sd sqrt(10), n 5
    ci = stats.trial_ci95(values)
    half = 2.776 * np.sqrt(10) / np.sqrt(5)
    assert ci["estimate"] == 14 and ci["low"] == pytest.approx(14 - half, abs=1e-3)
    assert ci["high"] == pytest.approx(14 + half, abs=1e-3)


def test_orb_added_pairs_by_trial_and_drops_unpaired():
    orb = {0: 120.0, 1: 130.0, 2: 125.0, 3: 500.0}
    base = {0: 100.0, 1: 105.0, 2: 103.0}  # trial 3 of the baseline failed: its pair is dropped
    added = stats.orb_added_latency(orb, base)
    assert added["pairs"] == 3
    assert added["per_pair"] == [20.0, 25.0, 22.0]
    assert added["estimate"] == pytest.approx(67 / 3)  # 3 pairs: the mean (no 95% interval of a median)
    assert added["mean"] == pytest.approx(67 / 3)
    assert added["ci95_low"] < added["estimate"] < added["ci95_high"]
    assert added["unpaired"] == 1  # the ORB's trial 3: the estimate leaves it out


def test_orb_added_is_the_median_of_paired_differences_from_six_pairs():
    base = {k: 100.0 for k in range(8)}
    orb = {k: 120.0 + k for k in range(7)} | {7: 500.0}  # one pair caught by a slow mood on one side
    added = stats.orb_added_latency(orb, base)
    assert added["estimate"] == 23.5 and added["mean"] == pytest.approx((sum(range(20, 27)) + 400) / 8)
    assert added["ci95_low"] == 20.0 and added["ci95_high"] == 400.0  # 8 pairs: k = 1
    assert "median" in added["ci_method"]


def test_orb_added_needs_a_pair():
    assert stats.orb_added_latency({0: 1.0}, {1: 1.0}) is None


def test_read_samples_little_endian(tmp_path):
    path = tmp_path / "s.i64"
    path.write_bytes((1234).to_bytes(8, "little") + (5).to_bytes(8, "little"))
    assert stats.read_samples(path).tolist() == [1234, 5]


def test_samples_needed_for_tail_percentiles():
    assert stats.samples_needed(99.9) == 10_000
    assert stats.samples_needed(99.99) == 100_000
    tails = stats.tail_percentiles(np.arange(1, 10_001, dtype=np.int64))
    assert tails["p99.9"] == pytest.approx(np.percentile(np.arange(1, 10_001), 99.9))
    assert tails["p99.99"] is None  # 10,000 samples leave one value beyond p99.99


def test_trial_ci95_brackets_the_mean_and_reports_its_width():
    ci = stats.trial_ci95([100.0, 102.0, 98.0, 101.0, 99.0])
    assert ci["estimate"] == pytest.approx(100.0)
    assert 98.0 <= ci["low"] < 100.0 < ci["high"] <= 102.0
    assert ci["width_pct"] == pytest.approx(ci["high"] - ci["low"])
    # Student t with 4 degrees of freedom: 2.776 x s / sqrt(5), s = sqrt(2.5)
    assert ci["half_width"] == pytest.approx(2.776 * np.sqrt(2.5) / np.sqrt(5), abs=1e-3)
    assert stats.trial_ci95([5.0])["low"] is None
