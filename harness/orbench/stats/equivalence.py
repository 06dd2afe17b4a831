"""Are two latency traces equivalent? The tests of Chandra Krintz and Rich Wolski, "Using JavaNws to Compare C and
Java TCP-Socket Performance" (C vs Java TCP sockets), on orbench's samples.

Trace A and trace B are the same point (placement, mode, payload) of two targets, e.g. c-socket and java-socket
at 64 KB. The interleaved runner makes trial k of A and trial k of B neighbours in time, so call i of trial k of
A pairs with call i of trial k of B ("values taken nearest in time form a pair").

- moments: mean, variance, standard deviation, p50 of each trace;
- paired least-squares regression of B on A through the origin, B = beta * A: beta near 1.0 means the A value
  predicts the B value (beta 1.07 = B is 7% slower on average); pairs where one value is 100 times the other are
  dropped first, as the paper does with "catastrophic" outliers, and counted. Done twice: per call, and per
  paired trial on the trials' p50s (the pairs that really are nearest in time: see compare_traces);
- empirically derived 95% bands: for each trace M, a forecast f_t (the mean of the previous WINDOW values) and
  MSE_t (the mean of the squared forecast errors before t) give the band f_t +- 2 sqrt(MSE_t); the share of the
  other trace's values at the same index inside M's band is the capture. Both captures >= 95% is the paper's
  "equally predictable, indistinguishable within engineering tolerances".
The paper's forecaster is the Network Weather Service's adaptive family; a sliding mean is the simplest member, named here as such.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

WINDOW = 32
OUTLIER_FACTOR = 100.0
CAPTURE_EQUIVALENT = 0.95


def moments(x: np.ndarray) -> dict[str, float]:
    return {"mean": float(x.mean()), "variance": float(x.var(ddof=1)), "stdev": float(x.std(ddof=1)),
            "p50": float(np.median(x)), "count": int(x.size)}


def regression_through_origin(a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    keep = (a * OUTLIER_FACTOR > b) & (b * OUTLIER_FACTOR > a)
    a2, b2 = a[keep].astype(float), b[keep].astype(float)
    beta = float((a2 * b2).sum() / (a2 * a2).sum())
    with warnings.catch_warnings():  # heavy tails make the fit poorly conditioned; it is reported, not trusted
        warnings.simplefilter("ignore", np.exceptions.RankWarning if hasattr(np, "exceptions") else UserWarning)
        slope, intercept = np.polyfit(a2, b2, 1) if a2.size > 2 else (float("nan"), float("nan"))
    r = float(np.corrcoef(a2, b2)[0, 1]) if a2.size > 2 and a2.std() > 0 and b2.std() > 0 else None
    return {"beta": beta, "pairs": int(a2.size), "outlier_pairs_dropped": int((~keep).sum()),
            "ols_slope": float(slope), "ols_intercept_ns": float(intercept), "pearson_r": r}


def empirical_band(x: np.ndarray, window: int = WINDOW) -> tuple[np.ndarray, np.ndarray, int]:
    """Lower and upper band for indexes first..end of x (forecast +- 2 sqrt(running MSE)), and `first`."""
    x = x.astype(float)
    c = np.concatenate(([0.0], np.cumsum(x)))
    t = np.arange(window, x.size)
    forecast = (c[t] - c[t - window]) / window  # mean of x[t-window:t]
    err2 = (x[t] - forecast) ** 2
    # MSE_t uses the errors strictly before t: a shifted running mean.
    mse_before = np.concatenate(([np.nan], np.cumsum(err2)[:-1] / np.arange(1, err2.size)))
    first = window + 1  # the first index with at least one earlier error
    half = 2.0 * np.sqrt(mse_before[1:])
    return forecast[1:] - half, forecast[1:] + half, first


def capture(band_of: np.ndarray, values: np.ndarray, window: int = WINDOW) -> float:
    lo, hi, first = empirical_band(band_of, window)
    v = values[first:first + lo.size].astype(float)
    n = min(v.size, lo.size)
    return float(np.mean((v[:n] >= lo[:n]) & (v[:n] <= hi[:n])))


def compare_traces(a_trials: list[np.ndarray], b_trials: list[np.ndarray], a_name: str = "A",
                   b_name: str = "B") -> dict[str, Any]:
    """Krintz and Wolski's tests on two traces given as paired trials (same order, same number of calls each)."""
    pairs = [(x[: min(x.size, y.size)], y[: min(x.size, y.size)]) for x, y in zip(a_trials, b_trials)]
    if not pairs:
        raise ValueError("no paired trial")
    a = np.concatenate([p[0] for p in pairs])
    b = np.concatenate([p[1] for p in pairs])
    if a.size < 4 * WINDOW:
        raise ValueError(f"{a.size} paired samples; the band needs at least {4 * WINDOW}")
    a_in_b, b_in_a = capture(b, a), capture(a, b)
    return {
        "a": a_name, "b": b_name, "paired_trials": len(pairs),
        "moments": {a_name: moments(a), b_name: moments(b)},
        "mean_ratio_b_over_a": float(b.mean() / a.mean()),
        "regression_b_on_a": regression_through_origin(a, b),
        # Per-call pairs are independent draws (call i of A and of B are a trial apart), so heavy tails pull the
        # per-call beta below the mean ratio; the per-trial p50s are the pairs that share the machine's drift.
        "regression_trial_p50_b_on_a": regression_through_origin(
            np.array([np.median(p[0]) for p in pairs]), np.array([np.median(p[1]) for p in pairs])),
        "capture": {f"{a_name} in {b_name}'s band": a_in_b, f"{b_name} in {a_name}'s band": b_in_a,
                    f"{a_name} in its own band": capture(a, a), f"{b_name} in its own band": capture(b, b)},
        "equivalent_by_capture": bool(a_in_b >= CAPTURE_EQUIVALENT and b_in_a >= CAPTURE_EQUIVALENT),
        "band": f"sliding mean of the previous {WINDOW} values +- 2 sqrt(running MSE of its errors)",
    }
