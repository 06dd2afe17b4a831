"""The floor under an ORB-added interval from few launches (summary/pooled_spread.py): its arithmetic on known
values, where it stays out, and on simulated runs whose launches now and then run off, that one run's interval
holds another's estimate about as often as honest intervals do, where the points' own intervals do not."""

import numpy as np
import pytest
from orbench.results.point import Point
from orbench.stats.launches import LaunchValue, over_launches
from orbench.stats.tdist import quantile
from orbench.summary.model import Latency, OrbAdded, PointSummary, VarianceSplit, from_json
from orbench.summary.pooled_spread import with_pooled_spread


def _point(size: int, target: str = "omniorb") -> Point:
    return Point(placement="same-core", mode="oneway", payload_type="octets", payload_bytes=size, target=target)


def _summary(point: Point, launches: list[float], p50: float) -> PointSummary:
    found = over_launches({k: [v] for k, v in enumerate(launches)})
    assert found is not None
    added = OrbAdded(baseline="c-socket", estimate=found["estimate"], ci95_low=found["ci95_low"],
                     ci95_high=found["ci95_high"], ci_method=found["ci_method"], se_ns=found["se"], se_df=found["df"],
                     n_launches=found["n_launches"], launches=tuple(LaunchValue(**v) for v in found["launches"]),
                     variance=from_json(VarianceSplit, found["variance"]))
    latency = Latency(p50=p50, p90=p50, p99=p50, min=p50, max=p50, mean=p50, stdev=0.0, count=1000)
    return PointSummary(point=point, latency_ns=latency, orb_added_latency_ns=added)


def test_a_point_of_agreeing_launches_takes_its_targets_spread():
    # Two sizes whose launches spread 10% of p50 and one whose three launches agree within 0.1%.
    points = {_point(1): _summary(_point(1), [900.0, 1000.0, 1100.0], 1000.0),
              _point(16): _summary(_point(16), [1800.0, 2000.0, 2200.0], 2000.0),
              _point(128): _summary(_point(128), [400.0, 401.0, 402.0], 4000.0)}
    out = with_pooled_spread(points)
    calm = out[_point(128)].orb_added_latency_ns
    # Pooled relative sd: sqrt((0.1^2 * 2 + 0.1^2 * 2 + 0.00025^2 * 2) / 6), times p50 4000, over sqrt(3).
    relative = np.sqrt((0.01 * 2 + 0.01 * 2 + 0.00025 ** 2 * 2) / 6)
    half = quantile(0.975, 6) * relative * 4000.0 / np.sqrt(3)
    assert (calm.ci95_low, calm.ci95_high) == (pytest.approx(401.0 - half), pytest.approx(401.0 + half))
    assert calm.estimate == 401.0 and calm.se_df == 6 and "launch spread at its 3 sizes" in calm.ci_method
    # The two whose own intervals are wider keep them.
    assert out[_point(1)] == points[_point(1)] and out[_point(16)] == points[_point(16)]


def test_the_floor_stays_out_of_many_launches_small_groups_and_other_targets():
    agreeing = [400.0, 401.0, 402.0, 400.0, 401.0, 402.0]
    spread = {_point(s): _summary(_point(s), [900.0, 1000.0, 1100.0], 1000.0) for s in (1, 16)}
    six = {**spread, _point(128): _summary(_point(128), agreeing, 4000.0)}
    assert with_pooled_spread(six) == six  # 6 launches: its own standard error is less rough
    two = {_point(1): spread[_point(1)], _point(128): _summary(_point(128), agreeing[:3], 4000.0)}
    assert with_pooled_spread(two) == two  # two points are too few to pool
    other = {**spread, _point(128, "tao"): _summary(_point(128, "tao"), agreeing[:3], 4000.0)}
    assert with_pooled_spread(other) == other  # tao's only point: a group of its own


def test_intervals_of_few_launches_hold_another_runs_estimate_with_the_floor():
    """Eight sizes, three launches a run, each launch 2% about its level or, one time in five, 15% over it:
    two runs' intervals hold each other's estimates near the honest 0.91 with the floor, far less without."""
    rng = np.random.default_rng(7)
    levels = {1 << (2 * k): 1000.0 * (k + 1) for k in range(8)}

    def run() -> dict:
        out = {}
        for size, level in levels.items():
            launches = [level * (1 + rng.normal(0, 0.02) + (0.15 if rng.random() < 0.2 else 0.0)) for _ in range(3)]
            out[_point(size)] = _summary(_point(size), launches, 10 * level)
        return out

    def capture(pairs: list[tuple[dict, dict]]) -> float:
        held = [a[p].orb_added_latency_ns.ci95_low <= b[p].orb_added_latency_ns.estimate
                <= a[p].orb_added_latency_ns.ci95_high for x, y in pairs for a, b in ((x, y), (y, x)) for p in a]
        return float(np.mean(held))

    runs = [(run(), run()) for _ in range(60)]
    own = capture(runs)
    floored = capture([(with_pooled_spread(a), with_pooled_spread(b)) for a, b in runs])
    assert own < 0.85 and 0.87 <= floored <= 0.99, (own, floored)
