"""summary.json's sections for the load dimensions (N clients, fixed rate: running/clients.py) and for interop
pairs (campaign/interop.py), from a point's trials only."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from orbench.results.point import Point, interop_sides
from orbench.results.trial import Trial
from orbench.summary.model import Interop, Load, PointSummary, Rate


def load_section(ok: list[Trial], clients: int, rate_hz: float) -> tuple[Load, Rate | None]:
    """`load` (every point: clients, aggregate calls/s; per-client p50s when N > 1) and `rate` (fixed-rate
    points: deadline misses and the achieved rate) for one point's successful trials."""
    aggregate = [t.aggregate_calls_per_s for t in ok if t.aggregate_calls_per_s is not None]
    load = Load(clients=clients, aggregate_calls_per_s=float(np.mean(aggregate)) if aggregate else None)
    if clients > 1:
        load = replace(load, client_p50s_ns=tuple(tuple(t.client_p50s_ns) for t in ok if t.client_p50s_ns),
                       start_barrier_incomplete_trials=sum(1 for t in ok if t.start_barrier_complete is False))
    if not rate_hz:
        return load, None
    calls = sum(t.calls or 0 for t in ok)
    misses = sum(t.deadline_misses or 0 for t in ok)
    achieved = [t.achieved_rate_hz for t in ok if t.achieved_rate_hz is not None]
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
