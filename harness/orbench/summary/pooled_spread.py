"""A floor under an ORB-added interval from few launches: the target's launch-to-launch spread at its other sizes.

From 3 or 4 launches a point's standard error is rough (2 or 3 degrees of freedom): launches that happened to agree
give a narrow interval, and another run's estimate falls outside it. Over the middleware campaign's two runs
20261130-035036-vm and -040011-vm (3 and 4 launches), one run's interval held the other's estimate at 0.79 of the
oneway rows and 0.89 of the twoway rows, capnp-cpp oneway 0.66: most misses were a run of launches that agreed
(thrift-cpp oneway 16 B at 55, 54, 50, 61 ns, +-7 ns) against one with a launch off (230, 60, 60 ns). A target's
launch spread relative to its call's own p50 is much alike across its sizes at one mode and placement, so each of
its points with at most FEW_LAUNCHES launches takes the larger of its own spread and the group's pooled one (the
root mean square of the points' relative launch standard deviations, weighted by their degrees of freedom, times
its own p50), and with the pooled one its degrees of freedom, where that gives the wider interval. It borrows
variance from points measured alike, as a moderated t does (Smyth, "Linear models and empirical Bayes methods for
assessing differential expression in microarray experiments", 2004), but only ever widens. The same two runs read
0.94 and 0.92 with it.

Points with more launches keep their own interval (quick's C++ targets run 6: their standard error is less rough,
and over four quick runs the floor would have widened omniORB's 1 B half-width in two of them, 74 to 93 ns and 72
to 325 ns); so does a group of fewer than MIN_POINTS points.
"""

from __future__ import annotations

import math
from collections import defaultdict

from orbench.results.point import Point
from orbench.stats.tdist import quantile
from orbench.summary.model import OrbAdded, PointSummary

FEW_LAUNCHES = 4
MIN_POINTS = 3
POOLED = "; spread floored by the target's launch spread at its {points} sizes here ({pct:.2f}% of p50, {df} df)"


def _group(point: Point) -> Point:
    """What the points pooled together share: everything but the payload size."""
    return point.replace(payload_bytes=0)


def _relative_spread(summary: PointSummary) -> tuple[float, int] | None:
    """The launches' standard deviation (stats/launches.variance_split's) over the point's p50, with its degrees
    of freedom; None without two launches or a p50."""
    added, p50 = summary.orb_added_latency_ns, summary.p50
    if added is None or not added.launches or len(added.launches) < 2 or added.variance is None or not p50:
        return None
    return added.variance.launch_values_sd_ns / p50, len(added.launches) - 1


def with_pooled_spread(points: dict[Point, PointSummary]) -> dict[Point, PointSummary]:
    """The points again, each ORB-added interval from at most FEW_LAUNCHES launches widened to its group's pooled
    spread where that is the wider."""
    spreads: dict[Point, list[tuple[float, int]]] = defaultdict(list)
    for point, summary in points.items():
        if (found := _relative_spread(summary)) is not None:
            spreads[_group(point)].append(found)
    out = dict(points)
    for point, summary in points.items():
        added = summary.orb_added_latency_ns
        group = spreads.get(_group(point), [])
        if (added is None or added.estimate is None or added.ci95_low is None or added.ci95_high is None
                or not added.launches
                or len(added.launches) > FEW_LAUNCHES or len(group) < MIN_POINTS or not summary.p50):
            continue
        df = sum(d for _, d in group)
        relative = math.sqrt(sum(s * s * d for s, d in group) / df)
        se = relative * summary.p50 / math.sqrt(len(added.launches))
        half = quantile(0.975, df) * se
        if half > (added.ci95_high - added.ci95_low) / 2:
            out[point] = summary.replace(orb_added_latency_ns=_floored(added, half, se, df, len(group), relative))
    return out


def _floored(added: OrbAdded, half: float, se: float, df: int, points: int, relative: float) -> OrbAdded:
    return added.replace(ci95_low=added.estimate - half, ci95_high=added.estimate + half, se_ns=se, se_df=df,
                         ci_method=(added.ci_method or "") + POOLED.format(points=points, pct=100 * relative, df=df))
