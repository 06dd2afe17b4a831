"""A point's anatomy in summary.json: each per-call figure over its trials, the trial counters summed, the
traced trial's system calls, and for an ORB the CPU it adds over its baseline (paired trial by trial, like
ORB-added latency), so a reader sees whether the ORB's extra time is CPU work or waiting.

Each figure has the median of its per-trial values (what the report shows) and their mean with a Student-t 95%
interval (stats/intervals.py, as every interval of a run). Why both: a trial's figure averages all its calls,
so the one trial that carries a JVM's JIT compilation (the first at the run's first point, with the full warm-up)
or another process's burst pulls the mean and widens its interval, and the median of five trials does not move.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from orbench.anatomy.delta import parse_pairs
from orbench.results.trial import Trial
from orbench.stats import stats

# Per-call figures of a trial (trial.py), summarised over trials.
PER_CALL = ("client_cpu_us", "client_user_us", "client_sys_us", "server_cpu_us", "server_user_us", "server_sys_us",
            "client_vcsw", "client_ivcsw", "server_vcsw", "server_ivcsw", "client_reads", "client_writes",
            "server_reads", "server_writes", "client_recvs", "client_sends", "server_recvs", "server_sends",
            "wire_out_bytes", "wire_in_bytes", "wire_out_segs", "wire_in_segs",
            "client_allocs", "client_alloc_bytes", "client_thread_alloc_bytes", "server_allocs",
            "server_alloc_bytes")
# Per-call sums of two figures of a trial, summarised over trials like PER_CALL: every call a worker made to
# take bytes from its sockets (read family + recv family) and to give them (write family + send family). A trial
# without the send/recv counter (older runs, a worker without it) has none.
SUMS = {"client_reads_recvs": ("client_reads", "client_recvs"),
        "client_writes_sends": ("client_writes", "client_sends"),
        "server_reads_recvs": ("server_reads", "server_recvs"),
        "server_writes_sends": ("server_writes", "server_sends")}
# Counts over a whole trial, summed over the point's trials.
PER_TRIAL = ("tcp_retrans", "tcp_timeouts", "client_gc_count", "client_gc_ms", "server_gc_count", "server_gc_ms",
             "client_threads_ended", "server_threads_ended")


def _interval(values: list[float]) -> dict[str, Any]:
    ci = stats.trial_ci95(values) or {}
    return {"median": _round(float(np.median(values))), "mean": _round(ci.get("estimate")),
            "low": _round(ci.get("low")), "high": _round(ci.get("high")), "trials": len(values)}


def _round(x: float | None) -> float | None:
    return None if x is None else round(float(x), 4)


def summed(t: Trial, name: str) -> float | None:
    """A SUMS figure of one trial; None when either part is unknown."""
    a, b = (getattr(t, part) for part in SUMS[name])
    return None if a is None or b is None else a + b


def cpu_us(t: Trial) -> float | None:
    """Both workers' CPU per call: the point's CPU cost."""
    if t.client_cpu_us is None or t.server_cpu_us is None:
        return None
    return t.client_cpu_us + t.server_cpu_us


def anatomy_section(ok: list[Trial], traced: list[Trial]) -> dict[str, Any] | None:
    """The anatomy of one point from its ok trials (and its traced trial, in the anatomy mode); None when no
    trial measured any."""
    measured = [t for t in ok if t.anatomy_calls]
    traced_ok = [t for t in traced if t.ok and (t.client_syscalls or t.server_syscalls)]
    if not measured and not traced_ok:
        return None
    out: dict[str, Any] = {
        "per_call": "median and mean over trials, the mean's Student-t 95% interval; the kernel's counters over "
                    "warm-up and timed calls, the client's heap over timed calls",
    }
    for name in PER_CALL:
        values = [float(v) for t in measured if (v := getattr(t, name)) is not None]
        if values:
            out[name] = _interval(values)
    for name in SUMS:
        values = [float(v) for t in measured if (v := summed(t, name)) is not None]
        if values:
            out[name] = _interval(values)
    both = [c for t in measured if (c := cpu_us(t)) is not None]
    if both:
        out["cpu_us"] = _interval(both)
    for name in PER_TRIAL:
        values = [int(v) for t in measured if (v := getattr(t, name)) is not None]
        if values:
            out[name] = sum(values)
    events: Counter[str] = Counter()
    for t in measured:
        events.update({k: int(v) for k, v in parse_pairs(t.tcp_events).items()})
    out["tcp_events"] = dict(sorted(events.items()))
    if traced_ok:
        t = traced_ok[-1]
        out["syscalls"] = {"client": parse_pairs(t.client_syscalls), "client_total": t.client_syscalls_total,
                           "server": parse_pairs(t.server_syscalls), "server_total": t.server_syscalls_total,
                           "traced_p50_ns": t.p50_ns}
    return out


def orb_added_cpu(orb: list[Trial], baseline: list[Trial]) -> dict[str, Any] | None:
    """The CPU per call (both workers) an ORB adds over its baseline: the median of paired per-trial differences
    with its order-statistic 95% interval, exactly as ORB-added latency (stats.orb_added_latency) on CPU."""
    a = {(t.launch, t.trial): c for t in orb if t.ok and (c := cpu_us(t)) is not None}
    b = {(t.launch, t.trial): c for t in baseline if t.ok and (c := cpu_us(t)) is not None}
    added = stats.orb_added_latency(a, b)
    if added is None:
        return None
    return {"estimate": _round(added["estimate"]), "ci95_low": _round(added["ci95_low"]),
            "ci95_high": _round(added["ci95_high"]), "pairs": added["pairs"], "method": added["ci_method"],
            "unit": "us per call"}
