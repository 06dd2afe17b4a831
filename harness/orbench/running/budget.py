"""The runner's side of planned repetitions and of a time budget (planning.py makes the plans): which plan holds,
when the next is made, how many launches run, each point group's trials and calls, and the budget's clock.

Before the first launch the plan comes from the campaign's previous run (plan_from = "previous"), when there is
one; otherwise the first launch is a pilot (the campaign's `trials`, at most PILOT_TRIALS, of `calls` calls).
After each launch the plan is made again from the launches so far (once there are two; before, from the previous
run when there is one), for the launches still to run and, with a budget, the time left of it: the budget less
the time spent, what the summary and the report will take, and a safety margin. A group that runs past the
budget's end stops after MIN_TRIALS rounds, and no launch starts once the time left would not pay for one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from orbench.campaign.spec import Campaign
from orbench.results.accounting import TimeAccount
from orbench.results.point import PointGroup
from orbench.results.repetitions import GroupPlan, RepetitionPlan
from orbench.results.store import RunStore
from orbench.results.trial import Trial
from orbench.running.planning import (
    MIN_TRIALS,
    Evidence,
    after_run_s,
    format_plan,
    groups_planned,
    make_plan,
    previous_evidence,
)

PILOT_TRIALS = 3
# The share of a budget kept back for what no plan foresees (a slow launch, the last group past its time).
BUDGET_MARGIN = 0.04


class PlannedRepetitions:
    def __init__(self, campaign: Campaign, store: RunStore, groups: list[PointGroup], note: Callable[[str], None],
                 started: float, spent_before_s: float = 0.0, plans: list[RepetitionPlan] | None = None):
        self.campaign = campaign
        self.store = store
        self.groups = groups
        self.note = note
        self.started = started                  # time.monotonic() when the run began
        self.spent_before_s = spent_before_s    # a resumed run's earlier wall time
        self.budget_s = campaign.settings.budget_s
        self.plans: list[RepetitionPlan] = list(plans or [])
        self.previous: Evidence | None = None
        self.stopped: str | None = None         # why no further launch runs (the budget)
        self.so_far: list[Trial] = []           # this run's trials as they end (the launches so far)

    @property
    def plan(self) -> RepetitionPlan | None:
        return self.plans[-1] if self.plans else None

    @property
    def by_group(self) -> dict[PointGroup, GroupPlan]:
        return groups_planned(self.plan)

    def elapsed_s(self) -> float:
        return self.spent_before_s + time.monotonic() - self.started

    def budget_left_s(self) -> float | None:
        if self.budget_s is None:
            return None
        reserve = after_run_s(self.previous, len(self.groups) * len(self.campaign.targets))
        return self.budget_s * (1 - BUDGET_MARGIN) - self.elapsed_s() - reserve

    def deadline_passed(self) -> bool:
        left = self.budget_left_s()
        return left is not None and left <= 0

    # -- the plans --------------------------------------------------------------------------------------------
    def before_run(self) -> None:
        """The first plan, from the previous run; none (a pilot launch) without one."""
        if self.plans:  # a resumed run keeps its plans
            return
        if self.campaign.settings.plan_from == "previous":
            self.previous = previous_evidence(self.campaign, self.store.path)
        if self.previous is None:
            self.note(f"planned repetitions: no earlier run of {self.campaign.name} to plan from; launch 1 is a "
                      f"pilot of {self.pilot_trials()} trials x {self.campaign.settings.calls} calls per point group")
            return
        self._make(self.previous, 0, None)

    def after_launch(self, launch: int, account: TimeAccount) -> None:
        """The plan for the launches still to run, from the launches so far (two or more), else the previous
        run. `account`: the run's time so far."""
        done = launch + 1
        own = Evidence(f"launches so far ({done})", tuple(t for t in self.so_far if t.launch < done),
                       self.store.path, account, "running")
        self._make(own if done >= 2 or self.previous is None else self.previous, done, launch)

    def add_trial(self, trial: Trial) -> None:
        """A trial of this run (as it ends, or kept from before a resume): evidence for the next plan."""
        self.so_far.append(trial)

    def _make(self, evidence: Evidence, done: int, after_launch: int | None) -> None:
        plan = make_plan(self.campaign, evidence, self.groups, done, after_launch, self.budget_left_s())
        self.plans.append(plan)
        if not plan.groups:
            self.stopped = plan.why
            self.note(f"planned repetitions: {plan.why}: the run ends after {done} launch(es)")
            return
        self.note(format_plan(plan))

    # -- what the runner asks ---------------------------------------------------------------------------------
    def pilot_trials(self) -> int:
        return max(MIN_TRIALS, min(self.campaign.settings.trials, PILOT_TRIALS))

    def launches(self, done: int) -> int:
        """How many launches the run makes in all, as the latest plan says (at least two while piloting)."""
        if self.stopped is not None:
            return done
        return self.plan.launches if self.plan is not None else max(2, done + 1)

    def trials(self, group: PointGroup) -> int:
        planned = self.by_group.get(group)
        return planned.trials if planned is not None else self.pilot_trials()

    def calls(self, group: PointGroup) -> int | None:
        planned = self.by_group.get(group)
        return None if planned is None else planned.calls

    def launch_fits(self) -> bool:
        """Whether the time left of the budget pays for another launch (the latest plan's per-launch time, or the
        launches so far)."""
        left = self.budget_left_s()
        if left is None or self.plan is None:
            return True
        planned_from = 0 if self.plan.after_launch is None else self.plan.after_launch + 1
        per_launch = self.plan.predicted_s / max(1, self.plan.launches - planned_from)
        if left < 0.5 * per_launch:
            self.stopped = (f"the {max(0.0, left):.0f} s left of the budget would not pay for another launch "
                            f"(about {per_launch:.0f} s)")
            self.note(f"planned repetitions: {self.stopped}")
            return False
        return True

    def to_json(self) -> dict[str, Any]:
        return {"budget_s": self.budget_s, "plan_from": self.campaign.settings.plan_from,
                "plans": [p.to_json() for p in self.plans], **({"stopped": self.stopped} if self.stopped else {})}

