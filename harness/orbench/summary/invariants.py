"""Invariants a run's numbers must keep, checked on the summary's points: where one fails, the number the report
builds on (a baseline) is suspect, not the middleware that looks fast or slow against it.

- A middleware is never faster than its socket baseline: an ORB-added interval entirely below zero says the
  baseline does work the middleware's path does not (on a 2-vCPU VM, orbench's C socket baseline once received
  into a buffer a few bytes ahead of the kernel's source page offset, and the kernel's copy ran 10x slower).
- A C socket baseline is no slower than a Java one at the same point: C's p50 interval entirely above the
  Java baseline's p50 says the same of the C baseline.
"""

from __future__ import annotations

from typing import Any

from orbench.results.point import Point
from orbench.results.run_warnings import RunWarning

SOCKET_KIND = "socket"


def invariant_warnings(entries: dict[Point, dict[str, Any]]) -> list[RunWarning]:
    """The warnings of both invariants over the summary's point entries (kind, language, p50_ci95_ns,
    orb_added_latency_ns as summarize() builds them)."""
    return _below_baseline(entries) + _c_slower_than_java(entries)


def _below_baseline(entries: dict[Point, dict[str, Any]]) -> list[RunWarning]:
    out = []
    for point, entry in entries.items():
        added = entry.get("orb_added_latency_ns") or {}
        high = added.get("ci95_high")
        if high is None or high >= 0:
            continue
        out.append(RunWarning(
            "baseline suspect", point.label,
            f"faster than its baseline {added.get('baseline')}: added latency {added['estimate'] / 1e3:+.2f} us, "
            f"interval [{added['ci95_low'] / 1e3:+.2f}, {high / 1e3:+.2f}] us entirely below zero; the baseline "
            "does work the middleware does not, its number is suspect", -high))
    return out


def _c_slower_than_java(entries: dict[Point, dict[str, Any]]) -> list[RunWarning]:
    sockets = {p: e for p, e in entries.items() if e.get("kind") == SOCKET_KIND and e.get("p50_ci95_ns")}
    out = []
    for point, entry in sockets.items():
        if entry.get("language") not in ("c", "c++"):
            continue
        c_p50 = entry["p50_ci95_ns"]
        # Against every other language's socket baseline (Java, Python, ...): C's is the floor of them all.
        for other, java in sockets.items():
            if java.get("language") in ("c", "c++") or other.group != point.group:
                continue
            java_p50 = java["p50_ci95_ns"]["estimate"]
            if c_p50.get("low") is None or c_p50["low"] <= java_p50:
                continue
            out.append(RunWarning(
                "baseline suspect", point.label,
                f"C socket baseline slower than {other.target}: p50 {c_p50['estimate'] / 1e3:.2f} us, interval from "
                f"{c_p50['low'] / 1e3:.2f} us, vs {java_p50 / 1e3:.2f} us; the C baseline's number is suspect",
                c_p50["low"] / java_p50 - 1))
    return out
