"""Invariants a run's numbers must keep, checked on the summary's points: where one fails, the number the report
builds on (a baseline) is suspect, not the middleware that looks fast or slow against it.

- A middleware is never faster than its socket baseline: an ORB-added interval entirely below zero says the
  baseline does work the middleware's path does not (on a 2-vCPU VM, orbench's C socket baseline once received
  into a buffer a few bytes ahead of the kernel's source page offset, and the kernel's copy ran 10x slower).
- A C socket baseline is no slower than another language's (Java, Python) at the same point: C's p50 interval
  entirely above the other baseline's p50 says the same of the C baseline.

Each warning names a cause from the anatomy counters of both points (anatomy/), or says it is unexplained. The
one these counters show: wake-ups. A receiver on another CPU that keeps up with its sender sleeps between
messages and is woken (a voluntary context switch) for each; a receiver that falls behind finds several waiting
and takes them in one read. So at split-core the faster, leaner sender can pay more wake-ups per call than a
slower one, and look slower.
"""

from __future__ import annotations

from orbench.results.point import Point
from orbench.results.run_warnings import RunWarning
from orbench.summary.model import Anatomy, PointSummary

SOCKET_KIND = "socket"
# Voluntary context switches per call (both workers) by which the slower side must exceed the faster one for
# wake-ups to be named as the cause: a fifth of a switch per call is several microseconds at split-core.
WAKEUP_GAP_PER_CALL = 0.2


def invariant_warnings(points: dict[Point, PointSummary]) -> list[RunWarning]:
    """The warnings of both invariants over the summary's points (kind, language, p50_ci95_ns,
    orb_added_latency_ns)."""
    return _below_baseline(points) + _c_slower_than_other_languages(points)


def _below_baseline(points: dict[Point, PointSummary]) -> list[RunWarning]:
    out = []
    for point, summary in points.items():
        added = summary.orb_added_latency_ns
        if added is None or added.ci95_high is None or added.ci95_high >= 0:
            continue
        high, low, estimate = added.ci95_high, added.ci95_low or 0.0, added.estimate or 0.0
        cause = cause_text(points, slow=point.replace(target=added.baseline), fast=point)
        out.append(RunWarning(
            "baseline suspect", point.label,
            f"faster than its baseline {added.baseline}: added latency {estimate / 1e3:+.2f} us, "
            f"interval [{low / 1e3:+.2f}, {high / 1e3:+.2f}] us entirely below zero; the baseline "
            f"does work the middleware does not, its number is suspect; {cause}", -high))
    return out


def _c_slower_than_other_languages(points: dict[Point, PointSummary]) -> list[RunWarning]:
    sockets = {p: s.p50_ci95_ns for p, s in points.items()
               if s.kind == SOCKET_KIND and s.p50_ci95_ns is not None and s.p50_ci95_ns.estimate is not None}
    out = []
    for point, c_p50 in sockets.items():
        if points[point].language not in ("c", "c++"):
            continue
        # Against every other language's socket baseline (Java, Python, ...): C's is the floor of them all.
        for other, theirs in sockets.items():
            if points[other].language in ("c", "c++") or other.group != point.group:
                continue
            other_p50 = theirs.estimate or 0.0
            if c_p50.low is None or c_p50.low <= other_p50:
                continue
            cause = cause_text(points, slow=point, fast=other)
            out.append(RunWarning(
                "baseline suspect", point.label,
                f"C socket baseline slower than {other.target}: p50 {(c_p50.estimate or 0.0) / 1e3:.2f} us, interval "
                f"from {c_p50.low / 1e3:.2f} us, vs {other_p50 / 1e3:.2f} us; the C baseline's number is suspect; "
                f"{cause}", c_p50.low / other_p50 - 1))
    return out


def cause_text(points: dict[Point, PointSummary], slow: Point, fast: Point) -> str:
    """Why `slow` took longer per call than `fast` at the same point, as far as the anatomy counters tell."""
    slow_switches = _switches_per_call(points.get(slow))
    fast_switches = _switches_per_call(points.get(fast))
    if slow_switches is None or fast_switches is None:
        return "cause unexplained (no anatomy counters for both; campaign key anatomy = \"counters\")"
    counts = (f"{slow.target} {slow_switches:.2f} voluntary context switches per call, "
              f"{fast.target} {fast_switches:.2f}")
    if slow_switches - fast_switches >= WAKEUP_GAP_PER_CALL:
        return (f"cause: wake-ups ({counts}): {slow.target}'s receiver keeps up and is woken per message, "
                f"{fast.target}'s takes several per wake-up")
    return f"cause unexplained ({counts})"


def _switches_per_call(summary: PointSummary | None) -> float | None:
    anatomy: Anatomy | None = None if summary is None else summary.anatomy
    if anatomy is None:
        return None
    client, server = anatomy.median("client_vcsw"), anatomy.median("server_vcsw")
    if client is None or server is None:
        return None
    return client + server
