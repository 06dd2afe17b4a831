"""The cost of each invocation shape relative to the `in` call: a shape's p50 over the same target's `in` p50 at
the same point otherwise (mode, payload type and size, placement, ...), from the trials both ran, paired by
(launch, trial) as ORB-added latency is. The ratio is taken on a log scale and brought back (a geometric mean,
whose interval stays above 0 and is as wide either way by factor); its difference in ns beside it. With two or
more launches the interval is over launches (the mean of each launch's median, Student t); with one, over that
launch's paired trials (t over trials, which says nothing of the next launch)."""

from __future__ import annotations

import math

import numpy as np

from orbench.results.point import Point
from orbench.results.shapes import IN
from orbench.stats.launches import LAUNCH_METHOD, by_launch, over_launches
from orbench.stats.stats import trial_ci95
from orbench.summary.model import PointSummary, ShapeCost, TrialInterval
from orbench.summary.point_summary import TrialKey


def shape_costs(points: dict[Point, PointSummary],
                trial_p50: dict[Point, dict[TrialKey, float]]) -> list[ShapeCost]:
    """One ShapeCost per point of a shape other than `in` that has trials, in the points' order."""
    out = []
    for point in points:
        if point.shape == IN or point not in trial_p50:
            continue
        reference = point.replace(shape=IN)
        if reference not in trial_p50:
            out.append(ShapeCost(point=point, why_missing=f"{point.target}'s in call was not measured at this point"))
            continue
        shape, base = trial_p50[point], trial_p50[reference]
        keys = sorted(set(shape) & set(base))
        if not keys:
            out.append(ShapeCost(point=point, why_missing="no trial of the shape has a partner of the in call"))
            continue
        log_ratios = {k: math.log(shape[k] / base[k]) for k in keys if base[k] > 0 and shape[k] > 0}
        added = {k: shape[k] - base[k] for k in keys}
        out.append(ShapeCost(point=point, in_p50_ns=float(np.median([base[k] for k in keys])),
                             shape_p50_ns=float(np.median([shape[k] for k in keys])),
                             ratio=_exp(_interval(log_ratios)), added_ns=_interval(added)))
    return out


def _exp(log_interval: TrialInterval) -> TrialInterval:
    """An interval of log ratios as one of ratios (geometric)."""
    if log_interval.estimate is None:
        return log_interval
    estimate = math.exp(log_interval.estimate)
    low = None if log_interval.low is None else math.exp(log_interval.low)
    high = None if log_interval.high is None else math.exp(log_interval.high)
    return TrialInterval(estimate=estimate, low=low, high=high,
                         width_pct=None if low is None or high is None else (high - low) / estimate * 100.0,
                         method=f"geometric: {log_interval.method}", trials=log_interval.trials,
                         launches=log_interval.launches)


def _interval(values: dict[TrialKey, float]) -> TrialInterval:
    per_launch = by_launch(values)
    if len(per_launch) >= 2:
        lv = over_launches(per_launch)
        assert lv is not None
        low, high, mean = lv["ci95_low"], lv["ci95_high"], lv["estimate"]
        return TrialInterval(estimate=mean, low=low, high=high,
                             width_pct=None if low is None or mean <= 0 else (high - low) / mean * 100.0,
                             half_width=None if low is None else (high - low) / 2.0, method=LAUNCH_METHOD,
                             trials=len(values), launches=lv["n_launches"])
    ci = trial_ci95([values[k] for k in sorted(values)])
    return TrialInterval(**ci, launches=1) if ci else TrialInterval(why_missing="no paired trial")
