"""summary.json's sections for the load dimensions (N clients, fixed rate: running/clients.py) and for interop
pairs (campaign/interop.py), from a point's trials only."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np

from orbench.results.point import Point, interop_sides
from orbench.results.trial import Trial
from orbench.summary.model import Interop, Load, PointSummary, Rate, TrialInterval


def _mean(values: list[float | None]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return float(np.mean(present)) if present else None


def load_section(ok: list[Trial], clients: int, rate_hz: float,
                 throughput_ci: TrialInterval | None = None) -> tuple[Load, Rate | None]:
    """`load` (every point: clients, aggregate calls/s; per-client p50s when N > 1; the load-at-scale fields
    where the trials have them) and `rate` (fixed-rate points: deadline misses and the achieved rate per
    client) for one point's successful trials."""
    aggregate = [t.aggregate_calls_per_s for t in ok if t.aggregate_calls_per_s is not None]
    load = Load(clients=clients, aggregate_calls_per_s=float(np.mean(aggregate)) if aggregate else None,
                aggregate_calls_per_s_ci95=throughput_ci if clients > 1 or rate_hz else None)
    if clients > 1:
        load = replace(load, client_p50s_ns=tuple(tuple(t.client_p50s_ns) for t in ok if t.client_p50s_ns) or None,
                       start_barrier_incomplete_trials=sum(1 for t in ok if t.start_barrier_complete is False))
    bottlenecks = Counter(t.bottleneck for t in ok if t.bottleneck)
    threads = [t.server_threads_max for t in ok if t.server_threads_max is not None]
    load = replace(load, fairness=_mean([t.fairness for t in ok]), server_cpu_util=_mean([t.server_cpu_util for t in ok]),
                   client_cpu_util=_mean([t.client_cpu_util for t in ok]),
                   server_threads_max=max(threads) if threads else None,
                   bottleneck=bottlenecks.most_common(1)[0][0] if bottlenecks else None,
                   offered_rate_hz=_mean([t.offered_rate_hz for t in ok]),
                   achieved_rate_hz=_mean([t.achieved_rate_hz for t in ok]) if any(t.offered_rate_hz for t in ok)
                   else None,
                   settle_ratio=_mean([t.settle_ratio for t in ok]))
    if not rate_hz:
        return load, None
    calls = sum(t.calls or 0 for t in ok)
    misses = sum(t.deadline_misses or 0 for t in ok)
    # A trial's achieved rate is all its clients' together; the section's is per client, as rate_hz is.
    achieved = [t.achieved_rate_hz / clients for t in ok if t.achieved_rate_hz is not None]
    return load, Rate(rate_hz=rate_hz, deadline_misses=misses, calls=calls,
                      deadline_miss_pct=misses / calls * 100 if calls else None,
                      achieved_rate_hz=float(np.mean(achieved)) if achieved else None,
                      definition="a call misses its deadline when it completes after the next call's intended "
                                 "send time (its latency from its own intended send time exceeds 1/rate)")


def with_interop(points: dict[Point, PointSummary]) -> dict[Point, PointSummary]:
    """Beside each interop point (target "client->server"), the p50 of the two homogeneous pairs in the same
    point group of the same run: the meaningful reference for a cross-ORB call (campaign/interop.py says
    why not a baseline)."""
    p50 = {p: None if s.latency_ns is None else s.latency_ns.p50 for p, s in points.items()}
    out = dict(points)
    for point, summary in points.items():
        names = interop_sides(point.target)
        if names is None:
            continue
        client, server = names
        mine = p50[point]
        same = {name: p50.get(point.group.with_target(name)) for name in names}
        out[point] = summary.replace(interop=Interop(
            client_target=client, server_target=server, client_pair_p50_ns=same[client],
            minus_client_pair_p50_ns=None if same[client] is None or mine is None else mine - same[client],
            server_pair_p50_ns=same[server],
            minus_server_pair_p50_ns=None if same[server] is None or mine is None else mine - same[server]))
    return out
