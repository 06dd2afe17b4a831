"""Capacities: how many calls per second a target serves, from a run's trials (summary.json `capacities`).

- **Closed-loop capacity**: per launch, each client count's calls/s (the mean of that launch's trials, a
  sliced trial's at its median slice: trial_rates), and the most of them; the capacity is the mean over
  launches of that maximum, with a Student-t interval over launches (the launch is the level that repeats:
  stats/launches.py). Points with 1 client count for every
  way of making clients (one process is one thread). A middleware whose trials alternated in slices with its
  baseline's counts at the host's usual speed: each slice scaled by the baseline's slice beside it
  (speed_scaled_rates), and a launch with no sliced trial (the first, whose trials read the anatomy) is left out.
- **Capacity at the SLO** of a load sweep (campaign key `sweep`, running/sweep.py): per launch, the offered
  load at which the p99 crosses the SLO bound, interpolated linearly between the last step under it and the
  first over it (a step skipped past saturation counts as over); the SLO bound of a relative objective ("10x")
  is that launch's unloaded p50 times the multiple: the p50 of the sweep's lightest step (open loop like the
  others), or where it has none, one client's closed-loop p50 at the same point. A launch whose steps
  all stayed under the bound gives its highest offered load, one whose first step was already over gives
  that step's: both are said (`censored`), since the true capacity lies beyond them.

Which side was saturated at the capacity (running/load_usage.py) goes with it: a capacity reached with the
clients' CPU full describes the client machine, and `note` says so rather than let a table rank it. So does a
capacity censored below its lowest step whose socket baseline was over the bound at light load as well: that
bound is under the machine's own floor.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from orbench.campaign.load import LoadPlan, Slo
from orbench.results.point import Point
from orbench.results.trial import Trial
from orbench.stats.launches import over_launches
from orbench.stats.phases import speed_sensitivity, usual_level
from orbench.stats.stats import trial_ci95
from orbench.summary.model import Capacity, TrialInterval

CLIENT_LIMITED = "the clients' CPU was saturated here: this capacity describes the client machine, not the middleware"
SHARED_LIMITED = ("the server and its clients shared one CPU, which was saturated: this capacity is that CPU's, "
                  "split between them")
# A bound the raw-socket floor misses at light load is the machine's: on a 2-vCPU VM one call in 30 to 100 meets a
# 1-8 ms host stall of its vCPU at light load (a late timer or wake-up, a preempted spin).
UNDER_FLOOR = ("its baseline {baseline} was over the bound at its lightest step too ({n} of {m} launches): the bound "
               "is under this machine's light-load p99, not a limit of the middleware")
# What a closed-loop capacity's method adds when its trials were sliced (trial_rates, speed_scaled_rates).
MEDIAN_SLICE = "; a sliced trial's rate at its median slice"
SPEED_SCALED = ("; each slice at the host's usual speed, scaled by its baseline's slice beside it to the power of "
                "its measured sensitivity to it; launches without a sliced trial there left out")
FLOOR_MISSED = ("the socket floor itself was over the bound at its lightest step: the bound is under this machine's "
                "light-load p99")


def _interval(per_launch: dict[int, float]) -> TrialInterval:
    values = [per_launch[k] for k in sorted(per_launch)]
    if len(values) >= 2:
        lv = over_launches({k: [v] for k, v in per_launch.items()}, positive=True)
        assert lv is not None
        low, high, mean = lv["ci95_low"], lv["ci95_high"], lv["estimate"]
        return TrialInterval(estimate=mean, low=low, high=high,
                             width_pct=None if low is None or mean <= 0 else (high - low) / mean * 100.0,
                             half_width=None if low is None else (high - low) / 2.0, method=lv["ci_method"],
                             trials=len(values), launches=len(values))
    ci = trial_ci95(values, positive=True)
    return TrialInterval(**ci) if ci else TrialInterval(why_missing="no value")


def _most_per_launch(rates_of: dict[int, dict[tuple[int, int], float]]) -> tuple[dict[int, float], int]:
    """Per launch, the most calls/s of its client counts (the mean of its trials at each); and the client count
    most launches had their most at."""
    per_launch: dict[int, float] = {}
    at: Counter[int] = Counter()
    for launch in sorted({lc for found in rates_of.values() for lc, _ in found}):
        rates = {n: _launch_mean(found, launch) for n, found in rates_of.items() if any(lc == launch for lc, _ in found)}
        best = max(rates, key=lambda n: rates[n])
        per_launch[launch] = rates[best]
        at[best] += 1
    return per_launch, (at.most_common(1)[0][0] if at else 0)


def _sliced_at(trials: list[Trial], key: tuple[int, int]) -> bool:
    return any((t.launch, t.trial) == key and t.slice_means_ns and len(t.slice_means_ns) >= 2 for t in trials)


def _launch_mean(rates: dict[tuple[int, int], float], launch: int) -> float:
    return float(np.mean([v for (lc, _), v in rates.items() if lc == launch]))


def _mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(np.mean(present)) if present else None


@dataclass(frozen=True)
class _Side:
    bottleneck: str | None
    server_cpu_util: float | None
    client_cpu_util: float | None

    @property
    def note(self) -> str | None:
        return {"client": CLIENT_LIMITED, "shared-cpu": SHARED_LIMITED}.get(self.bottleneck or "")


def _side(trials: list[Trial]) -> _Side:
    found = Counter(t.bottleneck for t in trials if t.bottleneck)
    return _Side(found.most_common(1)[0][0] if found else None, _mean([t.server_cpu_util for t in trials]),
                 _mean([t.client_cpu_util for t in trials]))


def trial_rates(trials: list[Trial]) -> dict[tuple[int, int], float]:
    """Each trial's calls/s, by (launch, trial): its calls over its span, a sliced trial's at its median slice.

    A sliced trial (running/slices.py) ran in slices a few milliseconds long, some of which met a slow phase of
    the host or a stall of its vCPU (omniORB at 4 clients, run 20261130-002644-vm: one slice at 64k calls/s where
    the launch's others read 80-98k). A closed loop's rate over a slice is inversely as its mean time per call
    (Little's law), so the trial's rate at its median slice is its calls over its spans times its slices' mean
    time per call over their median: one slow slice no longer drags its launch, as one slow slice pair does not
    move a launch's ORB-added latency (the median of its pairs). Little's law alone (clients over the median
    slice's mean) would read the Java socket baseline 8-22% high in that run, its client threads' time between
    calls not being in their samples, so the rate stays the one measured over the spans. Those spans include
    each slice's start and end (threads released by a barrier, the last calls with fewer of them running): a
    sliced trial's calls over its spans were 1.4% under Little's rate at 4 clients, 1.8% at 16 and 3.2% at 64
    in that run, where one span per trial was 0.2-0.6% under it."""
    out: dict[tuple[int, int], float] = {}
    for t in trials:
        if not t.aggregate_calls_per_s:
            continue
        rate = float(t.aggregate_calls_per_s)
        if t.slice_means_ns is not None and len(t.slice_means_ns) >= 2:
            rate *= float(np.mean(t.slice_means_ns)) / float(np.median(t.slice_means_ns))
        out[(t.launch, t.trial)] = rate
    return out


def speed_scaled_rates(trials: list[Trial], baseline: list[Trial]) -> dict[tuple[int, int], float]:
    """Each sliced trial's calls/s at the host's usual speed, by (launch, trial), where its baseline's trial of
    the same launch and round alternated with it slice for slice (running/slices.py); {} where the middleware
    does not follow its baseline (stats/phases.speed_sensitivity).

    The host's speed moves in phases longer than a whole trial at many clients (0.1 s): on a 2-vCPU VM one
    launch in three to five read omniORB's capacity at 4 clients near 80k calls/s where the others read 126k-134k,
    and c-socket's beside it 104k against 156k-166k. Slices a few milliseconds long put slice k of both in one
    phase, so the baseline's slice b says how fast the host ran there against its usual level (stats/phases:
    usual_level, as the latency's scaling reads it). The middleware's slice is scaled by (usual / b) ** beta,
    beta how far its slices follow the baseline's (speed_sensitivity): a mode of the baseline's own (c-socket at
    64 threads: 770 us a call in one launch's slices, 380-500 in the others', gRPC C++ beside it unmoved) is
    kept out. The trial's rate is then taken at its median scaled slice, as trial_rates does unscaled."""
    base_of = {(t.launch, t.trial): t.slice_means_ns for t in baseline if t.ok and t.slice_means_ns}
    usual = usual_level([float(m) for means in base_of.values() for m in means])
    if usual is None:
        return {}
    matched = []
    for t in trials:
        base, mine = base_of.get((t.launch, t.trial)), t.slice_means_ns
        if (t.aggregate_calls_per_s and mine and len(mine) >= 2 and base and len(base) == len(mine)
                and min(mine) > 0 and min(base) > 0):
            matched.append((t, np.asarray(mine, dtype=float), np.asarray(base, dtype=float)))
    if not matched:
        return {}
    beta = speed_sensitivity(np.concatenate([b for _, _, b in matched]), np.concatenate([m for _, m, _ in matched]))
    if beta <= 0:
        return {}
    return {(t.launch, t.trial): float(t.aggregate_calls_per_s) * float(np.mean(m))
            / float(np.median(m * (usual / b) ** beta)) for t, m, b in matched}


def closed_loop_capacities(by_point: dict[Point, list[Trial]],
                           baselines: dict[str, str] | None = None) -> list[Capacity]:
    """One row per target, point and way of making clients that has two client counts or more; a sliced
    trial counts at its median slice (trial_rates), a middleware's sliced with its baseline (`baselines`:
    target -> its baseline) at the host's usual speed (speed_scaled_rates)."""
    baselines = baselines or {}
    series: dict[tuple[Point, str], dict[int, list[Trial]]] = defaultdict(lambda: defaultdict(list))
    for point, trials in by_point.items():
        if point.rate_hz or point.offered_load or point.mode == "oneway":
            continue
        ways = ("processes", "threads") if point.clients == 1 else (point.clients_as,)
        for way in ways:
            series[(point.without_load(), way)][point.clients].extend(t for t in trials if t.ok and t.aggregate_calls_per_s)
    out = []
    for (key, way), by_clients in sorted(series.items()):
        if len([n for n, ts in by_clients.items() if ts]) < 2:
            continue
        rates_of = {n: trial_rates(ts) for n, ts in by_clients.items()}
        of = baselines.get(key.target)
        base = series.get((key.replace(target=of), way), {}) if of and of != key.target else {}
        scaled_of = {n: speed_scaled_rates(ts, base.get(n, [])) for n, ts in by_clients.items()} if base else {}
        scaled = any(scaled_of.values())
        if scaled:
            # At the usual speed: each client count's sliced trials, scaled where the middleware follows its
            # baseline there (a slow launch's best count unscaled can be another one).
            rates_of = {n: scaled_of.get(n) or {k: v for k, v in rates_of[n].items() if _sliced_at(ts, k)}
                        for n, ts in by_clients.items()}
        per_launch, clients = _most_per_launch(rates_of)
        if not per_launch:
            continue
        side = _side(by_clients[clients])
        interval = _interval(per_launch)
        if interval.method and any(t.slice_means_ns for t in by_clients[clients]):
            interval = replace(interval, method=interval.method + (SPEED_SCALED if scaled else MEDIAN_SLICE))
        out.append(Capacity(point=key, kind="closed-loop", clients_as=way,
                            capacity_closed_loop_calls_per_s=interval, at_clients=clients,
                            per_launch=tuple(per_launch[k] for k in sorted(per_launch)),
                            bottleneck=side.bottleneck, server_cpu_util=side.server_cpu_util,
                            client_cpu_util=side.client_cpu_util, note=side.note))
    return out


def crossing(steps: list[tuple[float, float | None]], bound: float) -> tuple[float, str | None]:
    """The offered rate where p99 crosses `bound`, from (offered rate, p99 or None for a step past saturation)
    in rising order: linear between the last step under the bound and the first over it. With no step over,
    the last one's rate and "above"; with the first already over, its rate and "below"."""
    under: tuple[float, float] | None = None
    for rate, p99 in steps:
        if p99 is not None and p99 <= bound:
            under = (rate, p99)
            continue
        if under is None:
            return rate, "below"
        if p99 is None:
            return under[0], None
        r0, q0 = under
        return r0 + (bound - q0) / (p99 - q0) * (rate - r0), None
    assert under is not None
    return under[0], "above"


def slo_capacities(by_point: dict[Point, list[Trial]], campaign: dict[str, Any]) -> list[Capacity]:
    """One row per target, point and arrival process of the campaign's sweep."""
    try:
        plan = LoadPlan.from_settings(campaign)
    except (KeyError, ValueError, TypeError):
        return []
    sweep = plan.sweep
    if sweep is None:
        return []
    slo: Slo = sweep.slo
    steps: dict[tuple[Point, str], dict[int, list[tuple[Point, Trial | None]]]] = defaultdict(lambda: defaultdict(list))
    unloaded: dict[tuple[Point, int], list[float]] = defaultdict(list)
    probe: dict[tuple[Point, int], list[float]] = defaultdict(list)
    for point, trials in by_point.items():
        if not point.own_load:
            continue  # a baseline's paired step at a middleware's rate: not a sweep of its own
        key = point.without_load()
        for t in trials:
            if point.is_sweep_step:
                skipped = t.status == "skipped" and "past saturation" in (t.error or "")
                if t.ok or skipped:
                    steps[(key, point.arrivals)][t.launch].append((point, t if t.ok else None))
            elif t.ok and point.is_base_load and t.p50_ns:
                unloaded[(key, t.launch)].append(float(t.p50_ns))
            elif (t.ok and not point.rate_hz and not point.offered_load and point.clients == sweep.clients
                  and t.aggregate_calls_per_s):
                probe[(key, t.launch)].append(float(t.aggregate_calls_per_s))
    out = []
    for (key, arrivals), launches in sorted(steps.items()):
        per_launch: dict[int, float] = {}
        shares, censored, bounds, at_capacity = [], Counter(), [], []
        for launch, found in sorted(launches.items()):
            ordered = sorted(found, key=lambda pt: pt[0].offered_load)
            # The unloaded p50: the lightest step's (running/sweep.py says why), else one client's closed loop.
            lightest = next((t.p50_ns for _, t in ordered if t is not None and t.p50_ns), None)
            p50s = unloaded.get((key, launch))
            bound = slo.bound_ns(float(lightest) if lightest else float(np.median(p50s)) if p50s else None)
            if bound is None:
                continue
            capacity = probe.get((key, launch))
            rates = []
            for point, trial in ordered:
                rate = trial.offered_rate_hz if trial is not None and trial.offered_rate_hz else (
                    point.offered_load * float(np.mean(capacity)) if capacity else None)
                if rate is not None:
                    rates.append((rate, None if trial is None else trial.p99_ns))
            if not rates:
                continue
            value, side = crossing(rates, bound)
            per_launch[launch] = value
            bounds.append(bound)
            if side:
                censored[side] += 1
            if capacity:
                shares.append(value / float(np.mean(capacity)))
            at_capacity += [t for _, t in ordered if t is not None and t.offered_rate_hz
                            and t.offered_rate_hz <= value * 1.0001][-1:]
        if not per_launch:
            continue
        side_info = _side(at_capacity)
        text = "; ".join(f"{n} of {len(per_launch)} launches {'above the highest step' if s == 'above' else 'below the lowest step'}"
                         for s, n in sorted(censored.items()))
        out.append(Capacity(point=key, kind="slo", clients_as=sweep.clients_as if sweep.clients > 1 else "processes",
                            arrivals=arrivals, slo=slo.text, slo_bound_ns=float(np.mean(bounds)),
                            capacity_at_slo_calls_per_s=_interval(per_launch),
                            capacity_at_slo_share=_mean(shares),
                            per_launch=tuple(per_launch[k] for k in sorted(per_launch)), censored=text or None,
                            launches_below=censored["below"],
                            bottleneck=side_info.bottleneck, server_cpu_util=side_info.server_cpu_util,
                            client_cpu_util=side_info.client_cpu_util, note=side_info.note))
    return out


def with_floor_notes(found: list[Capacity], baselines: dict[str, str]) -> list[Capacity]:
    """An SLO capacity censored below its lowest step says whether its baseline (`baselines`: target -> its
    baseline) missed the bound at light load as well: then the bound is the machine's floor, not the
    middleware's limit."""
    rows = {(c.point, c.arrivals): c for c in found if c.kind == "slo"}
    floors = set(baselines.values())
    out = []
    for c in found:
        text = None
        if c.kind == "slo" and c.launches_below:
            if c.point.target in floors:
                text = FLOOR_MISSED
            elif c.point.target in baselines:
                base = rows.get((c.point.replace(target=baselines[c.point.target]), c.arrivals))
                if base is not None and base.launches_below:
                    text = UNDER_FLOOR.format(baseline=base.point.target, n=base.launches_below, m=len(base.per_launch))
        out.append(c if text is None else replace(c, note="; ".join(n for n in (c.note, text) if n)))
    return out


def capacities(by_point: dict[Point, list[Trial]], campaign: dict[str, Any],
               baselines: dict[str, str] | None = None) -> list[Capacity]:
    return with_floor_notes(closed_loop_capacities(by_point, baselines) + slo_capacities(by_point, campaign),
                            baselines or {})
