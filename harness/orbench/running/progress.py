"""Progress of a long run on stderr: one line per trial (rewritten in place on a terminal), with an ETA."""

from __future__ import annotations

import time
from typing import TextIO

from orbench.results.trial import Trial
from orbench.results.units import fmt_duration, fmt_ns


class Progress:
    def __init__(self, total: int, stream: TextIO):
        self.total = max(total, 1)
        self.done = 0
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
        self._emit(f"orbench: campaign {campaign.name}: {len(campaign.targets)} targets, "
                   f"{len(campaign.point_groups())} points x {campaign.trials} trials = {self.total} trials "
                   f"-> {store.path}", keep=True)

    def note(self, message: str) -> None:
        self._emit(f"  {message}", keep=True)

    def trial(self, trial: Trial) -> None:
        self.done += 1
        elapsed = time.monotonic() - self.started
        eta = elapsed / self.done * (self.total - self.done)
        head = f"[{self.done:>{len(str(self.total))}}/{self.total} {100 * self.done // self.total:3d}%] " \
               f"{trial.point.label} t{trial.trial}"
        if trial.ok:
            self._emit(f"{head}: p50 {fmt_ns(trial.p50_ns)} p99 {fmt_ns(trial.p99_ns)}  eta {fmt_duration(eta)}",
                       keep=False)
        else:
            self._emit(f"{head}: {trial.status.upper()}: {trial.error}", keep=True)
        if self.done == self.total and self.tty:
            self.stream.write("\n")
