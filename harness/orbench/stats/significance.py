"""Comparing two runs as pure functions: a Welch t test per row, machine drift told apart from a row's own
change, and the Benjamini-Hochberg procedure over all rows of a comparison.

Two runs' trials are independent samples, so a row's change is tested with Welch's t test (unequal variances)
on its per-trial values. **Drift**: when the machine got faster or slower between the runs, every baseline
moves alike; the median over the baselines of their log ratio B/A is that drift, and a p50 row is tested for a
change *beyond* it (H0: its log ratio equals the drift). ORB-added latency needs no such correction: it is a
difference of paired trials within each run, where drift cancels. **Many rows**: a comparison makes dozens of
tests; testing each at 5% would flag a few by chance on every A/A comparison, so the p values of all rows go
through Benjamini and Hochberg's step-up procedure ("Controlling the false discovery rate", 1995), which keeps
the expected share of false flags among the flags at or below q.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from orbench.stats.tdist import quantile, two_sided_p

FDR_Q = 0.05


@dataclass(frozen=True)
class Change:
    """B minus A (minus `null`), with its 95% interval and the two-sided p value of "no change"."""

    estimate: float
    low: float | None
    high: float | None
    p: float | None

    def as_dict(self) -> dict:
        return asdict(self)


def welch(a: Sequence[float], b: Sequence[float], null: float = 0.0) -> Change:
    """mean(b) - mean(a) - null with Welch's t interval and p value; no interval or p below 2 values a side."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.size == 0 or y.size == 0:
        raise ValueError("both sides need values")
    diff = float(y.mean() - x.mean()) - null
    if x.size < 2 or y.size < 2:
        return Change(diff, None, None, None)
    va, vb = float(x.var(ddof=1)) / x.size, float(y.var(ddof=1)) / y.size
    se2 = va + vb
    if se2 <= 0:
        return Change(diff, diff, diff, 1.0 if diff == 0 else 0.0)
    # Welch-Satterthwaite degrees of freedom.
    df = se2**2 / ((va**2 / (x.size - 1) if va else 0.0) + (vb**2 / (y.size - 1) if vb else 0.0))
    se = math.sqrt(se2)
    half = quantile(0.975, df) * se
    return Change(diff, diff - half, diff + half, two_sided_p(diff / se, df))


def rank_shift(a: Sequence[float], b: Sequence[float]) -> Change:
    """How far b's values lie above a's, robustly: the Hodges-Lehmann shift (the median of every difference b_j -
    a_i) with its 95% interval (order statistics of those differences) and the two-sided p value of the
    Wilcoxon-Mann-Whitney test (normal approximation, ties corrected). For values with occasional large outliers,
    such as per-pair ORB-added differences, whose estimate is a median; no interval or p below 2 values a side."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.size == 0 or y.size == 0:
        raise ValueError("both sides need values")
    diffs = np.sort((y[None, :] - x[:, None]).ravel())
    shift = float(np.median(diffs))
    n, m = int(x.size), int(y.size)
    if n < 2 or m < 2:
        return Change(shift, None, None, None)
    nm = n * m
    u = float(np.sum(diffs > 0) + 0.5 * np.sum(diffs == 0))
    _, counts = np.unique(np.concatenate([x, y]), return_counts=True)
    ties = float(np.sum(counts.astype(float) ** 3 - counts))
    var = nm / 12.0 * ((n + m + 1) - ties / ((n + m) * (n + m - 1)))
    if var <= 0:
        return Change(shift, shift, shift, 1.0)
    z = (abs(u - nm / 2.0) - 0.5) / math.sqrt(var)
    p = math.erfc(max(z, 0.0) / math.sqrt(2.0))
    k = int(math.floor(nm / 2.0 - 1.959964 * math.sqrt(nm * (n + m + 1) / 12.0)))
    low, high = (float(diffs[k - 1]), float(diffs[nm - k])) if k >= 1 else (None, None)
    return Change(shift, low, high, p)


def benjamini_hochberg(pvalues: Sequence[float | None], q: float = FDR_Q) -> list[bool]:
    """Which hypotheses to reject at false discovery rate q (a None p value is never rejected)."""
    indexed = sorted((p, i) for i, p in enumerate(pvalues) if p is not None)
    m = len(indexed)
    cutoff = -1
    for rank, (p, _) in enumerate(indexed, start=1):
        if p <= q * rank / m:
            cutoff = rank
    rejected = [False] * len(pvalues)
    for rank, (_, i) in enumerate(indexed, start=1):
        if rank <= cutoff:
            rejected[i] = True
    return rejected


def log_values(values: Sequence[float]) -> list[float]:
    """Per-trial values on the log scale, where a machine that is x% slower shifts every row alike."""
    return [math.log(v) for v in values if v > 0]


def drift(log_ratios: Sequence[float]) -> float | None:
    """The machine's drift between two runs: the median log ratio B/A over the baseline rows (robust to one
    baseline that really changed); None without baselines."""
    return float(np.median(log_ratios)) if len(log_ratios) else None


def pct(log_ratio: float) -> float:
    return (math.exp(log_ratio) - 1.0) * 100.0
