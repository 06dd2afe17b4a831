"""The stopping rule: how many trials a point gets.

Without a target a point runs exactly `trials` trials (reason "fixed"). With one, `trials` is the minimum: after
each round (one trial of every target) the rule looks at what a reader of the point will use and stops when it is
precise enough ("ci"), at `max_trials` ("max_trials"), or once the point has used `time_cap_s` seconds after its
first round ("time_cap", checked with or without a target, but never before `trials` rounds: the minimum is what
the intervals need; the first round, with the full warm-ups, is not counted). With several process launches the
rule runs per point group and launch:
- `target_added_ci_ns` / `target_added_ci_pct`: every ORB's ORB-added latency (paired per-trial differences
  from its baseline, stats/intervals.py) has a 95% interval whose half-width is at most this many ns, or at most
  this percent of the estimate (either one suffices when both are set);
- `target_ci_pct`: every target's p50 interval (Student t over trials) is narrower than this percent of its p50.
Targets with no successful trial at the point (skipped, failing) do not hold the others back. The reason, the
trials and the widths go into the manifest's `stopping` list and from there into summary.json.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from orbench.campaign.settings import Settings
from orbench.results.point import PointGroup
from orbench.results.trial import Trial
from orbench.stats.intervals import paired_difference
from orbench.stats.phases import blocks_agree, one_cpu_calls, reads_blocks, slice_values, speed_scaled, usual_blocks
from orbench.stats.stats import trial_ci95

# A group whose time is up still runs this many rounds: each launch keeps its trial-to-trial spread.
MIN_ROUNDS_OVER_TIME = 2
# A trial's p50 is read to about a nanosecond: an interval narrower than that says its values tie (two trials
# whose paired differences came out equal read a half-width of 0), not that the point is known any better.
RESOLUTION_NS = 1.0


@dataclass
class StoppingRule:
    trials: int
    target_ci_pct: float | None = None
    max_trials: int | None = None
    time_cap_s: float | None = None
    target_added_ci_ns: float | None = None
    target_added_ci_pct: float | None = None
    # ORB target -> its baseline, for the ORB-added targets
    baselines: dict[str, str] = field(default_factory=dict)
    # The run directory its trials' samples files are under: a round trip's slices are then read block by block at
    # the host's usual speed, as the summary pairs them (stats/phases.usual_blocks).
    samples_dir: Path | None = None
    # Targets whose added latency is a clock's time, not work (Target.added_scales_with_host): their slice pairs
    # are not scaled to the host's usual speed (stats/phases.speed_scaled).
    unscaled: frozenset[str] = frozenset()

    @classmethod
    def from_settings(cls, settings: Settings, baselines: dict[str, str] | None = None,
                      samples_dir: Path | None = None, unscaled: frozenset[str] = frozenset()) -> StoppingRule:
        return cls(trials=settings.trials, target_ci_pct=settings.target_ci_pct, max_trials=settings.max_trials,
                   time_cap_s=settings.time_cap_s, target_added_ci_ns=settings.target_added_ci_ns,
                   target_added_ci_pct=settings.target_added_ci_pct, baselines=dict(baselines or {}),
                   samples_dir=samples_dir, unscaled=unscaled)

    @property
    def has_target(self) -> bool:
        return any(t is not None for t in (self.target_ci_pct, self.target_added_ci_ns, self.target_added_ci_pct))

    @property
    def most_trials(self) -> int:
        """The most trials one point can get (for progress and ETA)."""
        if not self.has_target:
            return self.trials
        return max(self.max_trials or self.trials, self.trials)

    def start_point(self, launch: int = 0, spent_s: float = 0.0, rounds: int | None = None,
                    fixed_reason: str = "sweep step", over_time: Callable[[], bool] | None = None) -> PointTrials:
        """A group's trials in one launch; `spent_s`: seconds its finished rounds took before a resume, which
        count against the time cap; `rounds`: exactly that many rounds, whatever the rule says (a sweep step,
        planned repetitions: `fixed_reason` says which), or fewer, but at least MIN_ROUNDS_OVER_TIME, once
        `over_time()` says the time is up (a budget)."""
        trials = PointTrials(self, launch=launch, fixed_rounds=rounds, fixed_reason=fixed_reason, over_time=over_time)
        trials.spent_before_s = spent_s
        return trials


@dataclass
class PointTrials:
    """The trials of one point group so far: per target, the p50 of each successful trial, by trial number."""

    rule: StoppingRule
    launch: int = 0
    spent_before_s: float = 0.0
    started: float = field(default_factory=time.monotonic)
    # The group's own seconds (its rounds', whatever ran between them: interleaved groups) after its first round:
    # the time cap counts these, since the first round carries the full warm-ups (and, at a campaign's first
    # point, the JIT's first compilations), which no cap should cut short.
    own_s: float = 0.0
    first_round_done: bool = False
    rounds: int = 0
    p50s: dict[str, dict[int, float]] = field(default_factory=dict)
    # (trial, slice) -> its value as the summary pairs it (stats/phases.slice_values)
    by_slice: dict[str, dict[tuple[int, int], float]] = field(default_factory=dict)
    slice_calls: dict[str, dict[tuple, np.ndarray]] = field(default_factory=dict)  # a round trip's, by slice
    reads_speed: bool = False   # its slices read the host's speed (stats/phases.reads_blocks): scaled to it
    fixed_rounds: int | None = None
    fixed_reason: str = "sweep step"
    over_time: Callable[[], bool] | None = None

    def add(self, target: str, trial: Trial) -> None:
        if trial.ok and trial.p50_ns is not None:
            self.p50s.setdefault(target, {})[trial.trial] = trial.p50_ns
            self.reads_speed = reads_blocks(trial.point)
            calls = one_cpu_calls([trial], self.rule.samples_dir)
            for (_, t, k), value in slice_values([trial], calls).items():
                self.by_slice.setdefault(target, {})[(t, k)] = value
            if calls:
                self.slice_calls.setdefault(target, {}).update(calls)

    def add_time(self, seconds: float) -> None:
        """A round's seconds (called before stop_reason; the first round's are not counted)."""
        if self.first_round_done:
            self.own_s += seconds

    def widths_pct(self) -> dict[str, float | None]:
        out = {}
        for target, values in self.p50s.items():
            ci = trial_ci95(list(values.values()))
            if ci is None or ci["width_pct"] is None:
                out[target] = None
            else:
                out[target] = max(ci["width_pct"], 200.0 * RESOLUTION_NS / ci["estimate"])
        return out

    def added_half_widths(self) -> dict[str, tuple[float, float | None] | None]:
        """Per ORB with a baseline at this point: (estimate, 95% half-width) of its ORB-added latency so far."""
        out: dict[str, tuple[float, float | None] | None] = {}
        for orb, base in self.rule.baselines.items():
            if orb in self.p50s and base in self.p50s:
                # Slice pairs where the trials were sliced (running/slices.py), as the summary pairs them.
                sliced = orb in self.by_slice and base in self.by_slice
                interval = (paired_difference(*self._slice_values(orb, base)) if sliced
                            else paired_difference(self.p50s[orb], self.p50s[base]))
                half = None if interval is None or interval.half_width is None else max(interval.half_width,
                                                                                       RESOLUTION_NS)
                out[orb] = None if interval is None else (interval.estimate, half)
        return out

    def _slice_values(self, orb: str, base: str) -> tuple[dict, dict]:
        """The two sides' slices as the summary pairs them: block by block at the usual speed where both sides'
        blocks agree (summary/pairing.by_blocks), else their slice values; where they read the host's speed, the
        middleware's values scaled to its usual speed (stats/phases.speed_scaled)."""
        o, b = (usual_blocks(self.slice_calls.get(name, {})) for name in (orb, base))
        if blocks_agree(o, b):
            assert o is not None and b is not None
            orb_values, base_values = o.values, b.values
        else:
            orb_values, base_values = self.by_slice[orb], self.by_slice[base]
        scale = speed_scaled(orb_values, base_values) if self.reads_speed and orb not in self.rule.unscaled else None
        return (orb_values if scale is None else scale.values), base_values

    def _added_precise(self) -> bool:
        ns, pct = self.rule.target_added_ci_ns, self.rule.target_added_ci_pct
        if ns is None and pct is None:
            return True
        for found in self.added_half_widths().values():
            if found is None or found[1] is None:
                return False
            estimate, half = found
            if not ((ns is not None and half <= ns) or (pct is not None and half <= pct / 100 * abs(estimate))):
                return False
        return True

    def stop_reason(self) -> str | None:
        """Called after each round; None means run another round."""
        rule = self.rule
        if not self.first_round_done:
            self.first_round_done, self.own_s = True, self.spent_before_s
        if self.fixed_rounds is not None:
            if self.rounds >= self.fixed_rounds:
                return self.fixed_reason
            if self.over_time is not None and self.rounds >= MIN_ROUNDS_OVER_TIME and self.over_time():
                return "budget"
            return None
        if self.rounds < rule.trials:
            return None
        if rule.time_cap_s is not None and self.own_s >= rule.time_cap_s:
            return "time_cap"
        if not rule.has_target:
            return "fixed"
        p50_precise = rule.target_ci_pct is None or all(
            w is not None and w <= rule.target_ci_pct for w in self.widths_pct().values())
        if p50_precise and self._added_precise():
            return "ci"
        if self.rounds >= rule.most_trials:
            return "max_trials"
        return None

    def record(self, group: PointGroup, reason: str) -> dict[str, Any]:
        """The manifest's record of how the group's trials ended: the group's dimensions, then the rule's."""
        widths = self.widths_pct()
        added = self.added_half_widths()
        return {**group.as_record(), "launch": self.launch, "reason": reason, "trials": self.rounds, "target_ci_pct": self.rule.target_ci_pct,
                "target_added_ci_ns": self.rule.target_added_ci_ns,
                "target_added_ci_pct": self.rule.target_added_ci_pct,
                "p50_ci_width_pct": {t: (None if w is None else round(w, 3)) for t, w in widths.items()},
                "orb_added_ci_half_width_ns": {t: (None if a is None or a[1] is None else round(a[1], 1))
                                               for t, a in added.items()},
                "elapsed_s": round(time.monotonic() - self.started, 3)}
