"""One point's summary from its own trials: the trials' outcome, latency over every call, the p50 (and p99) over
trials or launches, stalls, load, anatomy, oneway delivery. Nothing here looks at another point: pairing an
ORB with its baseline is summary/pairing.py, the warnings summary/run_checks.py."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from orbench.anatomy.summary import anatomy_section
from orbench.results.point import Point
from orbench.results.trial import GIVEN_UP, SKIPPED, Trial
from orbench.stats import stats
from orbench.stats.intervals import robust_cv_pct
from orbench.stats.launches import by_launch, over_launches
from orbench.stats.stalls import find_stall
from orbench.summary.model import (
    Anatomy,
    Latency,
    Launches,
    Oneway,
    PointSummary,
    Stall,
    TrialInterval,
    TrialP50s,
    from_json,
)
from orbench.summary.sections import load_section

# One p99 from fewer samples than this rests on fewer than ten observations beyond it.
MIN_SAMPLES_FOR_P99 = 1000

TrialKey = tuple[int, int]  # (launch, trial): trials of two targets pair by it
SliceKey = tuple[int, int, int]  # (launch, trial, slice): the slices of two targets' sliced trials pair by it


def trial_segments(trials: list[Trial]) -> dict[TrialKey, float]:
    """Each ok trial's TCP data segments its client sent per call (running/wire_reading.py), by (launch, trial)."""
    return {(t.launch, t.trial): t.out_segs_per_call for t in trials if t.ok and t.out_segs_per_call is not None}


@dataclass(frozen=True)
class TrialEvidence:
    """Per point, what its ok trials say one by one: their p50s and slice values (what the pairing pairs) and the TCP
    segments their client sent per call. The run's invariants read it to name a cause (summary/invariants.py)."""

    p50: dict[Point, dict[TrialKey, float]]
    slices: dict[Point, dict[SliceKey, float]] = field(default_factory=dict)
    segs: dict[Point, dict[TrialKey, float]] = field(default_factory=dict)


def summarize_point(point: Point, trials: list[Trial], traced: list[Trial], run_dir: Path,
                    target_info: dict[str, Any]) -> tuple[PointSummary, dict[TrialKey, float]]:
    """The point's summary, and each ok trial's p50 by (launch, trial) for the pairing (empty when none is ok)."""
    ok = [t for t in trials if t.ok]
    given_up = [t.error for t in trials if t.status == GIVEN_UP]
    skipped = [t for t in trials if t.status == SKIPPED]
    outcome = PointSummary(
        point=point, kind=target_info.get("kind"), language=target_info.get("language"),
        family=target_info.get("family"), trials_ok=len(ok), trials_skipped=len(skipped),
        trials_failed=len(trials) - len(ok) - len(skipped),
        errors=tuple(sorted({t.error for t in trials if not t.ok and t.error})),
        status="ok" if ok and len(ok) == len(trials) else ("partial" if ok else trials[0].status),
        # The point's remaining trials were skipped after failures in a row (running/skips.py): say why.
        skipped=given_up[0] if given_up else None)
    if not ok:
        return outcome, {}
    per_trial = {(t.launch, t.trial): stats.read_samples(run_dir / str(t.samples_file)) for t in ok}
    samples = np.concatenate(list(per_trial.values()))
    # Over all calls of the point; the point's p50 (p50_ci95_ns) is the mean of the per-trial p50s.
    latency = _latency(samples)
    p50s = {(t.launch, t.trial): float(t.p50_ns or 0) for t in ok}
    launches = None
    if len({t.launch for t in ok}) >= 2:
        p50_ci, launches = _over_launches_ci(by_launch(p50s))
    else:
        p50_ci = TrialInterval(**stats.trial_ci95([p50s[k] for k in sorted(p50s)], positive=True))
    fewest = min(s.size for s in per_trial.values())
    # The p99 interval is over per-trial p99s: each must rest on ten values beyond it.
    p99_ci = (TrialInterval(**stats.trial_ci95([float(t.p99_ns or 0) for t in ok], positive=True)) if fewest >= MIN_SAMPLES_FOR_P99
              else TrialInterval(why_missing=f"trials of {fewest} calls: a per-trial p99 rests on fewer than 10 values"))
    stalls = tuple(Stall(launch=k[0], trial=k[1], **asdict(st))
                   for k, s in sorted(per_trial.items()) if (st := find_stall(s)) is not None)
    timed = [t for t in ok if t.elapsed_ns and t.calls]
    # Client-side payload throughput: payload bytes of the timed calls over their elapsed time.
    throughput = float(np.mean([(t.calls or 0) * point.payload_bytes / (t.elapsed_ns or 1) * 1e3 for t in timed])) \
        if timed else None
    load, rate = load_section(ok, point.clients, point.rate_hz, _throughput_ci(ok))
    anatomy = anatomy_section(ok, traced)
    outcome = outcome.replace(
        latency_ns=latency, p50_ci95_ns=p50_ci, launches=launches, p99_ci95_ns=p99_ci, stalls=stalls or None,
        client_throughput_mb_per_s=throughput, load=load, rate=rate,
        anatomy=None if anatomy is None else from_json(Anatomy, anatomy),
        trial_p50_ns=TrialP50s(tuple(p50s[k] for k in sorted(p50s)), robust_cv_pct(list(p50s.values()))),
        oneway=_oneway(ok, latency) if point.mode == "oneway" else None)
    return outcome, p50s


def _throughput_ci(ok: list[Trial]) -> TrialInterval | None:
    """The point's aggregate calls/s with its interval: over launches when there are two or more (as its p50),
    else over its trials."""
    values = {(t.launch, t.trial): float(t.aggregate_calls_per_s) for t in ok if t.aggregate_calls_per_s}
    if not values:
        return None
    if len({launch for launch, _ in values}) >= 2:
        return _over_launches_ci(by_launch(values))[0]
    return TrialInterval(**stats.trial_ci95([values[k] for k in sorted(values)], positive=True))


def _latency(samples: np.ndarray) -> Latency:
    tails = stats.tail_percentiles(samples)
    return Latency(**stats.latency_summary(samples), p99_9=tails["p99.9"], p99_99=tails["p99.99"])


def _over_launches_ci(per_launch: dict[int, list[float]]) -> tuple[TrialInterval, Launches]:
    """A point's p50 over launches (the interval trial_ci95 gives, over launches) and its `launches` section."""
    lv = over_launches(per_launch, positive=True)
    assert lv is not None
    mean, low, high = lv["estimate"], lv["ci95_low"], lv["ci95_high"]
    ci = TrialInterval(estimate=mean, low=low, high=high,
                       width_pct=None if low is None or mean <= 0 else (high - low) / mean * 100.0,
                       half_width=None if low is None else (high - low) / 2.0, method=lv["ci_method"],
                       trials=sum(len(v) for v in per_launch.values()), launches=lv["n_launches"])
    return ci, from_json(Launches, {"n": lv["n_launches"], "values": lv["launches"], "variance": lv["variance"],
                                    "disagreement": lv["disagreement"]})


def _oneway(ok: list[Trial], latency: Latency) -> Oneway:
    tput = [t.throughput_msgs_per_s for t in ok if t.throughput_msgs_per_s]
    mbps = [t.throughput_mb_per_s for t in ok if t.throughput_mb_per_s]
    return Oneway(
        client_time_per_call_ns=latency,
        calls=sum(t.calls or 0 for t in ok), received_messages=sum(t.received_messages or 0 for t in ok),
        lost_messages=sum(t.lost_messages or 0 for t in ok),
        receiver_throughput_msgs_per_s=float(np.mean(tput)) if tput else None,
        receiver_throughput_mb_per_s=float(np.mean(mbps)) if mbps else None,
        sync_incomplete_trials=sum(1 for t in ok if t.sync_complete is False),
        warmup_sync_incomplete_trials=sum(1 for t in ok if t.warmup_sync_complete is False))
