"""How numbers read in tables and progress lines."""

from __future__ import annotations


def fmt_ns(ns: float | None) -> str:
    """A latency for people: 850 ns, 21.3 us, 4.20 ms."""
    if ns is None:
        return "-"
    if abs(ns) < 1_000:
        return f"{ns:.0f} ns"
    if abs(ns) < 1_000_000:
        return f"{ns / 1e3:.1f} us"
    return f"{ns / 1e6:.2f} ms"


def fmt_duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
