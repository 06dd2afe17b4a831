"""The cost of each invocation shape relative to the `in` call: a shape's p50 over the same target's `in` p50 at
the same point otherwise (mode, payload type and size, placement, ...), from the trials both ran, paired by
(launch, trial) as ORB-added latency is. The ratio is taken on a log scale and brought back (a geometric mean,
whose interval stays above 0 and is as wide either way by factor); its difference in ns beside it. With two or
more launches the interval is over launches (the mean of each launch's median, Student t); with one, over that
launch's paired trials (t over trials, which says nothing of the next launch). A shape whose kind names another
to be `against` (pipelined: chained) is also compared with that one, the same way: what promise pipelining
saves over the same two calls made one after the other."""

from __future__ import annotations

import math

import numpy as np

from orbench.results.point import Point
from orbench.results.shapes import IN, kind_of
from orbench.stats.launches import by_launch, over_launches
from orbench.stats.stats import trial_ci95
from orbench.summary.model import PointSummary, ShapeCost, TrialInterval
from orbench.summary.point_summary import TrialKey


def shape_costs(points: dict[Point, PointSummary],
                trial_p50: dict[Point, dict[TrialKey, float]]) -> list[ShapeCost]:
    """One ShapeCost per point of a shape other than `in` that has trials, in the points' order, and one more
    against the shape its kind is `against`."""
    out = []
    for point in points:
        if point.shape == IN or point not in trial_p50:
            continue
        out.append(_cost(point, IN, trial_p50))
        against = kind_of(point.shape).against
        if against is not None and point.replace(shape=against) in trial_p50:
            out.append(_cost(point, against, trial_p50))
    return out


def _cost(point: Point, reference_shape: str, trial_p50: dict[Point, dict[TrialKey, float]]) -> ShapeCost:
    """`point` against the same point at `reference_shape`, paired by (launch, trial)."""
    reference = None if reference_shape == IN else reference_shape
    other = point.replace(shape=reference_shape)
    if other not in trial_p50:
        return ShapeCost(point=point, reference=reference,
                         why_missing=f"{point.target}'s {reference_shape} call was not measured at this point")
    shape, base = trial_p50[point], trial_p50[other]
    keys = sorted(set(shape) & set(base))
    if not keys:
        return ShapeCost(point=point, reference=reference,
                         why_missing=f"no trial of the shape has a partner of the {reference_shape} call")
    log_ratios = {k: math.log(shape[k] / base[k]) for k in keys if base[k] > 0 and shape[k] > 0}
    added = {k: shape[k] - base[k] for k in keys}
    return ShapeCost(point=point, reference=reference, in_p50_ns=float(np.median([base[k] for k in keys])),
                     shape_p50_ns=float(np.median([shape[k] for k in keys])),
                     ratio=_exp(_interval(log_ratios)), added_ns=_interval(added))


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
                             half_width=None if low is None else (high - low) / 2.0, method=lv["ci_method"],
                             trials=len(values), launches=lv["n_launches"])
    ci = trial_ci95([values[k] for k in sorted(values)])
    return TrialInterval(**ci, launches=1) if ci else TrialInterval(why_missing="no paired trial")
