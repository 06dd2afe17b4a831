"""Statistics, computed once, in Python, from raw samples: workers only time and record.

Percentiles use numpy's default (linear interpolation between order statistics). Confidence intervals on the
ORB-added latency come from trials paired by interleaving: trial k of an ORB ran right next to trial k of its
baseline, so machine drift hits both and cancels in the difference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

PERCENTILES = (50, 90, 99)
# Two-sided 95% Student t quantiles, t(0.975, df), for df = 1..30; beyond that a Cornish-Fisher expansion is
# within 0.001 of the exact value.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)
BOOTSTRAP_RESAMPLES = 2000


def read_samples(path: Path | str) -> np.ndarray:
    """A samples file: little-endian int64 nanoseconds, one per timed call (harness/PROTOCOL.md)."""
    return np.fromfile(path, dtype="<i8")


def latency_summary(samples: np.ndarray) -> dict[str, float]:
    if samples.size == 0:
        raise ValueError("no samples")
    p = np.percentile(samples, PERCENTILES)
    out = {f"p{q}": float(v) for q, v in zip(PERCENTILES, p)}
    out.update(min=float(samples.min()), max=float(samples.max()), mean=float(samples.mean()),
               stdev=float(samples.std(ddof=1)) if samples.size > 1 else 0.0, count=int(samples.size))
    return out


def t_quantile_975(df: int) -> float:
    if df < 1:
        raise ValueError("df must be >= 1")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def mean_ci95(values: Sequence[float]) -> tuple[float, float | None, float | None]:
    """Mean with a Student-t 95% interval; no interval from a single value."""
    x = np.asarray(values, dtype=float)
    mean = float(x.mean())
    if x.size < 2:
        return mean, None, None
    half = t_quantile_975(x.size - 1) * float(x.std(ddof=1)) / math.sqrt(x.size)
    return mean, mean - half, mean + half


def bootstrap_mean_ci95(values: Sequence[float], resamples: int = BOOTSTRAP_RESAMPLES,
                        seed: int = 0) -> tuple[float | None, float | None]:
    """Percentile bootstrap of the mean; fixed seed so a summary is reproducible from the same samples."""
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return None, None
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(resamples, x.size))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(lo), float(hi)


def orb_added_latency(orb_trial_p50: dict[int, float], baseline_trial_p50: dict[int, float]) -> dict | None:
    """ORB-added latency: the mean over paired trials of (ORB p50 - baseline p50), with 95% intervals.

    Trials pair by trial number; a trial that failed on either side drops its pair.
    """
    pairs = sorted(set(orb_trial_p50) & set(baseline_trial_p50))
    if not pairs:
        return None
    diffs = [orb_trial_p50[k] - baseline_trial_p50[k] for k in pairs]
    mean, lo, hi = mean_ci95(diffs)
    b_lo, b_hi = bootstrap_mean_ci95(diffs)
    return {
        "estimate": mean,
        "ci95_low": lo,
        "ci95_high": hi,
        "ci_method": "Student t over paired per-trial p50 differences",
        "bootstrap_ci95": [b_lo, b_hi] if b_lo is not None else None,
        "pairs": len(pairs),
        "per_pair": diffs,
    }


def spread_pct(values: Sequence[float]) -> float | None:
    """(max - min) / median of per-trial p50s, in percent: how much the trials of one point disagree."""
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return None
    med = float(np.median(x))
    return float((x.max() - x.min()) / med * 100.0) if med > 0 else None


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


def trial_ci95(values: Sequence[float], resamples: int = BOOTSTRAP_RESAMPLES) -> dict | None:
    """A point's p50 (or any per-trial statistic) over its trials: the mean of the per-trial values with a
    percentile-bootstrap 95% interval (trials resampled with replacement) and, beside it, the Student-t one.

    The trial is the unit that repeats, so the interval says how far another set of trials on the same machine
    would land; the calls inside one trial are not independent (they share a JIT state, a cache, a scheduler
    mood). With few trials the percentile bootstrap is too narrow (it cannot see beyond the values it has):
    the stopping rule therefore never stops before the campaign's `trials`, and the t interval stays beside it.
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return None
    mean, t_lo, t_hi = mean_ci95(x)
    b_lo, b_hi = bootstrap_mean_ci95(x, resamples=resamples)
    width = (b_hi - b_lo) / mean * 100.0 if b_lo is not None and mean > 0 else None
    return {"estimate": mean, "low": b_lo, "high": b_hi, "width_pct": width,
            "method": "percentile bootstrap over trials of the mean per-trial value, 2000 resamples",
            "t_low": t_lo, "t_high": t_hi, "trials": int(x.size)}


def intervals_overlap(a_low: float | None, a_high: float | None, b_low: float | None, b_high: float | None) -> bool:
    """True unless both intervals exist and are disjoint (a missing interval never claims a change)."""
    if None in (a_low, a_high, b_low, b_high):
        return True
    return not (a_high < b_low or b_high < a_low)  # type: ignore[operator]
