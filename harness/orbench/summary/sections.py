"""summary.json's sections for the load dimensions (N clients, fixed rate: running/clients.py) and for interop
pairs (campaign/interop.py), from a point's trials only."""

from __future__ import annotations

from typing import Any

import numpy as np

from orbench.results.point import Point, interop_sides
from orbench.results.trial import Trial


def load_section(ok: list[Trial], clients: int, rate_hz: float) -> dict[str, Any]:
    """`load` (every point: clients, aggregate calls/s; per-client p50s when N > 1) and `rate` (fixed-rate
    points: deadline misses and the achieved rate) for one point's successful trials."""
    load: dict[str, Any] = {"clients": clients}
    aggregate = [t.aggregate_calls_per_s for t in ok if t.aggregate_calls_per_s is not None]
    load["aggregate_calls_per_s"] = float(np.mean(aggregate)) if aggregate else None
    if clients > 1:
        load["client_p50s_ns"] = [list(t.client_p50s_ns) for t in ok if t.client_p50s_ns]
        load["start_barrier_incomplete_trials"] = sum(1 for t in ok if t.start_barrier_complete is False)
    out: dict[str, Any] = {"load": load}
    if rate_hz:
        calls = sum(t.calls or 0 for t in ok)
        misses = sum(t.deadline_misses or 0 for t in ok)
        achieved = [t.achieved_rate_hz for t in ok if t.achieved_rate_hz is not None]
        out["rate"] = {"rate_hz": rate_hz, "deadline_misses": misses, "calls": calls,
                       "deadline_miss_pct": misses / calls * 100 if calls else None,
                       "achieved_rate_hz": float(np.mean(achieved)) if achieved else None,
                       "definition": "a call misses its deadline when it completes after the next call's intended "
                                     "send time (its latency from its own intended send time exceeds 1/rate)"}
    return out


def add_interop_comparison(entries: dict[Point, dict[str, Any]]) -> None:
    """Beside each interop point (target "client->server"), the p50 of the two homogeneous pairs in the same
    point group of the same run: the meaningful reference for a cross-ORB call (campaign/interop.py says
    why not a baseline)."""
    p50 = {p: (e.get("latency_ns") or {}).get("p50") for p, e in entries.items()}
    for point, entry in entries.items():
        names = interop_sides(point.target)
        if names is None:
            continue
        client, server = names
        mine = p50[point]
        section: dict[str, Any] = {"client_target": client, "server_target": server}
        for role, name in (("client", client), ("server", server)):
            same = p50.get(point.group.with_target(name))
            section[f"{role}_pair_p50_ns"] = same
            section[f"minus_{role}_pair_p50_ns"] = None if same is None or mine is None else mine - same
        entry["interop"] = section
