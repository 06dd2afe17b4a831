"""The report's placement section: in a run of more than one CPU placement, each target's p50 and middleware-added
latency per placement, and the placement where it is fastest. Same-core favours single-threaded blocking code; a
middleware whose server hands calls between its own threads may be fastest split-core, so a comparison at one
placement only is unfair to it."""

from __future__ import annotations

import html
from collections import defaultdict

from orbench.summary.model import PointSummary

from orbench_plots.load_figures import at_base_load

# The sizes shown, where measured: the smallest call and Buesing's large size.
SHOWN_BYTES = (1, 32168)


def _us(ns: float | None) -> str:
    return "" if ns is None else f"{ns / 1e3:.1f}"


def _p50(p: PointSummary) -> float:
    """The p50 over every call of a measured point (section() keeps only those)."""
    return p.latency_ns.p50 if p.latency_ns else float("nan")


def fastest_placement(p50_by_placement: dict[str, dict[int, float]]) -> str | None:
    """The placement with the lower p50 at most payload sizes measured at every placement (ties: the lower sum)."""
    placements = sorted(p50_by_placement)
    common = set.intersection(*(set(v) for v in p50_by_placement.values())) if placements else set()
    if len(placements) < 2 or not common:
        return None
    wins = defaultdict(int)
    for size in common:
        wins[min(placements, key=lambda pl: p50_by_placement[pl][size])] += 1
    return max(placements, key=lambda pl: (wins[pl], -sum(p50_by_placement[pl][s] for s in common)))


def section(points: tuple[PointSummary, ...]) -> str:
    base = [p for p in at_base_load(list(points)) if p.latency_ns]
    placements = sorted({p.point.placement for p in base})
    if len(placements) < 2:
        return ""
    by: dict[tuple[str, str], dict[str, dict[int, PointSummary]]] = defaultdict(lambda: defaultdict(dict))
    for p in base:
        # A server threading setting other than the default is a row of its own.
        name = p.point.target + ("" if p.point.threading == "default" else f" {p.point.threading}")
        by[(name, p.point.mode)][p.point.placement][p.point.payload_bytes] = p
    head = ["target", "mode"] + [f"{pl} {size} B p50 / added µs" for size in SHOWN_BYTES for pl in placements]
    rows = ["<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head + ["fastest at"]) + "</tr>"]
    for (target, mode), per_pl in sorted(by.items()):
        cells = [target, mode]
        for size in SHOWN_BYTES:
            for pl in placements:
                p = per_pl.get(pl, {}).get(size)
                added = None if p is None else p.added
                cells.append("" if p is None else _us(_p50(p))
                             + ("" if added is None else f" / {added / 1e3:+.1f}"))
        fastest = fastest_placement({pl: {s: _p50(q) for s, q in sizes.items()}
                                     for pl, sizes in per_pl.items()})
        rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells + [fastest or "-"]) + "</tr>")
    return ("<h2>Placements</h2><p>Each target at every placement of the run: p50 and, for middleware, the latency "
            "it adds over its socket baseline at the same placement. \"Fastest at\": the placement with the lower p50 "
            "at most payload sizes. Same-core favours single-threaded blocking code; a middleware whose server "
            "hands calls between threads can be fastest split-core.</p><table>" + "\n".join(rows) + "</table>")
