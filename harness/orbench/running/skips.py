"""Giving up a point that keeps failing: after FAILURES_IN_A_ROW trials of a target at a point that failed
(the watchdog's "no progress", a timeout, a crash) or stalled for long (a few calls took most of the trial,
stats/stalls.py, and together at least the watchdog's bound), the target's remaining trials at that point
are skipped, with the reason; its other points still run. A hung middleware then costs a campaign two bounded
trials per point, not every trial's timeout. A short stall (a loaded machine's 20 ms hiccups) keeps its warning
and never gives a point up: a baseline's skipped trials would leave its ORBs unpaired.
"""

from __future__ import annotations

from pathlib import Path

from orbench.results.point import Point
from orbench.results.trial import GIVEN_UP, Trial
from orbench.stats.stalls import find_stall
from orbench.stats.stats import read_samples

FAILURES_IN_A_ROW = 2
# With the watchdog off (stall_timeout_s 0), a stall counts when its calls took this long together: the key's
# default.
DEFAULT_STALL_S = 5.0


def is_rule_skip(trial: Trial) -> bool:
    """Whether the trial was given up by this rule (not skipped for a target that cannot run the point)."""
    return trial.status == GIVEN_UP


class PointSkips:
    """Per point: the failed or stalled trials in a row so far, and why a given-up point is skipped."""

    def __init__(self, store_path: Path, long_stall_s: float):
        self.store_path = store_path
        self.long_stall_s = long_stall_s  # a stall counts when its calls took this long together
        self.in_a_row: dict[Point, list[str]] = {}  # the reasons of the bad trials in a row
        self.reasons: dict[Point, str] = {}

    def reason(self, point: Point) -> str | None:
        """Why the point's next trial is skipped, or None to run it."""
        return self.reasons.get(point)

    def note(self, trial: Trial) -> str | None:
        """Count a finished trial; returns the skip reason when this trial makes its point given up."""
        if trial.status in ("skipped", GIVEN_UP) or trial.point in self.reasons:
            return None
        why = self._bad(trial)
        if why is None:
            self.in_a_row.pop(trial.point, None)
            return None
        bad = self.in_a_row.setdefault(trial.point, [])
        bad.append(why)
        if len(bad) < FAILURES_IN_A_ROW:
            return None
        self.reasons[trial.point] = f"skipped after {len(bad)} failed or stalled trials in a row; the last: {bad[-1]}"
        return self.reasons[trial.point]

    def _bad(self, trial: Trial) -> str | None:
        if trial.status == "failed":
            return trial.error or "failed"
        if not trial.samples_file:
            return None
        # A stall counts only when its calls took long_stall_s together, so a trial whose calls took less in all
        # (their sum is calls x mean) has none: no second pass over its samples file.
        if trial.mean_ns is not None and trial.calls and trial.mean_ns * trial.calls < 0.999 * self.long_stall_s * 1e9:
            return None
        samples = read_samples(self.store_path / str(trial.samples_file))
        stall = find_stall(samples)
        if stall is None or stall.share * float(samples.sum()) < self.long_stall_s * 1e9:
            return None
        return (f"stalled: {stall.calls} of {stall.of_calls} calls (up to {stall.longest_ns / 1e6:.0f} ms, "
                f"{stall.share * float(samples.sum()) / 1e9:.1f} s in all) took {stall.share:.0%} of the trial")

    def finished_on_resume(self, trials: list[Trial], finished_statuses: tuple[str, ...],
                           retry: bool) -> dict[tuple[Point, int, int], Trial]:
        """On `--resume`: the trials kept as finished, by point, launch and trial number (the latest row of each). A
        given-up point keeps its failed trials too and stays given up; with `retry` (--retry-skipped) its
        rule-skipped trials are run again, as are its failed ones."""
        given_up = {t.point: t.error for t in trials if is_rule_skip(t)}
        if retry:
            return {t.key: t for t in trials if t.status in finished_statuses and not is_rule_skip(t)}
        self.reasons.update(given_up)
        return {t.key: t for t in trials if t.status in finished_statuses or t.point in given_up}
