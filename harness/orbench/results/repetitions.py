"""Planned repetitions as the manifest's `repetitions` keeps them (running/planning.py makes them): every plan
made in a run (before it, after its pilot, after each launch), each with what it chose per point group (trials
per launch, calls per trial), the precision it expected per row and why.

A row is what a reader takes from a point group: an ORB's ORB-added latency, or a target's p50.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from orbench.results.point import PointGroup
from orbench.results.units import fmt_ns


def _finite(x: float, digits: int) -> float | None:
    """JSON has no infinity: a half-width with no interval (one launch) is written as null."""
    return None if math.isinf(x) or math.isnan(x) else round(x, digits)


def _number(x: Any) -> float:
    return math.inf if x is None else float(x)


def half_width_text(ns: float) -> str:
    """An expected half-width as printed: one launch gives no interval over launches."""
    return "no interval (one launch)" if math.isinf(ns) else f"±{fmt_ns(ns)}"


@dataclass(frozen=True)
class RowPlan:
    """One row: the half-width it is aimed at and the one expected, the variances they rest on (ns^2)."""

    target_ns: float
    expected_ns: float
    variances: dict[str, Any]
    kalibera_jones_trials: int | None = None   # their closed form, for comparison

    def to_json(self) -> dict[str, Any]:
        return {"target_half_width_ns": round(self.target_ns, 1), "expected_half_width_ns": _finite(self.expected_ns, 1),
                "variances": self.variances, "kalibera_jones_trials": self.kalibera_jones_trials}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RowPlan:
        return cls(float(data["target_half_width_ns"]), _number(data["expected_half_width_ns"]),
                   dict(data.get("variances") or {}), data.get("kalibera_jones_trials"))


@dataclass(frozen=True)
class GroupPlan:
    group: PointGroup
    trials: int
    calls: int
    seconds_per_launch: float
    ratio: float                          # the worst expected half-width over its target, across the rows
    rows: dict[str, RowPlan] = field(default_factory=dict)
    cost: dict[str, float] = field(default_factory=dict)   # per_launch_s, per_round_s, per_call_s

    def to_json(self) -> dict[str, Any]:
        return {"group": self.group.as_record(), "label": self.group.label, "trials": self.trials,
                "calls": self.calls, "seconds_per_launch": round(self.seconds_per_launch, 3),
                "ratio": _finite(self.ratio, 4), "cost": {k: round(v, 6) for k, v in self.cost.items()},
                "rows": {k: r.to_json() for k, r in self.rows.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GroupPlan:
        return cls(PointGroup.from_record(data["group"]), int(data["trials"]), int(data["calls"]),
                   float(data["seconds_per_launch"]), _number(data["ratio"]),
                   {k: RowPlan.from_json(r) for k, r in (data.get("rows") or {}).items()},
                   {k: float(v) for k, v in (data.get("cost") or {}).items()})


@dataclass(frozen=True)
class RepetitionPlan:
    """One plan: made when (after which launch; None before the first), from what, for which aim."""

    after_launch: int | None
    source: str                 # "previous run ...", "pilot launch", "launches so far"
    aim: str                    # "target" (least time to the target) or "budget" (most precision in the time)
    launches: int               # launches in all, the finished ones included
    predicted_s: float          # the planned launches' seconds (those still to run)
    worst_ratio: float
    met: bool
    launch_fixed_s: float
    why: str
    groups: tuple[GroupPlan, ...] = ()
    budget_left_s: float | None = None

    def for_group(self, group: PointGroup) -> GroupPlan | None:
        return next((g for g in self.groups if g.group == group), None)

    def to_json(self) -> dict[str, Any]:
        return {"after_launch": self.after_launch, "source": self.source, "aim": self.aim, "launches": self.launches,
                "predicted_s": round(self.predicted_s, 2), "worst_ratio": _finite(self.worst_ratio, 4),
                "met": self.met, "launch_fixed_s": round(self.launch_fixed_s, 3), "why": self.why,
                **({"budget_left_s": round(self.budget_left_s, 2)} if self.budget_left_s is not None else {}),
                "groups": [g.to_json() for g in self.groups]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RepetitionPlan:
        return cls(data.get("after_launch"), str(data["source"]), str(data["aim"]), int(data["launches"]),
                   float(data["predicted_s"]), _number(data["worst_ratio"]), bool(data["met"]),
                   float(data["launch_fixed_s"]), str(data.get("why", "")),
                   tuple(GroupPlan.from_json(g) for g in data.get("groups") or ()), data.get("budget_left_s"))


def repetition_plans(manifest: Mapping[str, Any]) -> list[RepetitionPlan]:
    """Every plan a run made, in order (none for a run of fixed repetitions)."""
    return [RepetitionPlan.from_json(p) for p in (manifest.get("repetitions") or {}).get("plans") or ()]
