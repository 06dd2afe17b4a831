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


def fmt_throughput(mb_per_s: float | None) -> str:
    """A payload throughput (MB = 10^6 bytes) in a unit that shows it: 12.3 MB/s, 45.6 kB/s, 312 B/s (a oneway of
    1 B at a few thousand calls a second is kilobytes a second, which 0.0 MB/s would hide)."""
    if mb_per_s is None:
        return "-"
    per_s = mb_per_s * 1e6
    if per_s >= 1e5:
        return f"{mb_per_s:.1f} MB/s"
    if per_s >= 1e3:
        return f"{per_s / 1e3:.1f} kB/s"
    return f"{per_s:.0f} B/s"


def fmt_duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
