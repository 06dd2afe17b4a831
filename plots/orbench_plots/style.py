"""What every figure shares: one colour per target, the axes' number formats, how a figure is saved and listed,
and how summary points are grouped into figures (by their point.Point, some dimensions left open)."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display: runs the same on a headless CI machine

import matplotlib.pyplot as plt  # noqa: E402 - after choosing the backend
from matplotlib.ticker import FuncFormatter  # noqa: E402
from orbench.results.point import PointSlice  # noqa: E402
from orbench.summary.model import OrbAdded, PointSummary  # noqa: E402

from orbench_plots.drawing import draw  # noqa: E402

# One colour per target across every figure, so a reader follows a target from plot to plot.
COLOURS = {"omniorb": "#1f77b4", "tao": "#17becf", "jacorb": "#d62728", "glassfish": "#ff7f0e",
           "c-socket": "#2ca02c", "java-socket": "#9467bd", "java-nio": "#8c564b", "java-jni": "#e377c2",
           "java-ffm": "#7f7f7f", "grpc-cpp": "#bcbd22", "grpc-java": "#aec7e8", "ice-cpp": "#393b79",
           "ice-java": "#ad494a", "thrift-cpp": "#8c6d31", "capnp-cpp": "#e7298a"}
FALLBACK = ["#ffbb78", "#98df8a", "#ff9896", "#c49c94", "#dbdb8d"]


@dataclass
class Figure:
    path: Path
    title: str
    caption: str


def colour(target: str, _seen: dict[str, str] = {}) -> str:  # noqa: B006 - deliberate memo
    if target in COLOURS:
        return COLOURS[target]
    return _seen.setdefault(target, FALLBACK[len(_seen) % len(FALLBACK)])


def _bytes_label(x: float, _pos: int = 0) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if x >= size and x % size == 0:
            return f"{x / size:g} {unit}"
    return f"{x:g} B"


def _two_five(y: float, _pos: int = 0) -> str:
    """Minor-tick label only at 2x and 5x a power of ten, so a wide log axis stays readable."""
    if y <= 0:
        return ""
    mantissa = round(y / 10 ** math.floor(math.log10(y)), 6)
    return _plain(y) if mantissa in (2.0, 5.0) else ""


def _plain(y: float) -> str:
    """12, 0.5, 2000: never 1e+03 on an axis people read."""
    return f"{y:.0f}" if y >= 100 else f"{y:.3g}"


def _us_axis(ax) -> None:
    # Plain numbers on a log axis (12, 20, 50), not 1.2x10^1: minor ticks carry labels on narrow ranges.
    # Called after the data is drawn: over more than a decade, minor labels would overlap, so only majors.
    plain = FuncFormatter(lambda y, _p: _plain(y))
    ax.yaxis.set_major_formatter(plain)
    lo, hi = ax.get_ylim()
    ax.yaxis.set_minor_formatter(plain if lo > 0 and hi / lo <= 10 else FuncFormatter(_two_five))


def save(fig, path: Path, dpi: int = 110) -> None:
    """Every figure is written the same way: laid out, saved (in a child process inside
    drawing.drawing_in_parallel), and closed so a long report does not hold them all."""

    def work() -> None:
        fig.tight_layout()
        fig.savefig(path, dpi=dpi)

    draw(work, Path(path))
    plt.close(fig)


def saved(fig, path: Path, title: str, caption: str, dpi: int = 110) -> Figure:
    """Save fig (see save) and return it as the report lists it."""
    save(fig, path, dpi)
    return Figure(path, title, caption)


def added_bars(added: list[OrbAdded], scale: float = 1e3) -> tuple[list[float], list[list[float]]]:
    """ORB-added estimates in units of `scale` (ns by default to us) and their error bars below and above (none
    where an estimate has no interval)."""
    y = [a.estimate / scale for a in added]
    low = [(a.estimate if a.ci95_low is None else a.ci95_low) / scale for a in added]
    high = [(a.estimate if a.ci95_high is None else a.ci95_high) / scale for a in added]
    return y, [[v - lo for v, lo in zip(y, low)], [hi - v for v, hi in zip(y, high)]]


def grouped(points: list[PointSummary], *open_dims: str) -> dict[PointSlice, list[PointSummary]]:
    """Summary points by what they share once `open_dims` are left open: one figure (or one panel row) each,
    e.g. grouped(points, "payload_bytes", "target") is one latency-vs-payload figure per everything else
    (host pair, placement, option set, mode, payload type, load), so no two links or option sets share one."""
    out: dict[PointSlice, list[PointSummary]] = defaultdict(list)
    for p in points:
        out[p.point.without(*open_dims)].append(p)
    return out
