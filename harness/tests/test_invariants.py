"""The run's invariants (summary/invariants.py) on point summaries (summary/model.py), with the
numbers of a quick run on a 2-vCPU VM before the C socket baseline's receive-buffer fix (omniORB twoway 64 KB
read 8.6 us faster than c-socket; c-socket 52.5 us against java-socket 39.3 us)."""

from __future__ import annotations

from orbench.results.point import Point
from orbench.summary.invariants import invariant_warnings
from orbench.summary.model import OrbAdded, PointSummary, TrialInterval


def point(target: str, size: int = 65536, mode: str = "twoway") -> Point:
    return Point(placement="same-core", mode=mode, payload_type="octets", payload_bytes=size, target=target)


def with_points(entries: dict[Point, PointSummary]) -> dict[Point, PointSummary]:
    """Each summary at the point it is keyed by, as summarize() builds them."""
    return {p: s.replace(point=p) for p, s in entries.items()}


def socket(language: str, p50: float, low: float, high: float) -> PointSummary:
    return PointSummary(point=point("?"), kind="socket", language=language,
                        p50_ci95_ns=TrialInterval(estimate=p50, low=low, high=high))


def orb(estimate: float, low: float, high: float) -> PointSummary:
    return PointSummary(point=point("?"), kind="orb", language="c++",
                        p50_ci95_ns=TrialInterval(estimate=44_300.0, low=44_000.0, high=44_600.0),
                        orb_added_latency_ns=OrbAdded(baseline="c-socket", estimate=estimate, ci95_low=low,
                                                      ci95_high=high))


def test_a_middleware_faster_than_its_baseline_names_the_point_and_the_baseline():
    entries = {point("omniorb"): orb(-8_600.0, -9_900.0, -7_100.0), point("c-socket"): socket("c++", 52_500, 52_100, 53_000)}
    (w,) = [w for w in invariant_warnings(with_points(entries)) if "faster than its baseline" in w.text]
    assert w.kind == "baseline suspect" and w.where == "same-core twoway 65536 B omniorb"
    assert "c-socket" in w.text and "-8.60 us" in w.text and "suspect" in w.text and w.severity == 7_100.0


def test_an_interval_reaching_zero_is_no_warning():
    entries = {point("omniorb"): orb(-2_600.0, -5_000.0, 400.0), point("omniorb", 1): orb(900.0, 700.0, 1_100.0)}
    assert invariant_warnings(with_points(entries)) == []


def test_a_c_baseline_slower_than_java_beyond_its_interval_is_a_warning_at_its_point_only():
    entries = {point("c-socket"): socket("c++", 52_500, 52_100, 53_000),
               point("java-socket"): socket("java", 39_300, 38_900, 39_800),
               # Within its interval of the Java p50 at 1 KB, and faster at 16 B: no warning there.
               point("c-socket", 1024): socket("c++", 17_000, 16_500, 17_600),
               point("java-socket", 1024): socket("java", 16_700, 16_400, 17_000),
               point("c-socket", 16): socket("c++", 16_000, 15_800, 16_200),
               point("java-socket", 16): socket("java", 19_000, 18_800, 19_300),
               # Another mode is another group: never compared with the twoway points.
               point("java-socket", mode="oneway"): socket("java", 9_000, 8_900, 9_100)}
    (w,) = invariant_warnings(with_points(entries))
    assert w.where == "same-core twoway 65536 B c-socket" and "java-socket" in w.text
    assert "52.50 us" in w.text and "39.30 us" in w.text and abs(w.severity - (52_100 / 39_300 - 1)) < 1e-9


def test_points_without_intervals_are_skipped():
    entries = {point("c-socket"): PointSummary(point=point("c-socket"), kind="socket", language="c++"),
               point("java-socket"): socket("java", 39_300, 38_900, 39_800),
               point("omniorb"): PointSummary(point=point("omniorb"), kind="orb",
                                              orb_added_latency_ns=OrbAdded(baseline="c-socket", estimate=None))}
    assert invariant_warnings(with_points(entries)) == []


def test_a_queued_oneway_gets_no_added_latency_but_a_written_one_does():
    """gRPC Java's oneway returns once Netty's thread has the message (descriptor oneway_call = "queued"): its
    client time is not the baseline's kind of number, so pairing says so instead of subtracting."""
    from orbench.results.point import Point
    from orbench.summary.model import PointSummary
    from orbench.summary.pairing import pair_with_baselines
    from orbench.targets.descriptor import get_target

    assert get_target("grpc-java").oneway_call == "queued" and get_target("jacorb").oneway_call == "written"
    points, p50s = {}, {}
    for target, kind in (("grpc-java", "orb"), ("jacorb", "orb"), ("java-socket", "socket")):
        for mode in ("oneway", "twoway"):
            point = Point(placement="same-core", mode=mode, payload_type="octets", payload_bytes=16, target=target)
            points[point] = PointSummary(point=point, kind=kind)
            p50s[point] = {(0, k): 1000.0 + 10 * k + (500 if kind == "orb" else 0) for k in range(3)}
    info = {"grpc-java": {"baseline": "java-socket", "oneway_call": "queued"}, "jacorb": {"baseline": "java-socket"}}
    paired = pair_with_baselines(points, p50s, {}, info)
    for point, summary in paired.items():
        added = summary.orb_added_latency_ns
        if point.target == "grpc-java" and point.mode == "oneway":
            assert added.estimate is None and added.why_missing.startswith("not comparable")
        elif point.target != "java-socket":
            assert added.estimate == 500.0, (point, added)
