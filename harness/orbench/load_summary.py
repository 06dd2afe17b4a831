"""summary.json's load and interop sections (load.py, interop.py), from trials.csv rows only."""

from __future__ import annotations

from typing import Any

import numpy as np

from orbench.interop import split_label


def _floats(rows: list[dict], key: str) -> list[float]:
    return [float(r[key]) for r in rows if r.get(key) not in ("", None)]


def load_section(ok: list[dict], clients: int, rate_hz: float) -> dict[str, Any]:
    """`load` (every point: clients, aggregate calls/s; per-client p50s when N > 1) and `rate` (fixed-rate
    points: deadline misses and the achieved rate) for one point's successful trials."""
    load: dict[str, Any] = {"clients": clients}
    aggregate = _floats(ok, "aggregate_calls_per_s")
    load["aggregate_calls_per_s"] = float(np.mean(aggregate)) if aggregate else None
    if clients > 1:
        load["client_p50s_ns"] = [[float(v) for v in r["client_p50s_ns"].split(";")]
                                  for r in ok if r.get("client_p50s_ns")]
        incomplete = sum(1 for r in ok if r.get("start_barrier_complete") == "False")
        load["start_barrier_incomplete_trials"] = incomplete
    out: dict[str, Any] = {"load": load}
    if rate_hz:
        calls = sum(int(r["calls"]) for r in ok)
        misses = sum(int(r["deadline_misses"] or 0) for r in ok)
        achieved = _floats(ok, "achieved_rate_hz")
        out["rate"] = {"rate_hz": rate_hz, "deadline_misses": misses, "calls": calls,
                       "deadline_miss_pct": misses / calls * 100 if calls else None,
                       "achieved_rate_hz": float(np.mean(achieved)) if achieved else None,
                       "definition": "a call misses its deadline when it completes after the next call's intended "
                                     "send time (its latency from its own intended send time exceeds 1/rate)"}
    return out


def add_interop_comparison(points: list[dict]) -> None:
    """Beside each interop point (target "client->server"), the p50 of the two homogeneous pairs at the same
    point of the same run: the meaningful reference for a cross-ORB call (interop.py says why not a baseline)."""
    def where(p: dict) -> tuple:
        return (p["host_pair"], p["placement"], p["mode"], p["payload_type"], p["payload_bytes"], p["clients"],
                p["rate_hz"], p.get("options", ""))

    p50 = {where(p) + (p["target"],): (p.get("latency_ns") or {}).get("p50") for p in points}
    for p in points:
        names = split_label(p["target"])
        if names is None:
            continue
        client, server = names
        mine = (p.get("latency_ns") or {}).get("p50")
        section: dict[str, Any] = {"client_target": client, "server_target": server}
        for role, name in (("client", client), ("server", server)):
            same = p50.get(where(p) + (name,))
            section[f"{role}_pair_p50_ns"] = same
            section[f"minus_{role}_pair_p50_ns"] = None if same is None or mine is None else mine - same
        p["interop"] = section
