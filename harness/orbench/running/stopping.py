"""The stopping rule: how many trials a point gets.

Without `target_ci_pct` a point runs exactly `trials` trials (reason "fixed"). With it, `trials` is the minimum:
after each round (one trial of every target, interleaved as always) the rule looks at every target's p50
interval at this point (stats.trial_ci95, bootstrap over trials) and stops when each is narrower than
`target_ci_pct` percent of its p50 ("ci"), or at `max_trials` ("max_trials"), or when the point has used
`time_cap_s` seconds ("time_cap", checked with or without a target). Targets with no successful trial at the
point (skipped, failing) do not hold the others back. The reason, the trials and the widths go into the
manifest's `stopping` list and from there into summary.json.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from orbench.results.point import PointGroup
from orbench.results.stats import trial_ci95
from orbench.results.trial import Trial


@dataclass
class StoppingRule:
    trials: int
    target_ci_pct: float | None = None
    max_trials: int | None = None
    time_cap_s: float | None = None

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> StoppingRule:
        return cls(trials=settings["trials"], target_ci_pct=settings.get("target_ci_pct"),
                   max_trials=settings.get("max_trials"), time_cap_s=settings.get("time_cap_s"))

    @property
    def most_trials(self) -> int:
        """The most trials one point can get (for progress and ETA)."""
        if self.target_ci_pct is None:
            return self.trials
        return max(self.max_trials or self.trials, self.trials)

    def start_point(self) -> PointTrials:
        return PointTrials(self)


@dataclass
class PointTrials:
    """The trials of one point group so far: per target, the p50 of each successful trial."""

    rule: StoppingRule
    started: float = field(default_factory=time.monotonic)
    rounds: int = 0
    p50s: dict[str, list[float]] = field(default_factory=dict)

    def add(self, target: str, trial: Trial) -> None:
        if trial.ok and trial.p50_ns is not None:
            self.p50s.setdefault(target, []).append(trial.p50_ns)

    def widths_pct(self) -> dict[str, float | None]:
        out = {}
        for target, values in self.p50s.items():
            ci = trial_ci95(values)
            out[target] = None if ci is None else ci["width_pct"]
        return out

    def stop_reason(self) -> str | None:
        """Called after each round; None means run another round."""
        rule = self.rule
        if rule.time_cap_s is not None and time.monotonic() - self.started >= rule.time_cap_s:
            return "time_cap"
        if self.rounds < rule.trials:
            return None
        if rule.target_ci_pct is None:
            return "fixed"
        widths = self.widths_pct()
        if all(w is not None and w <= rule.target_ci_pct for w in widths.values()):
            return "ci"
        if self.rounds >= rule.most_trials:
            return "max_trials"
        return None

    def record(self, group: PointGroup, reason: str) -> dict[str, Any]:
        """The manifest's record of how the group's trials ended: the group's dimensions, then the rule's."""
        widths = self.widths_pct()
        return {**group.as_record(), "reason": reason, "trials": self.rounds, "target_ci_pct": self.rule.target_ci_pct,
                "p50_ci_width_pct": {t: (None if w is None else round(w, 3)) for t, w in widths.items()},
                "elapsed_s": round(time.monotonic() - self.started, 3)}
