"""The report's placement section on summary points of two placements, with the numbers of a plain gRPC C++
program and C sockets on a 2-vCPU VM (gRPC 1 B twoway: +135 us same-core, +83 us split-core; C sockets
16.5 us same-core, 19.8 us split-core)."""

from __future__ import annotations

from orbench.results.point import Point
from orbench.summary.model import Latency, OrbAdded, PointSummary
from orbench_plots.section_placement import fastest_placement, section


def pt(target: str, placement: str, size: int, p50_us: float, added_us: float | None = None) -> PointSummary:
    ns = p50_us * 1e3
    return PointSummary(
        point=Point(placement=placement, mode="twoway", payload_type="octets", payload_bytes=size, target=target),
        latency_ns=Latency(p50=ns, p90=ns, p99=ns, min=ns, max=ns, mean=ns, stdev=0.0, count=1),
        orb_added_latency_ns=None if added_us is None else OrbAdded(baseline="c-socket", estimate=added_us * 1e3))


def test_each_target_is_named_with_the_placement_where_it_is_fastest():
    points = [pt("c-socket", "same-core", 1, 16.5), pt("c-socket", "split-core", 1, 19.8),
              pt("c-socket", "same-core", 32168, 20.0), pt("c-socket", "split-core", 32168, 24.0),
              pt("grpc-cpp", "same-core", 1, 151.5, 135.0), pt("grpc-cpp", "split-core", 1, 102.8, 83.0),
              pt("grpc-cpp", "same-core", 32168, 190.0, 170.0), pt("grpc-cpp", "split-core", 32168, 150.0, 126.0)]
    html = section(tuple(points))
    rows = {r.split("</td>")[0].removeprefix("<tr><td>"): r for r in html.split("\n") if r.startswith("<tr><td>")}
    assert rows["c-socket"].endswith("<td>same-core</td></tr>")
    assert "<td>split-core</td></tr>" in rows["grpc-cpp"]
    assert "151.5 / +135.0" in rows["grpc-cpp"] and "102.8 / +83.0" in rows["grpc-cpp"]


def test_one_placement_gives_no_section_and_no_winner():
    assert section((pt("c-socket", "same-core", 1, 16.5),)) == ""
    assert fastest_placement({"same-core": {1: 16.5}}) is None
    # Sizes measured at one placement only are not compared.
    assert fastest_placement({"same-core": {1: 16.5}, "split-core": {16: 9.0}}) is None
