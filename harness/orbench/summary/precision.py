"""What a planned run expected and what it reached: per point group and row (an ORB's ORB-added latency, a
target's p50), the half-width its last plan expected, the one the summary found, and the aim."""

from __future__ import annotations

from dataclasses import dataclass

from orbench.results.repetitions import RepetitionPlan, half_width_text
from orbench.results.units import fmt_ns
from orbench.summary.model import PointSummary, RunSummary


@dataclass(frozen=True)
class Reached:
    label: str          # the point group
    row: str            # "ORB-added omniorb", "p50 c-socket"
    expected_ns: float
    reached_ns: float | None
    target_ns: float

    @property
    def met(self) -> bool | None:
        if self.reached_ns is None or not self.target_ns:
            return None
        return self.reached_ns <= self.target_ns


def reached_half_width(point: PointSummary, row: str) -> float | None:
    if row.startswith("ORB-added"):
        a = point.orb_added_latency_ns
        if a is None or a.ci95_low is None or a.ci95_high is None:
            return None
        return (a.ci95_high - a.ci95_low) / 2
    ci = point.p50_ci95_ns
    return None if ci is None else ci.half_width


def _reached_text(ns: float | None) -> str:
    return "-" if ns is None else f"±{fmt_ns(ns)}"


def reached(plan: RepetitionPlan, summary: RunSummary) -> list[Reached]:
    points = {p.point: p for p in summary.points}
    out = []
    for g in plan.groups:
        for row, r in g.rows.items():
            target = row.split(" ", 1)[1] if row.startswith("p50 ") else row.removeprefix("ORB-added ")
            point = points.get(g.group.with_target(target))
            out.append(Reached(g.group.label, row, r.expected_ns,
                               None if point is None else reached_half_width(point, row), r.target_ns))
    return out


def format_reached(plan: RepetitionPlan, summary: RunSummary) -> str:
    """The end of a planned run: per row, the half-width expected, reached, and aimed at."""
    rows = reached(plan, summary)
    if not rows:
        return ""
    met = [r.met for r in rows if r.met is not None]
    lines = [f"precision (95% half-width) expected by the last plan and reached: {sum(met)} of {len(met)} rows at "
             "or under their aim" if met else "precision (95% half-width) expected by the last plan and reached:"]
    for r in rows:
        aim = f" (aim ±{fmt_ns(r.target_ns)})" if r.target_ns else ""
        lines.append(f"  {r.label}: {r.row}: expected {half_width_text(r.expected_ns)}, "
                     f"reached {_reached_text(r.reached_ns)}{aim}")
    return "\n".join(lines)


def format_reached_unplanned(summary: RunSummary) -> str:
    """The end of a budget run that made no plan (its pilot launch used the budget): the ORB-added half-widths
    reached, with nothing expected to compare them with."""
    rows = [(p.point.group.label, p.point.target, reached_half_width(p, "ORB-added"))
            for p in summary.points if p.orb_added_latency_ns is not None]
    if not rows:
        return ""
    lines = ["precision (95% half-width) reached; no plan was made (the pilot launch used the budget, so nothing "
             "was expected):"]
    lines += [f"  {label}: ORB-added {target}: reached {_reached_text(hw)}" for label, target, hw in rows]
    return "\n".join(lines)
