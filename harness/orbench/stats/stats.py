"""Statistics, computed once, in Python, from raw samples: workers only time and record.

Percentiles use numpy's default (linear interpolation between order statistics). A point's p50 is the mean of
its per-trial p50s with a Student-t interval over trials, and ORB-added latency the median of paired per-trial
differences with an order-statistic interval (stats/intervals.py says why each): trial k of an ORB ran right
next to trial k of its baseline, so machine drift hits both and cancels in the difference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from orbench.stats.intervals import Interval, mean_interval, paired_difference, paired_differences

PERCENTILES = (50, 90, 99)


def read_samples(path: Path | str) -> np.ndarray:
    """A samples file: little-endian int64 nanoseconds, one per timed call (harness/PROTOCOL.md)."""
    return np.fromfile(path, dtype="<i8")


# A round trip's fast end: the 10th percentile of its calls. Delays only add to a call's time, so the fast end
# shows the work a call does with the least of them (Chen and Revels, "Robust benchmarking in noisy
# environments", 2016, take the minimum for that reason; the 10th percentile is steadier over a slice's calls).
FAST_END_PCT = 10


def fast_end(calls: np.ndarray) -> float:
    """The fast end of a round trip's calls (FAST_END_PCT): what a slice is valued by where the scheduler's
    paths differ from call to call (stats/phases.slice_values says where and why)."""
    return float(np.percentile(np.ravel(np.asarray(calls, dtype=float)), FAST_END_PCT))


def latency_summary(samples: np.ndarray) -> dict[str, float]:
    if samples.size == 0:
        raise ValueError("no samples")
    p = np.percentile(samples, PERCENTILES)
    out = {f"p{q}": float(v) for q, v in zip(PERCENTILES, p)}
    out.update(min=float(samples.min()), max=float(samples.max()), mean=float(samples.mean()),
               stdev=float(samples.std(ddof=1)) if samples.size > 1 else 0.0, count=int(samples.size))
    return out


def orb_added_latency(orb_trial_p50: dict[int, float], baseline_trial_p50: dict[int, float]) -> dict | None:
    """ORB-added latency: the median over paired trials of (ORB p50 - baseline p50), with its order-statistic 95%
    interval (stats/intervals.py; the mean with a t interval below 6 pairs). Trials pair by trial number; a
    trial that failed on either side drops its pair, and `unpaired` then says how many trials of either side the
    estimate leaves out. `mean` is the mean of the same differences (what the p50 columns subtract to)."""
    interval = paired_difference(orb_trial_p50, baseline_trial_p50)
    if interval is None:
        return None
    pairs = interval.n
    unpaired = len(orb_trial_p50) + len(baseline_trial_p50) - 2 * pairs
    return {
        "estimate": interval.estimate,
        "ci95_low": interval.low,
        "ci95_high": interval.high,
        "ci_method": interval.method,
        "pairs": pairs,
        "unpaired": unpaired,
        "per_pair": paired_differences(orb_trial_p50, baseline_trial_p50),
        "mean": float(np.mean(paired_differences(orb_trial_p50, baseline_trial_p50))),
    }


# Tail percentiles a plot or table may show, with the samples each needs: a percentile q rests on
# (1 - q) * n values beyond it, and fewer than ten such values make it one or two outliers, not a tail.
TAIL_PERCENTILES = (99.9, 99.99)
VALUES_BEYOND_PERCENTILE = 10


def samples_needed(q: float) -> int:
    """Samples needed so that VALUES_BEYOND_PERCENTILE values lie beyond percentile q."""
    return int(math.ceil(round(VALUES_BEYOND_PERCENTILE / (1 - q / 100), 6)))


def tail_percentiles(samples: np.ndarray) -> dict[str, float | None]:
    """p99.9 and p99.99 where the samples support them, else None (never a number that is one outlier)."""
    out: dict[str, float | None] = {}
    for q in TAIL_PERCENTILES:
        out[f"p{q:g}"] = float(np.percentile(samples, q)) if samples.size >= samples_needed(q) else None
    return out


POSITIVE_TRIAL_METHOD = "geometric mean of per-trial values, Student t on the log scale"


def trial_ci95(values: Sequence[float], positive: bool = False) -> dict | None:
    """A point's p50 (or any per-trial statistic) over its trials: the mean of the per-trial values with a
    Student-t 95% interval (stats/intervals.py: honest coverage at few trials, unlike the percentile bootstrap).

    The trial is the unit that repeats, so the interval says how far another set of trials on the same machine
    would land; the calls inside one trial are not independent (they share a JIT state, a cache, a scheduler
    mood)."""
    if len(values) == 0:
        return None
    if positive and all(v > 0 for v in values):
        # A quantity that cannot be negative: the interval on the log scale (stats/launches.py says why).
        logged = mean_interval([math.log(v) for v in values], method=POSITIVE_TRIAL_METHOD)
        interval = Interval(math.exp(logged.estimate), None if logged.low is None else math.exp(logged.low),
                            None if logged.high is None else math.exp(logged.high), logged.n, logged.method)
    else:
        interval = mean_interval(values)
    mean = interval.estimate
    width = (interval.high - interval.low) / mean * 100.0 if interval.low is not None and mean > 0 else None
    return {"estimate": mean, "low": interval.low, "high": interval.high, "width_pct": width,
            "half_width": interval.half_width, "method": interval.method, "trials": interval.n}
