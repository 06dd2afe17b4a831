"""Known answers as a line: across the known-answer targets of one point group (a server spinning N = 0, 1, 2,
5, ... us per call), the recovered ORB-added latency X against N. A pipeline that reads N as N has slope 1 and
intercept 0; a bias proportional to N (the spin costing more than N) shows in the slope, a fixed one (a launch
difference between the delay server and the plain baseline) in the intercept, where single points at one N
cannot tell the two apart.

The fit is ordinary least squares over every replicate there is: each launch's value when the run has several
launches (the launch is the level that repeats), else each target's estimate; the intervals are Student t on
n - 2 degrees of freedom. A check that a 2% bias fails: the slope within SLOPE_TOLERANCE of 1, and the
intercept's interval covering 0.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import numpy as np

from orbench.results.point import PointGroup
from orbench.stats.tdist import quantile

# How far from 1 the fitted slope may be: a 2% proportional bias must fail the check.
SLOPE_TOLERANCE = 0.01


def fit_line(xs: list[float], ys: list[float]) -> dict[str, Any] | None:
    """y = intercept + slope x by least squares, with 95% t intervals (None below 3 values or one x)."""
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    if x.size < 3 or np.ptp(x) == 0:
        return None
    slope, intercept = np.polyfit(x, y, 1)
    resid = y - (intercept + slope * x)
    dof = x.size - 2
    s2 = float(resid @ resid) / dof
    sxx = float(((x - x.mean()) ** 2).sum())
    se_slope = math.sqrt(s2 / sxx)
    se_intercept = math.sqrt(s2 * (1.0 / x.size + x.mean() ** 2 / sxx))
    t = quantile(0.975, dof)
    return {"slope": float(slope), "slope_ci95": [float(slope - t * se_slope), float(slope + t * se_slope)],
            "intercept_ns": float(intercept),
            "intercept_ci95_ns": [float(intercept - t * se_intercept), float(intercept + t * se_intercept)],
            "values": int(x.size), "residual_sd_ns": math.sqrt(s2)}


def known_answer_fits(answers: Iterable[tuple[PointGroup, str | None, float, list[float]]]) -> list[dict[str, Any]]:
    """One fit per point group and baseline with known answers at two or more N, from each known-answer point's
    (group, baseline, known N, replicates of X): each launch's value when it has two or more, else its estimate."""
    by_group: dict[tuple, list[tuple[float, float]]] = defaultdict(list)
    for group, baseline, known_ns, replicates in answers:
        by_group[(group, baseline)] += [(float(known_ns), y) for y in replicates]
    out = []
    for (group, baseline), pairs in sorted(by_group.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        fit = fit_line([n for n, _ in pairs], [y for _, y in pairs])
        if fit is None:
            continue
        lo, hi = fit["intercept_ci95_ns"]
        fit.update(slope_ok=abs(fit["slope"] - 1.0) <= SLOPE_TOLERANCE, intercept_ok=lo <= 0.0 <= hi,
                   known_ns=sorted({n for n, _ in pairs}))
        out.append({**group.as_record(), "baseline": baseline, **fit})
    return out


def fit_text(fit: Any) -> str:
    """A fit (an object with the fields fit_line gives) as one line."""
    s_lo, s_hi = fit.slope_ci95
    i_lo, i_hi = fit.intercept_ci95_ns
    return (f"X = {fit.slope:.4f} [{s_lo:.4f}, {s_hi:.4f}] N + {fit.intercept_ns:.0f} ns "
            f"[{i_lo:.0f}, {i_hi:.0f}] over {fit.values} values")
