"""Intervals over trials, and the spread of trials, as pure functions of per-trial values.

The trial is the unit that repeats (the calls inside one trial share a JIT state, a cache, a scheduler mood), so a
point's p50 is the **mean of its per-trial p50s** and its 95% interval is Student's t over those values. The
percentile bootstrap used before covers far less than 95% with few trials (about 0.84 at 5 trials, 0.75 at 3:
it cannot see beyond the values it has); t covers about 95% whenever the mean of the trials is close to normal,
which many short trials help (tests/test_trust_intervals.py simulates both).

ORB-added latency is the **median of paired per-trial differences** (ORB p50 - baseline p50, trial by trial) with
the distribution-free interval of a median: two order statistics of the differences, chosen from the binomial
distribution (the sign test's interval), whose coverage is at least 95% whatever the distribution. A small VM
switches between a fast and a slow mood for whole trials (a baseline's trial p50 of 13.8 or 17.0 us, at random);
a trial where only one side of a pair met the slow mood moves its difference by about 3 us, and a few of those
made the mean's t interval four to ten times wider than the typical difference's scatter. The median is not
moved by them, and a pair caught whole in one mood still differences it away. So an ORB's p50 minus its
baseline's (means) can differ from ORB-added latency by those switches; the table says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from orbench.stats.tdist import quantile

CONFIDENCE = 0.95
T_METHOD = "Student t over trials (mean of per-trial values)"
PAIRED_METHOD = "median of paired per-trial differences, order-statistic (sign test) interval"
PAIRED_FEW_METHOD = "Student t over paired per-trial differences (mean; fewer than 6 pairs)"
# Below this many values no pair of order statistics covers the median with 95%.
MEDIAN_INTERVAL_MIN_N = 6
# MAD to standard deviation for normal data: a robust spread that, unlike (max - min), does not grow with n.
MAD_TO_SD = 1.4826


@dataclass(frozen=True)
class Interval:
    """An estimate with its 95% interval; low/high are None with a single value (no interval from one trial)."""

    estimate: float
    low: float | None
    high: float | None
    n: int
    method: str

    @property
    def half_width(self) -> float | None:
        return None if self.low is None or self.high is None else (self.high - self.low) / 2.0

    def covers(self, value: float) -> bool:
        return self.low is not None and self.high is not None and self.low <= value <= self.high

    def excludes_zero(self) -> bool:
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)

    def as_dict(self) -> dict:
        return asdict(self)


def mean_interval(values: Sequence[float], confidence: float = CONFIDENCE, method: str = T_METHOD) -> Interval:
    """The mean of `values` with a Student-t interval (none from a single value)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        raise ValueError("no values")
    mean = float(x.mean())
    if x.size < 2:
        return Interval(mean, None, None, 1, method)
    half = quantile(0.5 + confidence / 2.0, x.size - 1) * float(x.std(ddof=1)) / math.sqrt(x.size)
    return Interval(mean, mean - half, mean + half, int(x.size), method)


def paired_differences(a: Mapping[Any, float], b: Mapping[Any, float]) -> list[float]:
    """a[k] - b[k] for every trial k both have, in trial order; a trial missing on either side drops its pair."""
    return [a[k] - b[k] for k in sorted(set(a) & set(b))]


def median_interval(values: Sequence[float], confidence: float = CONFIDENCE, method: str = PAIRED_METHOD) -> Interval:
    """The median of `values` with its distribution-free interval: the k-th smallest and k-th largest value,
    with the largest k for which Binomial(n, 1/2) <= k - 1 has probability at most (1 - confidence) / 2. No
    interval below MEDIAN_INTERVAL_MIN_N values (even the outermost pair then covers less than 95%)."""
    x = np.sort(np.asarray(values, dtype=float))
    if x.size == 0:
        raise ValueError("no values")
    n = int(x.size)
    estimate = float(np.median(x))
    tail = (1.0 - confidence) / 2.0
    k, cdf = 0, 0.0
    while True:
        cdf_next = cdf + math.comb(n, k) / (1 << n)  # P(B <= k); exact integers: 2.0**n overflows past n = 1023
        if cdf_next > tail:
            break
        cdf, k = cdf_next, k + 1
    if k == 0:
        return Interval(estimate, None, None, n, method)
    return Interval(estimate, float(x[k - 1]), float(x[n - k]), n, method)


def paired_difference(a: Mapping[Any, float], b: Mapping[Any, float]) -> Interval | None:
    """ORB-added latency: the median of paired per-trial differences a - b with its order-statistic interval
    (from 6 pairs; below, the mean with its t interval); None when no trial is paired."""
    return paired_differences_interval(paired_differences(a, b))


def paired_differences_interval(diffs: Sequence[float]) -> Interval | None:
    """The median of paired differences with its order-statistic interval (from 6 pairs; below, the mean with
    its t interval); None without a pair."""
    if not len(diffs):
        return None
    # With fewer pairs the median has no 95% interval: the mean's t interval is the best there is.
    return median_interval(diffs) if len(diffs) >= MEDIAN_INTERVAL_MIN_N else mean_interval(diffs, method=PAIRED_FEW_METHOD)


def robust_cv_pct(values: Sequence[float]) -> float | None:
    """The spread of per-trial values as a robust coefficient of variation, in percent: 1.4826 x MAD / median.
    Unlike (max - min) / median it does not grow with the number of trials; None below 3 values."""
    x = np.asarray(values, dtype=float)
    if x.size < 3:
        return None
    med = float(np.median(x))
    if med <= 0:
        return None
    return MAD_TO_SD * float(np.median(np.abs(x - med))) / med * 100.0
