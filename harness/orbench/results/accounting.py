"""Where a run's time went, as the manifest's `time_accounting` keeps it: per launch and point group (and per
launch and block for the workers' starts), the seconds of each phase; for the run, the totals and the timed
calls' share of the wall time.

The phases (PHASES) cover a run's wall time without overlap: what the runner does not place in one of them is
`harness` (its own Python between trials, the manifest and trials.csv writes, host preparation, progress).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from orbench.results.units import fmt_duration

# In the order a group's time is spent, with what each covers (the report's legend says the same).
PHASES: dict[str, str] = {
    "workers": "starting and stopping the workers (and extra clients)",
    "full_warmup": "the fixed warm-up at a worker's first point (the JIT's first compilations)",
    "steady_chunks": "untimed chunks until the latency is steady (steady_cv_pct)",
    "rewarm": "the short warm-up before each later trial (rewarm, jvm_rewarm)",
    "timed_calls": "the timed calls themselves (the workers' elapsed_ns)",
    "anatomy": "reading the anatomy counters, CPU usage and server stats around a trial",
    "samples": "writing, copying back, checking and summarising the samples files",
    "profiles": "the profile mode's profiled trials (not results; the last launch only)",
    "companions": "the slices of programs that take turns with a target's (orbench fidelity's references)",
    "harness": "everything else: the harness's own Python, manifest and trials.csv writes, host preparation",
}


def _rounded(seconds: Mapping[str, float]) -> dict[str, float]:
    return {p: round(float(seconds[p]), 4) for p in PHASES if seconds.get(p)}


@dataclass(frozen=True)
class TimeRecord:
    """The seconds of one launch's point group (or, `group` None, one block's worker starts: `scope` its label)."""

    launch: int
    scope: str
    seconds: dict[str, float]
    wall_s: float
    group: dict[str, Any] | None = None   # PointGroup.as_record() of the group
    trials: int = 0
    timed_calls: int = 0
    rounds: int = 0      # rounds of trials (one trial of every target each)
    calls: int = 0       # timed calls per trial (per client)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"launch": self.launch, "scope": self.scope, "wall_s": round(self.wall_s, 4),
                               "seconds": _rounded(self.seconds)}
        if self.group is not None:
            out.update(group=self.group, trials=self.trials, timed_calls=self.timed_calls, rounds=self.rounds,
                       calls=self.calls)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TimeRecord:
        return cls(launch=int(data["launch"]), scope=str(data["scope"]),
                   seconds={k: float(v) for k, v in (data.get("seconds") or {}).items()},
                   wall_s=float(data.get("wall_s") or 0.0), group=data.get("group"),
                   trials=int(data.get("trials") or 0), timed_calls=int(data.get("timed_calls") or 0),
                   rounds=int(data.get("rounds") or 0), calls=int(data.get("calls") or 0))


@dataclass(frozen=True)
class TimeAccount:
    """A run's time: its wall time from the runner's start to its end, the seconds per phase over the whole run
    (`harness` is what the records leave of the wall time), and the records."""

    wall_s: float
    seconds: dict[str, float]
    records: tuple[TimeRecord, ...] = ()
    after_run: dict[str, float] = field(default_factory=dict)  # summary_s, report_s: after the runner ended

    @classmethod
    def of(cls, wall_s: float, records: Iterable[TimeRecord], after_run: Mapping[str, float] | None = None
           ) -> TimeAccount:
        records = tuple(records)
        totals = {p: 0.0 for p in PHASES}
        for r in records:
            for phase, s in r.seconds.items():
                totals[phase] = totals.get(phase, 0.0) + s
        placed = sum(s for p, s in totals.items() if p != "harness")
        totals["harness"] = max(0.0, wall_s - placed)
        return cls(wall_s, totals, records, dict(after_run or {}))

    @property
    def timed_share(self) -> float:
        return self.seconds.get("timed_calls", 0.0) / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def end_to_end_s(self) -> float:
        """The runner's wall time and what came after it (the summary, the report)."""
        return self.wall_s + sum(self.after_run.values())

    def share(self, phase: str) -> float:
        return self.seconds.get(phase, 0.0) / self.wall_s if self.wall_s > 0 else 0.0

    def per_launch(self) -> dict[int, dict[str, float]]:
        """Seconds per phase for each launch (the records' own; the run's harness remainder is not split)."""
        out: dict[int, dict[str, float]] = {}
        for r in self.records:
            mine = out.setdefault(r.launch, {})
            for phase, s in r.seconds.items():
                mine[phase] = mine.get(phase, 0.0) + s
        return out

    def line(self) -> str:
        """The end of a run in one line: "timed calls 14% of 2m06s; warm-up 31% (full 4%, ...); ..."."""
        def pc(x: float) -> str:
            return f"{100 * x:.0f}%"

        warm = sum(self.share(p) for p in ("full_warmup", "steady_chunks", "rewarm"))
        parts = [f"timed calls {pc(self.timed_share)} of {fmt_duration(self.wall_s)}",
                 f"warm-up {pc(warm)} (full {pc(self.share('full_warmup'))}, steady chunks "
                 f"{pc(self.share('steady_chunks'))}, rewarm {pc(self.share('rewarm'))})",
                 f"workers {pc(self.share('workers'))}", f"anatomy {pc(self.share('anatomy'))}",
                 f"samples {pc(self.share('samples'))}",
                 *([f"profiles {pc(self.share('profiles'))}"] if self.seconds.get("profiles") else []),
                 f"harness {pc(self.share('harness'))}"]
        after = [f"{k.removesuffix('_s')} {fmt_duration(v)}" for k, v in self.after_run.items() if v]
        if after:
            share = self.seconds.get("timed_calls", 0.0) / self.end_to_end_s
            after.append(f"timed calls {pc(share)} of {fmt_duration(self.end_to_end_s)} end to end")
        return "; ".join(parts) + (f"; then {', '.join(after)}" if after else "")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"wall_s": round(self.wall_s, 3), "timed_share": round(self.timed_share, 4),
                               "seconds": _rounded(self.seconds), "records": [r.to_json() for r in self.records]}
        if self.after_run:
            out["after_run"] = {k: round(v, 3) for k, v in self.after_run.items()}
            out["end_to_end_s"] = round(self.end_to_end_s, 3)
            out["timed_share_end_to_end"] = round(self.seconds.get("timed_calls", 0.0) / self.end_to_end_s, 4)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TimeAccount:
        return cls(float(data.get("wall_s") or 0.0), {k: float(v) for k, v in (data.get("seconds") or {}).items()},
                   tuple(TimeRecord.from_json(r) for r in data.get("records") or ()),
                   {k: float(v) for k, v in (data.get("after_run") or {}).items()})


def time_account(manifest: Mapping[str, Any]) -> TimeAccount | None:
    """The run's accounting from its manifest; None for a run made before orbench kept one."""
    data = manifest.get("time_accounting")
    return None if not data else TimeAccount.from_json(data)
