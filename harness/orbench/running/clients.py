"""Load: several clients against one server, and the fixed-rate mode (harness/PROTOCOL.md, "Load").

A point with N > 1 clients runs one trial as N client workers of the target (separate processes, each pinned
like the placement's one client: on a 2-CPU box the N clients share the client's CPU, and with same-core the
server's too), all connected to the one server. The harness resets the server's counters once through the
first client, then sends every client the same `run` with `"clients": N` at once; the workers' start barrier
(sync on N x warm-up) lines up their timed calls, their closing barrier (sync on N x (warm-up + calls)) waits
for everybody's messages. The trial's samples file is the clients' samples pooled: client 0's `calls`
samples, then client 1's, and so on, each in call order, so every reader of samples files works unchanged
and each client's share can still be cut out. The row keeps each client's p50 (`client_p50s_ns`).

Aggregate figures: the group's span is the earliest client's first timed call to the latest client's end
(each worker reports its CLOCK_MONOTONIC start and end, one clock on the host): `aggregate_calls_per_s` is
N x calls over it, and for oneway the receiver's throughput is the group's timed messages over it.

Clients spread over several hosts (campaign key spread_clients; client k on client host k mod H) each write
their samples on their own host, fetched back from there. Their monotonic clocks are not one clock, so the span
is then the longest of the hosts' own spans (each host's earliest start to its latest end): the start barrier
lines the clients' first timed calls up to within a round trip through the server, so it falls short of the
group's true span by at most that.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from orbench.errors import WorkerError
from orbench.results.point import Point
from orbench.results.trial import Measurement
from orbench.running.cpu_usage import UsageReading
from orbench.running.measure import (
    ServiceReading,
    TrialPlan,
    failed_answer,
    fetched_samples,
    jain_fairness,
    jit_ms,
    jit_total,
    latency_fields,
    load_fields,
    oneway_fields,
    settle_ratio,
    start_load_sampler,
    start_watchdog,
    total_rate_hz,
    trial_timeout_s,
)
from orbench.running.session import TargetSession


def measure_group(session: TargetSession, point: Point, plan: TrialPlan) -> Measurement:
    """One trial of N clients. Raises WorkerError like measure.measure_single: a dead or hung worker, a lost
    connection."""
    assert session.server is not None
    n, calls, warmup = point.clients, plan.calls, plan.warmup
    clock = plan.phases
    with clock.phase("workers"):  # extra clients start when a point first needs them
        clients = session.clients(n)
    server = session.server

    reset = clients[0].call({"cmd": "reset_counters"}, watch=[server])
    if not reset["ok"]:
        raise WorkerError(f"{session.target.name} client: reset_counters failed: {reset.get('error')}", "protocol")

    samples_file = plan.samples_file
    parts = [samples_file.with_name(f"{samples_file.stem}.client{k}.i64") for k in range(n)]
    load = load_fields(point, plan, session.target, processes=n)
    base = {"cmd": "run", "mode": point.mode, "payload_type": point.payload_type,
            "payload_bytes": point.payload_bytes, "calls": calls, "warmup": warmup,
            "sync_timeout_ms": plan.sync_timeout_ms, "clients": n, **load}
    rate = total_rate_hz(point, plan)
    timeout = trial_timeout_s(plan, rate / n, n)
    # One watchdog for the group: the server's reads and every client's writes and CPU time.
    watchdog = start_watchdog(session, clients, plan)

    def run(k: int) -> dict[str, Any]:
        command = {**base, "samples_file": session.runtime.client_samples_path(parts[k], plan.store_root, k)}
        if "seed" in load:
            command["seed"] = load["seed"] + k  # independent Poisson streams: their sum is Poisson at the total
        return clients[k].call(command, timeout=timeout, watch=[server],
                               on_wait=watchdog.check if watchdog else None)

    with clock.phase("anatomy"):
        reading = UsageReading(session.runtime.usage_hosts(n))
        service = ServiceReading(server)
    sampler = start_load_sampler(session, clients, session.hellos(n))
    sent, sent_ns = time.perf_counter(), time.monotonic_ns()
    try:
        with ThreadPoolExecutor(max_workers=n) as pool:
            futures = [pool.submit(run, k) for k in range(n)]
            results: list[dict[str, Any] | WorkerError] = []
            for f in futures:
                try:
                    results.append(f.result())
                except WorkerError as exc:
                    results.append(exc)
    finally:
        if sampler is not None:
            sampler.stop()
    round_trip = time.perf_counter() - sent
    with clock.phase("anatomy"):
        usage = reading.end()
    for k, r in enumerate(results):
        if isinstance(r, WorkerError):
            raise WorkerError(f"client {k} of {n}: {r}", r.kind)
    answers: list[dict[str, Any]] = results  # type: ignore[assignment]
    for k, a in enumerate(answers):
        failed = failed_answer(a, server, f"client {k} of {n}: ")
        if failed:
            return failed

    start_ns, end_ns = min(int(a["start_ns"]) for a in answers), max(int(a["end_ns"]) for a in answers)
    # Each client host's span on its own clock: throughput from the longest.
    span_ns = group_span_ns(answers, [session.runtime.client_host_of(k).name for k in range(n)])
    clock.run_command(round_trip, span_ns, warmup, calls,
                      None if any(c.via for c in clients) else (start_ns - sent_ns) / 1e9, clients=n)
    with clock.phase("samples"):
        per_client = fetch_all(session, parts, plan.store_root, calls)
        pooled = np.concatenate(per_client)
        pooled.astype("<i8").tofile(samples_file)
        for part in parts:
            part.unlink()
        latency = latency_fields(pooled)
    # After the closing barrier every client saw the group's totals; the largest is the latest view.
    total = max((a.get("received") or {}).get("messages", 0) for a in answers)
    total_bytes = max((a.get("received") or {}).get("bytes", 0) for a in answers)
    timed_msgs = total - n * warmup
    received_bytes = round(total_bytes * timed_msgs / total) if total else 0
    fields: dict[str, Any] = {
        "status": "ok", "calls": n * calls, "warmup": warmup, "samples_file": plan.samples_record,
        **latency, "elapsed_ns": span_ns,
        "received_messages": timed_msgs, "received_bytes": received_bytes,
        "client_p50s_ns": tuple(round(float(np.percentile(x, 50))) * 1.0 for x in per_client),
        "aggregate_calls_per_s": round(n * calls / span_ns * 1e9, 1) if span_ns > 0 else None,
        "start_barrier_complete": all(bool((a.get("start_barrier") or {}).get("complete")) for a in answers),
        "trial_end_unix": round(time.time(), 4), **usage.as_fields(),
        "client_jit_ms": jit_total([jit_ms(a) for a in answers]),
    }
    if point.mode == "oneway":
        fields.update(oneway_fields(n * calls, timed_msgs, received_bytes, span_ns,
                                    all(bool((a.get("sync") or {}).get("complete")) for a in answers)))
    # How evenly the server served them: each client's calls over its own span.
    fields["client_calls"] = tuple(calls for _ in answers)
    fields["fairness"] = jain_fairness([calls / max(1, int(a["end_ns"]) - int(a["start_ns"])) for a in answers])
    fields.update(service.fields())
    if sampler is not None:
        fields.update(sampler.fields(start_ns, end_ns))
    if rate:
        fields["offered_rate_hz"] = round(rate, 3)
        fields["deadline_misses"] = sum(int(a.get("deadline_misses") or 0) for a in answers)
        # The group's achieved rate: the clients' rates add up (each sends its own share).
        rates = [float(a["achieved_rate_hz"]) for a in answers if a.get("achieved_rate_hz")]
        fields["achieved_rate_hz"] = round(float(np.sum(rates)), 3) if rates else None
        fields["settle_ratio"] = settle_ratio(pooled)
    return Measurement(**fields)


def fetch_all(session: TargetSession, parts: list[Path], store_root: Path, calls: int) -> list[np.ndarray]:
    """Every client's samples (client k's from parts[k]), fetched back from their hosts: the hosts at once, a
    host's clients one after the other (each fetch is an SSH command, which a fleet pays per client)."""
    by_host: dict[str, list[int]] = {}
    for k in range(len(parts)):
        by_host.setdefault(session.runtime.client_host_of(k).name, []).append(k)
    out: list[np.ndarray] = [np.empty(0)] * len(parts)

    def fetch(ks: list[int]) -> None:
        for k in ks:
            out[k] = fetched_samples(session, parts[k], store_root, calls, k)

    if len(by_host) == 1:
        fetch(next(iter(by_host.values())))
        return out
    with ThreadPoolExecutor(max_workers=len(by_host)) as pool:
        for future in [pool.submit(fetch, ks) for ks in by_host.values()]:
            future.result()
    return out


def group_span_ns(answers: list[dict[str, Any]], hosts: list[str]) -> int:
    """The span of a group's timed calls: earliest start to latest end on each host's own clock (client k ran
    on hosts[k]), the longest of them when the clients ran on several hosts."""
    spans: dict[str, tuple[int, int]] = {}
    for a, host in zip(answers, hosts):
        start, end = int(a["start_ns"]), int(a["end_ns"])
        first, last = spans.get(host, (start, end))
        spans[host] = (min(first, start), max(last, end))
    return max(end - start for start, end in spans.values())
