"""Intervals over trials, and the spread of trials, as pure functions of per-trial values.

The trial is the unit that repeats (the calls inside one trial share a JIT state, a cache, a scheduler mood), so a
point's p50 is the **mean of its per-trial p50s** and its 95% interval is Student's t over those values. The
percentile bootstrap used before covers far less than 95% with few trials (about 0.84 at 5 trials, 0.75 at 3:
it cannot see beyond the values it has); t covers about 95% whenever the mean of the trials is close to normal,
which many short trials help (tests/test_trust_intervals.py simulates both). ORB-added latency is the mean of
paired per-trial differences with the same interval, so the p50 of an ORB minus the p50 of its baseline is the
ORB-added estimate whenever every trial is paired.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from orbench.results.tdist import quantile

CONFIDENCE = 0.95
T_METHOD = "Student t over trials (mean of per-trial values)"
PAIRED_METHOD = "Student t over paired per-trial differences"
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


def paired_differences(a: Mapping[int, float], b: Mapping[int, float]) -> list[float]:
    """a[k] - b[k] for every trial k both have, in trial order; a trial missing on either side drops its pair."""
    return [a[k] - b[k] for k in sorted(set(a) & set(b))]


def paired_difference(a: Mapping[int, float], b: Mapping[int, float]) -> Interval | None:
    """The mean of paired per-trial differences a - b with its interval; None when no trial is paired."""
    diffs = paired_differences(a, b)
    return mean_interval(diffs, method=PAIRED_METHOD) if diffs else None


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
