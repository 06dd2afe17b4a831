"""Progress of a long run on stderr: one line per trial (rewritten in place on a terminal), with an ETA.

What it counts is what the run knows in advance: point-group runs (every point group once per launch). The
stopping rule decides each group's trials as it goes, so trials are shown as they happen, never as a total that
will not be reached; the ETA is the time per finished group run so far times the group runs left (interleaved
groups, campaign key interleave_groups, all start at a launch's first pass and end over its last ones: their ETA
comes once a launch's groups have ended).
"""

from __future__ import annotations

import time
from typing import TextIO

from orbench.results.trial import Trial
from orbench.results.units import fmt_duration, fmt_ns


class Progress:
    def __init__(self, total_groups: int, stream: TextIO):
        self.total = max(total_groups, 1)
        self.groups_started = 0
        self.groups_finished = 0
        self.trials = 0
        self.soaks = 0
        self.stream = stream
        self.started = time.monotonic()
        self.tty = stream.isatty()

    def _emit(self, line: str, keep: bool) -> None:
        if self.tty:
            self.stream.write("\r\033[K" + line + ("\n" if keep else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def start(self, campaign, store) -> None:
        s = campaign.settings
        launches = campaign.most_launches
        groups = len(campaign.point_groups())
        # launches_for: which targets run in more launches (or fewer) than `launches`.
        more = sorted({(t.name, campaign.launches_of(t)) for t in campaign.targets
                       if campaign.launches_of(t) != s.launches}, key=lambda x: (-x[1], x[0]))
        if s.is_planned:
            budget = f" in a budget of {fmt_duration(s.budget_s)}" if s.budget_s is not None else ""
            self._emit(f"orbench: campaign {campaign.name}: {len(campaign.targets)} targets, {groups} point groups; "
                       f"launches, trials and calls planned from the variance and cost of each level{budget} -> "
                       f"{store.path}", keep=True)
            return
        if s.duration_s is not None:
            per = f"one soak of {fmt_duration(s.duration_s)}"
        elif s.has_precision_target:
            per = f"{s.trials} to {max(s.max_trials, s.trials)} trials"
        else:
            per = f"{s.trials} trials"
        cap = f", at most {s.time_cap_s:g} s after its first round" if s.time_cap_s else ""
        some = f" ({', '.join(f'{n}: {k}' for n, k in more)}; {s.launches} for the others)" if more else ""
        self._emit(f"orbench: campaign {campaign.name}: {len(campaign.targets)} targets, {groups} point groups x "
                   f"{launches} launch{'es' if launches != 1 else ''}{some} = {self.total} group runs of {per} per "
                   f"target{cap} -> {store.path}", keep=True)

    def note(self, message: str) -> None:
        self._emit(f"  {message}", keep=True)

    def group_started(self) -> None:
        """A point group's run (in one launch) starts: the unit the header and the ETA count."""
        self.groups_started += 1

    def group_finished(self) -> None:
        self.groups_finished += 1

    def eta_s(self) -> float | None:
        done = self.groups_finished
        if done <= 0 or done >= self.total:
            return None
        return (time.monotonic() - self.started) / done * (self.total - done)

    def trial(self, trial: Trial) -> None:
        self.trials += 1
        eta = self.eta_s()
        head = (f"[{self.groups_finished}/{self.total} groups done {100 * self.groups_finished // self.total:3d}%] "
                f"{trial.point.label}"
                f"{f' L{trial.launch + 1}' if trial.launch else ''} t{trial.trial}")
        tail = f"  eta {fmt_duration(eta)}" if eta is not None else ""
        if trial.ok:
            self._emit(f"{head}: p50 {fmt_ns(trial.p50_ns)} p99 {fmt_ns(trial.p99_ns)}{tail}", keep=False)
        else:
            self._emit(f"{head}: {trial.status.upper()}: {trial.error}", keep=True)

    def soak(self, label: str, status: str, calls: int) -> None:
        """A soak point ended (soak points count instead of trials)."""
        self.soaks += 1
        self._emit(f"[group {min(self.groups_started, self.total)}/{self.total}] {label}: soak {status}, "
                   f"{calls} calls", keep=True)

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\n")
        done = f"{self.soaks} soak points" if self.soaks and not self.trials else f"{self.trials} trials"
        self._emit(f"orbench: {done} in {fmt_duration(time.monotonic() - self.started)}", keep=True)
