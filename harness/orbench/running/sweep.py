"""A load sweep as it runs (campaign key `sweep`, campaign/load.py): the rate of each step, and when to stop.

In each launch, for each target and point, the sweep's probe point (closed loop at the sweep's clients) gives
the target's capacity X in that launch; step k then offers load_k x X calls/s in all, open loop (fixed or
Poisson send times, each call timed from its intended send time), in rising order. A target's sweep stops once
its latency has run away: the rest of its steps are skipped with that reason, so the steps past saturation
cost nothing. Runaway is any of:
- the clients could not send at the offered rate (achieved below RUNAWAY_ACHIEVED of offered): every client
  was busy, the queue is at the client and grows without bound;
- the step's p99 above RUNAWAY_SLO_MULTIPLE x the SLO bound, twice in a row (one step beyond the bound is kept
  so that the capacity at the SLO can be read between the last step under it and the first over it).
A relative SLO ("10x") multiplies the unloaded p50: the sweep's lightest step's (slo_bound_ns says why).
The probe's and the steps' trials are fed here as they end (and, on a resume, as they are read back).

Paired steps: beside each middleware's step, its baseline runs the same step at the middleware's offered rate (a
point with `load_of`, running next to the middleware's trial in the round), so the two pair at the same offered
load in the same launch and step (the ORB-added latency under load, summary/pairing.py); the baseline's own steps
still offer shares of its own capacity. A paired step runs while its middleware's sweep runs, and stops on its own
runaway as any step.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from orbench.campaign.load import SWEEP_MODES, LoadPlan
from orbench.results.point import Point, PointGroup
from orbench.results.trial import Trial

# Below this share of the offered rate the clients fell behind their schedule for good.
RUNAWAY_ACHIEVED = 0.9
# A step this far over the SLO bound is beyond saturation; two in a row end the target's sweep.
RUNAWAY_SLO_MULTIPLE = 3.0


@dataclass
class _TargetSweep:
    capacity: list[float] = field(default_factory=list)       # the probe's calls/s, per ok trial
    unloaded_p50: list[float] = field(default_factory=list)   # the one-client point's p50s
    lightest_p50: dict[str, float] = field(default_factory=dict)  # by arrivals: the first (lightest) step's p50
    over_slo: dict[str, int] = field(default_factory=dict)    # by arrivals: steps in a row far over the SLO
    stopped: dict[str, str] = field(default_factory=dict)     # by arrivals: why the rest of the steps are skipped
    stopped_at: dict[str, float] = field(default_factory=dict)  # by arrivals: the offered load of the last step run


class SweepState:
    """One launch's sweeps (a new one per launch)."""

    def __init__(self, plan: LoadPlan):
        self.sweep = plan.sweep
        self._by_key: dict[tuple[Point, str], _TargetSweep] = {}

    def _of(self, point: Point) -> _TargetSweep:
        return self._by_key.setdefault((point.without_load(), point.target), _TargetSweep())

    def is_probe(self, point: PointGroup) -> bool:
        s = self.sweep
        return (s is not None and point.mode in SWEEP_MODES and not point.rate_hz and not point.offered_load
                and point.clients == s.clients and (s.clients == 1 or point.clients_as == s.clients_as))

    def note(self, trial: Trial) -> None:
        """A finished trial of this launch: a probe's capacity, the unloaded p50, a step's outcome."""
        if self.sweep is None or not trial.ok:
            return
        point, state = trial.point, self._of(trial.point)
        if self.is_probe(point) and trial.aggregate_calls_per_s:
            state.capacity.append(float(trial.aggregate_calls_per_s))
        if point.is_base_load and point.mode in SWEEP_MODES and trial.p50_ns:
            state.unloaded_p50.append(float(trial.p50_ns))
        if point.is_sweep_step:
            self._note_step(point, trial, state)

    def _note_step(self, point: Point, trial: Trial, state: _TargetSweep) -> None:
        assert self.sweep is not None
        if point.arrivals not in state.lightest_p50 and trial.p50_ns:
            state.lightest_p50[point.arrivals] = float(trial.p50_ns)
        offered, achieved = trial.offered_rate_hz or 0.0, trial.achieved_rate_hz or 0.0
        if offered and achieved and achieved < RUNAWAY_ACHIEVED * offered:
            state.stopped[point.arrivals] = (f"past saturation: at {point.offered_load:g}x the clients sent "
                                             f"{achieved:.0f} of {offered:.0f} calls/s")
            state.stopped_at[point.arrivals] = point.offered_load
            return
        bound = self.slo_bound_ns(point)
        if bound is not None and trial.p99_ns and trial.p99_ns > RUNAWAY_SLO_MULTIPLE * bound:
            state.over_slo[point.arrivals] = state.over_slo.get(point.arrivals, 0) + 1
            if state.over_slo[point.arrivals] >= 2:
                state.stopped[point.arrivals] = (f"past saturation: p99 {trial.p99_ns / 1e3:.0f} us at "
                                                 f"{point.offered_load:g}x, over {RUNAWAY_SLO_MULTIPLE:g} x the SLO "
                                                 f"({bound / 1e3:.0f} us) twice in a row")
                state.stopped_at[point.arrivals] = point.offered_load
        else:
            state.over_slo[point.arrivals] = 0

    def slo_bound_ns(self, point: Point) -> float | None:
        """The SLO's p99 bound for the point's sweep: a relative one multiplies the unloaded p50, which is the
        lightest step's (open loop like every step: at a low rate each call finds both sides idle and pays their
        wake-up, which a closed loop never does), or before that step ran the one-client closed-loop p50."""
        assert self.sweep is not None
        state = self._of(point)
        if point.arrivals in state.lightest_p50:
            return self.sweep.slo.bound_ns(state.lightest_p50[point.arrivals])
        p50s = state.unloaded_p50
        return self.sweep.slo.bound_ns(sorted(p50s)[len(p50s) // 2] if p50s else None)

    def rate_for(self, point: Point) -> tuple[float | None, str | None]:
        """A step's offered rate in calls/s, all clients together; or None and why it cannot run."""
        state = self._of(point)
        if point.arrivals in state.stopped:
            return None, state.stopped[point.arrivals]
        if point.load_of:
            # At the middleware's rate while its sweep runs: its step at this load ran or is about to.
            orb = self._of(point.replace(target=point.load_of, load_of=""))
            if orb.stopped_at.get(point.arrivals, point.offered_load) < point.offered_load:
                return None, f"nothing to pair with: {point.load_of}'s sweep stopped ({orb.stopped[point.arrivals]})"
            state = orb
        if not state.capacity:
            whose = f"{point.load_of}'s" if point.load_of else "the sweep's"
            return None, f"no capacity to offer a share of: {whose} probe point has no ok trial in this launch"
        capacity = sum(state.capacity) / len(state.capacity)
        return point.offered_load * capacity, None
