"""`orbench compare RUN_A RUN_B`: the points both runs measured, side by side, with the changes that are larger
than their intervals flagged.

A change is flagged when the two runs' 95% intervals of the same quantity do not overlap: the p50 (the wider
of the bootstrap and the Student-t interval over each run's trials) and the ORB-added latency (paired trials within each run). Disjoint 95% intervals are a
conservative test (a difference can be real with overlapping intervals), so a flag means "this moved", and no
flag means "not shown to have moved", never "the same". Both summaries are recomputed from the raw samples, so
runs made by an older orbench compare on today's statistics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from orbench.results.point import Point
from orbench.results.stats import intervals_overlap
from orbench.results.store import RunStore
from orbench.results.summary import summarize
from orbench.results.table import columns
from orbench.results.units import fmt_ns


@dataclass
class Interval:
    estimate: float | None
    low: float | None
    high: float | None

    def text(self) -> str:
        if self.estimate is None:
            return "-"
        if self.low is None:
            return fmt_ns(self.estimate)
        return f"{fmt_ns(self.estimate)} [{fmt_ns(self.low)}, {fmt_ns(self.high)}]"


def _p50(p: dict) -> Interval:
    ci = p.get("p50_ci95_ns") or {}
    if ci and ci.get("low") is not None:
        # The wider of the bootstrap and Student-t intervals: with 3-5 trials the percentile bootstrap is too
        # narrow, and a flag should mean a change, not a lucky draw of trials.
        lows = [v for v in (ci.get("low"), ci.get("t_low")) if v is not None]
        highs = [v for v in (ci.get("high"), ci.get("t_high")) if v is not None]
        return Interval(ci.get("estimate"), min(lows), max(highs))
    if ci:
        return Interval(ci.get("estimate"), None, None)
    return Interval((p.get("latency_ns") or {}).get("p50"), None, None)


def _added(p: dict) -> Interval:
    a = p.get("orb_added_latency_ns") or {}
    return Interval(a.get("estimate"), a.get("ci95_low"), a.get("ci95_high"))


def _change(a: Interval, b: Interval) -> dict[str, Any]:
    if a.estimate is None or b.estimate is None:
        return {"a": a.__dict__, "b": b.__dict__, "change_pct": None, "flag": None}
    pct = (b.estimate - a.estimate) / abs(a.estimate) * 100 if a.estimate else None
    moved = not intervals_overlap(a.low, a.high, b.low, b.high)
    flag = None if not moved else ("slower" if b.estimate > a.estimate else "faster")
    return {"a": a.__dict__, "b": b.__dict__, "change_pct": pct, "flag": flag}


def compare_summaries(a: dict, b: dict) -> dict[str, Any]:
    pa = {Point.from_record(p): p for p in a["points"] if p.get("latency_ns")}
    pb = {Point.from_record(p): p for p in b["points"] if p.get("latency_ns")}
    rows = []
    for key in [k for k in pa if k in pb]:
        row: dict[str, Any] = {**key.as_record(), "p50": _change(_p50(pa[key]), _p50(pb[key]))}
        if _added(pa[key]).estimate is not None or _added(pb[key]).estimate is not None:
            row["orb_added"] = _change(_added(pa[key]), _added(pb[key]))
        rows.append(row)
    return {"run_a": a.get("run_id"), "run_b": b.get("run_id"), "points": rows,
            "only_in_a": [k.label for k in pa if k not in pb],
            "only_in_b": [k.label for k in pb if k not in pa],
            "flagged": sum(1 for r in rows for q in ("p50", "orb_added") if (r.get(q) or {}).get("flag"))}


def compare_runs(a: RunStore, b: RunStore) -> dict[str, Any]:
    """Both runs summarised afresh from their raw samples (older runs are upgraded as they are read)."""
    return compare_summaries(summarize(a), summarize(b))


def _cell(change: dict | None) -> tuple[str, str, str, str]:
    if not change:
        return ("", "", "", "")
    a, b = Interval(**change["a"]), Interval(**change["b"])
    pct = "" if change["change_pct"] is None else f"{change['change_pct']:+.1f}%"
    flag = {"slower": "SLOWER", "faster": "FASTER"}.get(change["flag"] or "", "")
    return (a.text(), b.text(), pct, flag)


def format_comparison(result: dict[str, Any]) -> str:
    header = ("placement", "mode", "payload", "target", "p50 A [95% CI]", "p50 B [95% CI]", "change", "",
              "ORB-added A", "ORB-added B", "change", "")
    rows: list[tuple[str, ...]] = [header]
    for r in result["points"]:
        rows.append((*columns(Point.from_record(r)), *_cell(r["p50"]), *_cell(r.get("orb_added"))))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [f"A = {result['run_a']}", f"B = {result['run_b']}",
             "flag: the two runs' 95% intervals do not overlap (p50: the wider of bootstrap and Student t over trials; "
             "ORB-added: Student t over paired trials)", ""]
    for n, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    for side in ("a", "b"):
        if result[f"only_in_{side}"]:
            lines.append(f"only in {side.upper()}: " + ", ".join(result[f"only_in_{side}"]))
    lines.append(f"{len(result['points'])} common point(s), {result['flagged']} change(s) flagged")
    return "\n".join(lines)
