"""The report's "Invocation shapes" section: per ORB, what each shape costs relative to the `in` call at the same
payload (summary.json's `shape_costs`: the shape's p50 over the in call's, paired by launch and trial, with its
interval over launches), as a figure per payload size and a table."""

from __future__ import annotations

import html
from collections import defaultdict
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from orbench.results.shapes import KINDS
from orbench.summary.model import RunSummary, ShapeCost
from orbench.summary.table import columns

from orbench_plots.style import Figure, colour, saved

SHAPES_PREFIX = "shapes-"


def _order(shape: str) -> tuple[int, int]:
    """Shapes in PROTOCOL.md's order, ami-N by N."""
    kind = "ami" if shape.startswith("ami-") else shape
    names = list(KINDS)
    return names.index(kind) if kind in names else len(names), int(shape[4:]) if kind == "ami" else 0


def _us(ns: float | None) -> str:
    return "" if ns is None else f"{ns / 1000:.2f}"


def _slices(costs: tuple[ShapeCost, ...]) -> dict[str, list[ShapeCost]]:
    """The costs by everything but shape, target and payload: one figure each (its panels: payload sizes)."""
    out: dict[str, list[ShapeCost]] = defaultdict(list)
    for c in costs:
        # The figure is each shape over the in call; a shape over another shape is in the table only.
        if c.reference is None and c.ratio is not None and c.ratio.estimate is not None:
            out[c.point.slug_of("host_pair", "placement", "options", "mode")].append(c)
    return out


def legend_handles(axes: Any) -> dict[str, Any]:
    """Every target drawn on any panel, by name: the last panel (often wstring's, of fewer targets) lacks some."""
    out: dict[str, Any] = {}
    for ax in axes:
        for handle, name in zip(*ax.get_legend_handles_labels()):
            out.setdefault(name, handle)
    return dict(sorted(out.items()))


def make_figures(summary: RunSummary, out_dir: Path) -> list[Figure]:
    figures = []
    for slug, costs in sorted(_slices(summary.shape_costs).items()):
        sizes = sorted({(c.point.payload_bytes, c.point.payload_type) for c in costs})
        fig, axes = plt.subplots(1, len(sizes), figsize=(5.2 * len(sizes), 4.4), squeeze=False, sharey=True)
        for ax, (size, ptype) in zip(axes[0], sizes):
            here = [c for c in costs if (c.point.payload_bytes, c.point.payload_type) == (size, ptype)]
            shapes = sorted({c.point.shape for c in here}, key=_order)
            targets = sorted({c.point.target for c in here})
            width = 0.8 / max(len(targets), 1)
            for k, target in enumerate(targets):
                by_shape = {c.point.shape: c.ratio for c in here if c.point.target == target}
                xs = [i + (k - (len(targets) - 1) / 2) * width for i, s in enumerate(shapes) if s in by_shape]
                ys = [by_shape[s].estimate for s in shapes if s in by_shape]
                low = [y - (by_shape[s].low if by_shape[s].low is not None else y) for s, y in
                       zip([s for s in shapes if s in by_shape], ys)]
                high = [(by_shape[s].high if by_shape[s].high is not None else y) - y for s, y in
                        zip([s for s in shapes if s in by_shape], ys)]
                ax.errorbar(xs, ys, yerr=np.maximum([low, high], 0), fmt="o", color=colour(target), label=target,
                            capsize=2, elinewidth=0.8, markersize=5)
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.set_yscale("log")
            ax.set_xticks(range(len(shapes)), shapes, rotation=45, ha="right")
            ax.set_title(f"{size} B" + ("" if ptype == "octets" else f" {ptype}"), fontsize=9)
            ax.grid(axis="y", which="both", alpha=0.3)
        axes[0][0].set_ylabel("p50 of the shape / p50 of the in call")
        handles = legend_handles(axes[0])
        axes[0][-1].legend(list(handles.values()), list(handles), fontsize=8)
        label = costs[0].point.label_of("host_pair", "placement", "options", "mode")
        figures.append(saved(fig, out_dir / f"{SHAPES_PREFIX}{slug}.png", f"Invocation shapes, {label}",
                             "Each shape's p50 over the same ORB's in call at the same payload (1: as costly; log "
                             "scale), with its 95% interval over launches (over one launch's trials where the run "
                             "had one). wstring is against the in call of strings."))
    return figures


def section(summary: RunSummary, figures: list[Figure], run_dir: Path) -> str:
    """The section's HTML around its figures; empty when the run measured no shape beside `in`."""
    costs = sorted(summary.shape_costs, key=lambda c: (columns(c.point)[:3], c.point.target, _order(c.point.shape)))
    if not costs:
        return ""
    parts = ["<h2>Invocation shapes</h2><p>What each invocation shape costs against the static stub's in call of "
             "the same ORB at the same payload (harness/PROTOCOL.md, \"Invocation shapes\"): the ratio of their p50s "
             "and their difference, paired by launch and trial, each with its 95% interval over launches. out and "
             "return carry the payload in the reply, inout both ways, exception raises a user exception on every "
             "call; dii and dsi are the dynamic interfaces on the client and the server; collocated calls a "
             "servant in the client's own process; ami-N keeps N asynchronous calls outstanding (its sample is "
             "send to reply handler, so at N above 1 it includes the queueing behind the other N - 1); pipelined "
             "calls a method on the result of another in one round trip (promise pipelining), chained makes the "
             "same two calls one after the other, and a row \"pipelined / chained\" says what pipelining saves.</p>"]
    for f in figures:
        rel = f.path.relative_to(run_dir)
        parts.append(f"<figure><img src='{html.escape(str(rel))}' alt='{html.escape(f.title)}'>"
                     f"<figcaption><b>{html.escape(f.title)}.</b> {html.escape(f.caption)}</figcaption></figure>")
    head = ("placement", "mode", "payload", "target", "shape", "in (or reference) p50 µs", "shape p50 µs",
            "shape / in [95% CI]", "shape − in µs [95% CI]", "launches")
    rows = []
    for c in costs:
        where, mode, payload, _ = columns(c.point)
        shape = c.point.shape if c.reference is None else f"{c.point.shape} / {c.reference}"
        if c.ratio is None or c.ratio.estimate is None:
            cells = [where, mode, payload, c.point.target, shape, "", "", c.why_missing or "", "", ""]
        else:
            r, a = c.ratio, c.added_ns
            ratio = f"{r.estimate:.2f}" + (f" [{r.low:.2f}, {r.high:.2f}]" if r.low is not None else "")
            added = ("" if a is None or a.estimate is None else _us(a.estimate)
                     + (f" [{_us(a.low)}, {_us(a.high)}]" if a.low is not None else ""))
            cells = [where, mode, payload, c.point.target, shape, _us(c.in_p50_ns), _us(c.shape_p50_ns),
                     ratio, added, str(r.launches or "")]
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in cells) + "</tr>")
    parts.append("<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>" + "\n".join(rows) + "</table>")
    return "\n".join(parts)
