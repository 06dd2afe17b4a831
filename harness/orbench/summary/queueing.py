"""The known answer for load: a server that serves one request at a time (the C socket server's `--serial`,
harness/PROTOCOL.md) is a single-server queue. Under Poisson arrivals at rate lambda with service times S its
mean wait is Pollaczek-Khinchine's W = lambda E[S^2] / (2 (1 - rho)), rho = lambda E[S] (with a fixed S, the
M/D/1 queue's rho S / 2(1 - rho)), and its capacity is 1 / E[S].

Nothing here assumes S: the server measures its own service times (their mean and mean square per trial,
running/measure.ServiceReading), lambda is the rate the clients really sent. Per sweep step and launch, the
measured wait is the step's mean latency less its own mean service time, minus the same for the unloaded mean,
and the prediction is W from that step's own lambda and moments; over launches, the mean of each with the
measured wait's interval. Each step's own S comes out, as the prediction takes that step's moments: S is not
the same at every load (a 1 ms spin measured 1080-1111 us at the lightest step of a 2-vCPU VM and
1034-1060 us at rho 0.5-0.8), and a reference step with a longer S would read as a shorter wait at every load.
The unloaded mean is the lightest step's, less its own service time and its own predicted wait (a few percent
of S): the same open loop, in which a call to an idle server also pays the idle CPU's wake-up, which a closed
loop, keeping both sides busy, does not (one client's closed-loop mean stands in where the sweep has no step).
The checks:
- wait: within WAIT_TOLERANCE of the prediction at rho of 0.35 and above, within SMALL_RHO_TOLERANCE x E[S]
  below (where W is a few percent of S and 10% of it is below the noise of a mean latency);
- capacity: the closed-loop capacity at the sweep's clients within CAPACITY_TOLERANCE of 1 / E[S].

Pollaczek-Khinchine's W is an expectation over every path of Poisson arrivals; a step of a few thousand calls
draws one path, whose own mean wait differs from W by chance (at rho 0.8 and 8,000 calls by -20% to -6% in the
three launches of one run). So each wait check also gives the mean wait of the very send times the clients drew
(`sent_path_wait_ns`): they are known from each trial's seed (PROTOCOL.md, "Arrivals"; running/schedule.trial_seed),
and Lindley's recursion W_{i+1} = max(0, W_i + E[S] - (t_{i+1} - t_i)) gives every call's wait in a server of
fixed service time. The measured rise is checked against it as against W (`within_sent_path`): what is left
between them is the measurement's, not the arrivals' chance.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np

from orbench.campaign.load import LoadPlan
from orbench.results.point import Point
from orbench.results.trial import Trial
from orbench.running.schedule import trial_seed
from orbench.stats.launches import over_launches
from orbench.summary.model import QueueingCheck, TrialInterval
from orbench.targets.scale_checks import splitmix64

WAIT_TOLERANCE = 0.10
SMALL_RHO = 0.35
SMALL_RHO_TOLERANCE = 0.05
CAPACITY_TOLERANCE = 0.03


def predicted_wait_ns(rate_hz: float, service_ns: float, service_sq_ns2: float) -> float | None:
    """Pollaczek-Khinchine's mean wait in ns; None at or past saturation."""
    rho = rate_hz * service_ns / 1e9
    if rho >= 1:
        return None
    return rate_hz * service_sq_ns2 / 1e9 / (2 * (1 - rho))


def sent_path_wait_ns(calls: int, rate_hz: float, seed: int, service_ns: float) -> float:
    """The mean wait of `calls` Poisson send times drawn as a worker draws them from `seed` (PROTOCOL.md,
    "Arrivals"), at one server of fixed service time: Lindley's recursion."""
    draws = splitmix64(seed)
    period_ns = 1e9 / rate_hz
    wait = total = 0.0
    for _ in range(calls - 1):
        gap = -math.log1p(-(next(draws) >> 11) * 2.0**-53) * period_ns
        wait = max(0.0, wait + service_ns - gap)
        total += wait
    return total / calls


def _sent_path_wait(point: Point, trial: Trial, launch_seeds: dict[int, int]) -> float | None:
    """sent_path_wait_ns of a trial of one client process (its threads draw from one schedule), else None."""
    seed = launch_seeds.get(trial.launch)
    if (seed is None or not trial.calls or not trial.offered_rate_hz
            or not trial.server_service_ns or (point.clients > 1 and point.clients_as != "threads")):
        return None
    return sent_path_wait_ns(int(trial.calls), float(trial.offered_rate_hz),
                             trial_seed(seed, point, trial.trial), float(trial.server_service_ns))


def queueing_checks(by_point: dict[Point, list[Trial]], campaign: dict[str, Any],
                    launches: list[dict[str, Any]] | None = None) -> list[QueueingCheck]:
    """`launches`: the manifest's launch records, whose seeds give each trial's send times."""
    try:
        sweep = LoadPlan.from_settings(campaign).sweep
    except (KeyError, ValueError, TypeError):
        return []
    if sweep is None:
        return []
    launch_seeds = {int(r["launch"]): int(r["seed"]) for r in launches or [] if r.get("seed") is not None}
    unloaded: dict[tuple[Point, int], list[float]] = defaultdict(list)
    lightest: dict[tuple[Point, int], tuple[float, float]] = {}   # (load, mean less wait and S) of the lightest step
    for point, trials in by_point.items():
        for t in trials:
            if not t.ok or not t.mean_ns:
                continue
            if point.is_base_load:
                if t.server_service_ns:
                    unloaded[(point.without_load(), t.launch)].append(float(t.mean_ns) - float(t.server_service_ns))
            elif (point.is_sweep_step and point.arrivals == "poisson" and t.server_service_ns
                  and t.server_service_sq_ns2 is not None):
                wait = predicted_wait_ns(t.achieved_rate_hz or t.offered_rate_hz or 0.0, float(t.server_service_ns),
                                         float(t.server_service_sq_ns2))
                where = (point.without_load(), t.launch)
                if wait is not None and (where not in lightest or point.offered_load < lightest[where][0]):
                    lightest[where] = (point.offered_load, float(t.mean_ns) - wait - float(t.server_service_ns))
    for where, (_, mean) in lightest.items():
        unloaded[where] = [mean]  # the open loop's own floor: see the module's docstring
    out = []
    for point, trials in sorted(by_point.items()):
        served = [t for t in trials if t.ok and t.server_service_ns and t.server_service_sq_ns2 is not None]
        if not served:
            continue
        if point.is_sweep_step and point.arrivals == "poisson":
            if point.offered_load > min(lightest.get((point.without_load(), t.launch), (0.0, 0.0))[0] for t in served):
                out += _wait(point, served, unloaded, launch_seeds)  # the lightest step is the reference
        elif (not point.rate_hz and not point.offered_load and point.clients == sweep.clients
              and point.clients > 1):
            out += _capacity(point, served)
    return out


def _wait(point: Point, trials: list[Trial], unloaded: dict[tuple[Point, int], list[float]],
          launch_seeds: dict[int, int]) -> list[QueueingCheck]:
    measured: dict[int, list[float]] = defaultdict(list)
    predicted, rhos, services, sent = [], [], [], []
    for t in trials:
        base = unloaded.get((point.without_load(), t.launch))
        rate = t.achieved_rate_hz or t.offered_rate_hz
        if not base or not rate or t.mean_ns is None:
            continue
        wait = predicted_wait_ns(rate, float(t.server_service_ns or 0), float(t.server_service_sq_ns2 or 0))
        if wait is None:
            continue
        measured[t.launch].append(float(t.mean_ns) - float(t.server_service_ns or 0) - float(np.median(base)))
        predicted.append(wait)
        sent.append(_sent_path_wait(point, t, launch_seeds))
        rhos.append(rate * float(t.server_service_ns or 0) / 1e9)
        services.append(float(t.server_service_ns or 0))
    if not measured:
        return []
    lv = over_launches(measured)
    assert lv is not None
    interval = TrialInterval(estimate=lv["estimate"], low=lv["ci95_low"], high=lv["ci95_high"],
                             half_width=None if lv["ci95_low"] is None else (lv["ci95_high"] - lv["ci95_low"]) / 2,
                             method=lv["ci_method"], launches=lv["n_launches"])
    rho, service, wait = float(np.mean(rhos)), float(np.mean(services)), float(np.mean(predicted))
    path = float(np.mean(sent)) if sent and None not in sent else None

    def tolerance(prediction: float) -> float:
        return SMALL_RHO_TOLERANCE * service if rho < SMALL_RHO else WAIT_TOLERANCE * prediction

    text = f"{SMALL_RHO_TOLERANCE:g} x E[S]" if rho < SMALL_RHO else f"{WAIT_TOLERANCE:.0%} of the prediction"
    return [QueueingCheck(point=point, kind="wait", service_ns=service, launches=lv["n_launches"],
                          within=abs(lv["estimate"] - wait) <= tolerance(wait), tolerance=text, rho=rho,
                          predicted_wait_ns=wait, measured_wait_ns=interval, sent_path_wait_ns=path,
                          within_sent_path=None if path is None else abs(lv["estimate"] - path) <= tolerance(path))]


def _capacity(point: Point, trials: list[Trial]) -> list[QueueingCheck]:
    rates = [float(t.aggregate_calls_per_s) for t in trials if t.aggregate_calls_per_s]
    if not rates:
        return []
    service = float(np.mean([t.server_service_ns for t in trials]))
    capacity, bound = float(np.mean(rates)), 1e9 / service
    ratio = capacity / bound
    return [QueueingCheck(point=point, kind="capacity", service_ns=service, launches=len({t.launch for t in trials}),
                          within=abs(ratio - 1) <= CAPACITY_TOLERANCE, tolerance=f"{CAPACITY_TOLERANCE:.0%} of 1/E[S]",
                          capacity_calls_per_s=capacity, one_over_service_calls_per_s=bound, ratio=ratio)]
