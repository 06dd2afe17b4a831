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

from orbench.stats.launches import trimmed
from orbench.stats.tdist import quantile, two_sided_p

FDR_Q = 0.05
# A minimum detectable effect is the change flagged with this probability.
POWER = 0.8
Z975 = 1.959964


@dataclass(frozen=True)
class Change:
    """B minus A (minus `null`), with its 95% interval and the two-sided p value of "no change"."""

    estimate: float
    low: float | None
    high: float | None
    p: float | None
    se: float | None = None    # the change's standard error (what a minimum detectable effect scales)
    df: float | None = None    # its degrees of freedom (None: a normal approximation)

    def as_dict(self) -> dict:
        return asdict(self)


def welch(a: Sequence[float], b: Sequence[float], null: float = 0.0) -> Change:
    """mean(b) - mean(a) - null with Welch's t interval and p value; no interval or p below 2 values a side. A
    side of six values or more is trimmed as over_launches trims it (its 20% trimmed mean, Yuen's test), so a
    row is judged on the same location its interval is made for."""
    if len(a) == 0 or len(b) == 0:
        raise ValueError("both sides need values")
    x, y = trimmed(a), trimmed(b)
    if x.se is None or y.se is None:
        return Change(y.mean - x.mean - null, None, None, None)
    # Yuen's degrees of freedom: each side's h - 1.
    return welch_estimates(x.mean, x.se, x.df, y.mean, y.se, y.df, null)


def welch_estimates(a: float, se_a: float, df_a: float, b: float, se_b: float, df_b: float,
                    null: float = 0.0) -> Change:
    """b - a - null for two estimates with their standard errors and degrees of freedom: Welch's t interval
    and p value, on Welch-Satterthwaite degrees of freedom."""
    diff = b - a - null
    va, vb = se_a * se_a, se_b * se_b
    se2 = va + vb
    if se2 <= 0:
        return Change(diff, diff, diff, 1.0 if diff == 0 else 0.0)
    df = se2**2 / ((va**2 / df_a if va else 0.0) + (vb**2 / df_b if vb else 0.0))
    se = math.sqrt(se2)
    half = quantile(0.975, df) * se
    return Change(diff, diff - half, diff + half, two_sided_p(diff / se, df), se, df)


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
    # The shift's standard error as its interval implies (normal approximation).
    se = None if low is None or high is None else (high - low) / (2 * Z975)
    return Change(shift, low, high, p, se, None)


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


MAX_LOG_RATIO = 700.0  # math.exp overflows just above 709


def log_values(values: Sequence[float]) -> list[float]:
    """Per-trial values on the log scale, where a machine that is x% slower shifts every row alike."""
    return [math.log(v) for v in values if v > 0]


def drift(log_ratios: Sequence[float]) -> float | None:
    """The machine's drift between two runs: the median log ratio B/A over the baseline rows (robust to one
    baseline that really changed); None without baselines."""
    return float(np.median(log_ratios)) if len(log_ratios) else None


def pct(log_ratio: float) -> float:
    # A one-launch row with two trials can have a minimum detectable effect beyond exp's range.
    if log_ratio > MAX_LOG_RATIO:
        return math.inf
    return (math.exp(log_ratio) - 1.0) * 100.0


def _z(p: float) -> float:
    """The standard normal's p-quantile (Acklam's rational approximation, relative error below 1.2e-9)."""
    a = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02, 1.383577518672690e02,
         -3.066479806614716e01, 2.506628277459239e00)
    b = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01,
         -1.328068155288572e01)
    c = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00, -2.549732539343734e00,
         4.374664141464968e00, 2.938163982698783e00)
    d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
    if p < 0.02425:
        q = math.sqrt(-2 * math.log(p))
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    if p > 1 - 0.02425:
        return -_z(1 - p)
    q = p - 0.5
    r = q * q
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / \
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)


def t_power(shift: float, df: float, critical: float) -> float:
    """P(T > critical) for T noncentral t with `df` degrees of freedom and noncentrality `shift`: a one-sided
    t test's power at a true change of `shift` standard errors, integrated over the chi-square distribution of
    the estimated variance (no SciPy: the integral on a fine grid)."""
    upper = df + 12 * math.sqrt(2 * df) + 20
    v = np.linspace(upper / 2000, upper, 2000)
    log_pdf = (df / 2 - 1) * np.log(v) - v / 2 - (df / 2) * math.log(2) - math.lgamma(df / 2)
    tail = 0.5 * _erfc((critical * np.sqrt(v / df) - shift) / math.sqrt(2))
    return float(np.sum(np.exp(log_pdf) * tail) * (v[1] - v[0]))


def _erfc(x: np.ndarray) -> np.ndarray:
    """The complementary error function elementwise (Chebyshev fit, relative error below 1.2e-7; numpy has
    none)."""
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
    r = t * np.exp(poly)
    return np.where(x >= 0, r, 2.0 - r)


def minimum_detectable(se: float, df: float | None, alpha: float, power: float = POWER) -> float:
    """The smallest true change a two-sided test at level `alpha` flags with probability `power`, for a change
    with standard error `se`: on `df` degrees of freedom the noncentrality at which the t test's power is
    `power` (t_power, solved by bisection), times se; with df None (a normal test) (z(1 - alpha/2) + z(power))
    x se. The far tail (a flag of the wrong sign) is neglected."""
    if df is None:
        return (_z(1 - alpha / 2) + _z(power)) * se
    critical = quantile(1 - alpha / 2, df)
    low, high = 0.0, critical + 10 * _z(power) + 50
    for _ in range(40):
        mid = (low + high) / 2
        low, high = (mid, high) if t_power(mid, df, critical) < power else (low, mid)
    return high * se
