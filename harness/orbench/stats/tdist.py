"""Student's t distribution for any (also fractional, Welch) degrees of freedom, from the regularized incomplete
beta function: P(|T| > t) = I_x(df/2, 1/2) with x = df / (df + t^2). numpy has no t distribution and the
harness needs no SciPy otherwise; the continued fraction is the standard one (Lentz's method)."""

from __future__ import annotations

import functools
import math

_EPS = 1e-15
_TINY = 1e-300


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b), converging for x < (a + 1) / (a + b + 2)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return h


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, 1.0 - x) / b


def two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for T ~ Student t with df degrees of freedom."""
    if df <= 0:
        raise ValueError("df must be > 0")
    if math.isinf(t):
        return 0.0
    return regularized_beta(df / 2.0, 0.5, df / (df + t * t))


def f_upper_p(ratio: float, df1: float, df2: float) -> float:
    """P(F >= ratio) for F ~ F(df1, df2): I_x(df2/2, df1/2) with x = df2 / (df2 + df1 ratio)."""
    if df1 <= 0 or df2 <= 0:
        raise ValueError("df must be > 0")
    if ratio <= 0:
        return 1.0
    return regularized_beta(df2 / 2.0, df1 / 2.0, df2 / (df2 + df1 * ratio))


@functools.lru_cache(maxsize=4096)  # a summary asks for the same few (95%, df) thousands of times
def quantile(p: float, df: float) -> float:
    """The t value with P(T <= value) = p (0.5 < p < 1), by bisection on two_sided_p."""
    if not 0.5 < p < 1.0:
        raise ValueError("p must be in (0.5, 1)")
    tail = 2.0 * (1.0 - p)
    lo, hi = 0.0, 1.0
    while two_sided_p(hi, df) > tail:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if two_sided_p(mid, df) > tail:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * hi:
            break
    return (lo + hi) / 2.0
