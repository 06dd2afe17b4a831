"""The runner's clocks for where the time goes (results/accounting.py keeps what they found).

A PhaseClock adds up one point group's seconds per phase in one launch, as its trials run: the runner marks a
trial's start and end, measure.py places the parts it knows (the anatomy readings, the `run` command split into
warm-up, timed calls and the worker's own samples writing, the samples read back), and whatever of the trial's
wall time no phase took is the harness's. A RunClock holds the groups' records and the blocks' worker starts,
and makes the run's TimeAccount at the end.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from orbench.results.accounting import PHASES, TimeAccount, TimeRecord
from orbench.results.point import PointGroup


@dataclass
class PhaseClock:
    """Seconds per phase of one scope. `warmup_phase`: where a `run` command's warm-up calls go (the full
    warm-up or the rewarm of a trial); `rename`: phases placed elsewhere (a steady-state chunk's timed calls
    are not a result: they go to steady_chunks)."""

    seconds: dict[str, float] = field(default_factory=dict)
    warmup_phase: str = "rewarm"
    rename: dict[str, str] = field(default_factory=dict)
    trials: int = 0
    timed_calls: int = 0
    _trial_mark: tuple[float, float] | None = None   # (perf_counter, placed seconds) at the trial's start

    def add(self, phase: str, seconds: float) -> None:
        phase = self.rename.get(phase, phase)
        assert phase in PHASES, phase
        if seconds > 0:
            self.seconds[phase] = self.seconds.get(phase, 0.0) + seconds

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - started)

    def run_command(self, round_trip_s: float, elapsed_ns: int | None, warmup_calls: int, timed_calls: int,
                    warmup_s: float | None = None, clients: int = 1) -> None:
        """A `run` command's round trip: the timed calls (the worker's elapsed_ns), the warm-up before them
        (`warmup_s` when the worker's start is known on this machine's clock, else the timed calls' pace times
        the warm-up calls: they are the same calls at the same point), and what is left, the worker writing its
        samples file and answering. `warmup_calls`, `timed_calls`: each client's; `clients` made them at once."""
        timed = max(0.0, (elapsed_ns or 0) / 1e9)
        if warmup_s is None:
            warmup_s = timed * warmup_calls / timed_calls if timed_calls else 0.0
        warmup_s = min(max(0.0, warmup_s), max(0.0, round_trip_s - timed))
        self.add("timed_calls", timed)
        self.add(self.warmup_phase, warmup_s)
        self.add("samples", max(0.0, round_trip_s - timed - warmup_s))
        if "timed_calls" not in self.rename:
            self.timed_calls += timed_calls * clients

    def chunks(self, full_warmup: bool) -> PhaseClock:
        """A view for the steady-state chunks: their calls, readings and samples count as steady_chunks, the
        first chunk's fixed warm-up as full_warmup."""
        view = PhaseClock(self.seconds, "full_warmup" if full_warmup else "steady_chunks",
                          {"timed_calls": "steady_chunks", "samples": "steady_chunks", "rewarm": "steady_chunks",
                           "anatomy": "steady_chunks"})
        return view

    def warmup_only(self) -> PhaseClock:
        """A view for untimed runs before a plan's own (a oneway warm-up's pieces: flood.py): their calls, samples
        and readings all go where this clock puts its warm-up."""
        phase = self.rename.get(self.warmup_phase, self.warmup_phase)
        return PhaseClock(self.seconds, self.warmup_phase,
                          {**self.rename, **dict.fromkeys(("timed_calls", "samples", "anatomy", "rewarm"), phase)})

    def setup(self) -> PhaseClock:
        """A view for an untimed setup call (a client fetching its objects' references): all of it full_warmup."""
        return PhaseClock(self.seconds, "full_warmup",
                          dict.fromkeys(("timed_calls", "samples", "rewarm", "anatomy"), "full_warmup"))

    def placed(self) -> float:
        return sum(self.seconds.values())

    def start_trial(self) -> None:
        self._trial_mark = (time.perf_counter(), self.placed())

    def end_trial(self, counted: bool = True, trials: int = 1) -> None:
        """The trial's wall time (a sliced unit's: its `trials` trials at once); what its phases did not take is
        the harness's."""
        if self._trial_mark is None:
            return
        started, placed_before = self._trial_mark
        self._trial_mark = None
        wall = time.perf_counter() - started
        self.add("harness", wall - (self.placed() - placed_before))
        self.trials += trials if counted else 0


class RunClock:
    """A run's records as its groups end, and its wall time."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.records: list[TimeRecord] = []
        self._workers: dict[tuple[int, str], PhaseClock] = {}
        self._lock = threading.Lock()

    def group(self) -> PhaseClock:
        return PhaseClock()

    def close_group(self, launch: int, group: PointGroup, clock: PhaseClock, rounds: int, calls: int) -> TimeRecord:
        record = TimeRecord(launch=launch, scope=group.label, seconds=dict(clock.seconds), wall_s=clock.placed(),
                            group=group.as_record(), trials=clock.trials, timed_calls=clock.timed_calls,
                            rounds=rounds, calls=calls)
        with self._lock:
            self.records.append(record)
        return record

    @contextmanager
    def workers(self, launch: int, scope: str) -> Iterator[None]:
        """Starting or stopping a block's workers (a lane's, or one target's restart)."""
        started = time.perf_counter()
        try:
            yield
        finally:
            seconds = time.perf_counter() - started
            with self._lock:
                self._workers.setdefault((launch, scope), PhaseClock()).add("workers", seconds)

    def account(self, after_run: dict[str, float] | None = None) -> TimeAccount:
        with self._lock:
            blocks = [TimeRecord(launch=launch, scope=scope, seconds=dict(c.seconds), wall_s=sum(c.seconds.values()))
                      for (launch, scope), c in self._workers.items()]
            records = [*blocks, *self.records]
        return TimeAccount.of(time.perf_counter() - self.started, records, after_run)
