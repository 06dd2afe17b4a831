"""One trial of one client: send `run`, check the answer and the samples, and turn them into a trials.csv row.

The pieces (answer check, samples check, latency and oneway fields) are shared with load.measure_group,
which runs N clients at once; a row means the same whichever of the two made it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from orbench.anatomy.reading import AnatomyReading, Workers
from orbench.anatomy.snapshot import Shell
from orbench.anatomy.strace import StraceError
from orbench.errors import WorkerError
from orbench.hosts.ssh import Host, HostUnreachable
from orbench.results.point import Point
from orbench.results.trial import Measurement
from orbench.running.cpu_usage import UsageReading
from orbench.running.session import TargetSession
from orbench.running.watchdog import Watchdog
from orbench.stats.stats import latency_summary, read_samples
from orbench.targets.workers import ClientWorker, ServerWorker


@dataclass(frozen=True)
class TrialPlan:
    """What one trial runs, besides its point: the campaign's call counts and barrier timeout, and where its
    samples go in the results store."""

    calls: int             # timed calls per client
    warmup: int            # untimed calls per client first
    sync_timeout_ms: int
    samples_file: Path     # the trial's samples file in the store
    store_root: Path       # the run directory (samples_file is recorded relative to it)
    # What the trial's anatomy reads (orbench.anatomy): "counters" (the kernel's counters and the workers' heap
    # counters around the `run` command), "traced" (the same with strace attached: the anatomy mode's extra
    # trial), "off" (nothing).
    anatomy: str = "counters"
    # The progress watchdog's bound (running/watchdog.py, campaign key stall_timeout_s); 0: none.
    stall_timeout_s: float = 0.0

    @property
    def samples_record(self) -> str:
        return str(self.samples_file.relative_to(self.store_root))


# Per-call allowance for a trial's timeout on top of a fixed margin: far above any latency an ORB shows on
# loopback (tens of microseconds), so only a hang or a stall of seconds trips it.
TRIAL_TIMEOUT_BASE_S = 60.0
TRIAL_TIMEOUT_PER_CALL_S = 0.002
# After a lost connection, how long to wait for the server process to be seen dead before blaming it.
SERVER_DEATH_GRACE_S = 2.0


def trial_timeout_s(plan: TrialPlan, rate_hz: float, clients: int = 1) -> float:
    """How long one `run` may take: the margin, every call of every client (they share the CPUs), the
    barriers' timeout, and at a fixed rate the calls' schedule itself."""
    paced = plan.calls / rate_hz if rate_hz else 0.0
    return (TRIAL_TIMEOUT_BASE_S + clients * (plan.calls + plan.warmup) * TRIAL_TIMEOUT_PER_CALL_S
            + plan.sync_timeout_ms / 1000 * (2 if clients > 1 else 1) + paced)


def failed_answer(answer: dict[str, Any], server: ServerWorker, who: str = "") -> Measurement | None:
    """None for an ok answer. A lost connection or a dead server raises WorkerError (the runner restarts the
    target); any other error answer fails only this trial, with the reason."""
    if answer["ok"]:
        return None
    why = f"{who}{answer.get('error_kind')}: {answer.get('error')}"
    if answer.get("error_kind") in ("transport", "remote", "internal") or not server.alive():
        # A lost connection usually means a dead server: say so, with its exit, when it is.
        dead = server.dead_within(SERVER_DEATH_GRACE_S)
        raise WorkerError(why + (f"; {server.death()}" if dead else ""))
    return Measurement(status="failed", error=why)


def fetched_samples(session: TargetSession, path: Path, store_path: Path, calls: int) -> np.ndarray:
    """The samples of one client, copied back from its host when remote, checked against the contract."""
    try:
        session.runtime.collect_samples(path, store_path)
    except (HostUnreachable, RuntimeError) as exc:
        raise WorkerError(f"cannot copy the samples of {path.name} back: {exc}", "samples") from None
    samples = read_samples(path)
    if samples.size != calls:
        raise WorkerError(f"samples file {path.name} holds {samples.size} samples, expected {calls}", "protocol")
    if (samples <= 0).any():
        raise WorkerError(f"samples file {path.name} has non-positive latencies", "protocol")
    return samples


def latency_fields(samples: np.ndarray) -> dict[str, Any]:
    lat = latency_summary(samples)
    return {"p50_ns": lat["p50"], "p90_ns": lat["p90"], "p99_ns": lat["p99"], "min_ns": lat["min"],
            "max_ns": lat["max"], "mean_ns": round(lat["mean"], 1)}


def oneway_fields(calls: int, messages: int, payload_bytes: int, span_ns: int, sync_complete: bool) -> dict:
    """Loss and the receiver's throughput: what the server counted, from the first timed call to the barrier."""
    out: dict[str, Any] = {"lost_messages": calls - messages, "sync_complete": sync_complete}
    if span_ns > 0:
        out["throughput_msgs_per_s"] = round(messages / span_ns * 1e9, 1)
        out["throughput_mb_per_s"] = round(payload_bytes / span_ns * 1e3, 3)
    return out


def start_anatomy(session: TargetSession, plan: TrialPlan) -> AnatomyReading | None:
    """The trial's anatomy reading, started just before its `run` command; None when the plan says off or the
    client's pid on its host is unknown (a worker that does not send it in hello, behind SSH)."""
    assert session.client is not None and session.server is not None
    client_pid = session.hello.get("pid") or (None if session.client.via else session.client.pid)
    server_pid = session.server.ready.get("pid")
    if plan.anatomy == "off" or not client_pid or not server_pid:
        return None
    runtime = session.runtime
    workers = Workers(int(client_pid), int(server_pid), host_shell(runtime.client_host),
                      host_shell(runtime.server_host), runtime.client_host.name == runtime.server_host.name,
                      runtime.client_host.spec.is_local, runtime.server_host.spec.is_local)
    trace_dirs = (runtime.scratch_dir("client"), runtime.scratch_dir("server")) if plan.anatomy == "traced" else None
    try:
        return AnatomyReading(workers, session.server.stats, trace_dirs)
    except HostUnreachable as exc:
        raise WorkerError(f"cannot read the trial's anatomy: {exc}", "anatomy") from None
    except StraceError as exc:
        raise WorkerError(str(exc), "anatomy") from None


def start_watchdog(session: TargetSession, clients: list[ClientWorker], plan: TrialPlan) -> Watchdog | None:
    """The trial's progress watchdog (watchdog.py), or None when the plan has none, or when the server's stats
    do not count messages and a client is remote (nothing left to read)."""
    server = session.server
    assert server is not None
    if plan.stall_timeout_s <= 0:
        return None
    # The workers' own pids (a wrapper such as taskset execs them, so the process's pid is the worker's too).
    client_pids = [int(session.hello.get("pid") or c.pid) if c is session.client else c.pid for c in clients
                   if not c.via]
    counts = server_count(server)
    if counts is None and len(client_pids) < len(clients):
        return None
    return Watchdog(counts, client_pids, plan.stall_timeout_s, len(clients) * plan.calls, len(clients) * plan.warmup)


def server_count(server: ServerWorker) -> Callable[[], int | None] | None:
    """How many messages the server counted since the last reset, from its stats answer; None when its stats
    do not carry `received` (an older worker)."""
    if server.counts_received is None and server.answers_stats:
        server.stats()  # once per server (the anatomy's reading usually asked already)
    if not server.counts_received:
        return None

    def count() -> int | None:
        return int((server.stats(timeout=10.0) or {}).get("received", {}).get("messages", -1))

    return count


def host_shell(host: Host) -> Shell:
    """Runs an anatomy script on the host, its output as text."""
    return lambda script: host.run_shell(script, check=False).stdout.decode(errors="replace")


def end_anatomy(anatomy: AnatomyReading, plan: TrialPlan, answer: dict[str, Any]) -> dict[str, Any]:
    try:
        return anatomy.end(plan.calls + plan.warmup, plan.calls, answer.get("memory"))
    except HostUnreachable as exc:
        raise WorkerError(f"cannot read the trial's anatomy: {exc}", "anatomy") from None
    except StraceError as exc:
        raise WorkerError(str(exc), "anatomy") from None


def measure_single(session: TargetSession, point: Point, plan: TrialPlan) -> Measurement:
    """One trial of the target's one client. Raises WorkerError for a dead or hung worker."""
    assert session.client is not None and session.server is not None
    command = {"cmd": "run", "mode": point.mode, "payload_type": point.payload_type,
               "payload_bytes": point.payload_bytes, "calls": plan.calls, "warmup": plan.warmup,
               "samples_file": session.runtime.client_samples_path(plan.samples_file, plan.store_root),
               "sync_timeout_ms": plan.sync_timeout_ms}
    if point.rate_hz:
        command["rate_hz"] = point.rate_hz
    # The anatomy's reading first: its short commands are then outside the load window (on a remote host, where
    # orbench's processes are not told apart, they would read as other work).
    anatomy = start_anatomy(session, plan)
    reading = UsageReading(session.runtime.usage_hosts())
    watchdog = start_watchdog(session, [session.client], plan)
    answer = session.client.call(command, timeout=trial_timeout_s(plan, point.rate_hz), watch=[session.server],
                                 on_wait=watchdog.check if watchdog else None)
    # When the answer came back: the end of the timed calls to within the client's post-loop work (a
    # counters call and writing the samples file, ~1 ms), to place GC pauses on the per-call time line.
    trial_end_unix = time.time()
    usage = reading.end()
    anatomy_fields = end_anatomy(anatomy, plan, answer) if anatomy is not None and answer["ok"] else {}
    failed = failed_answer(answer, session.server)
    if failed:
        return failed
    samples = fetched_samples(session, plan.samples_file, plan.store_root, plan.calls)
    received = answer.get("received") or {}
    elapsed = int(answer.get("elapsed_ns") or 0)
    fields: dict[str, Any] = {
        "status": "ok", "calls": plan.calls, "warmup": plan.warmup, "samples_file": plan.samples_record,
        **latency_fields(samples), "elapsed_ns": elapsed or None,
        "received_messages": received.get("messages"), "received_bytes": received.get("bytes"),
        "trial_end_unix": round(trial_end_unix, 4), **usage.as_fields(),
    }
    if elapsed:
        fields["aggregate_calls_per_s"] = round(plan.calls / elapsed * 1e9, 1)
    if point.rate_hz:
        fields["deadline_misses"] = answer.get("deadline_misses")
        fields["achieved_rate_hz"] = answer.get("achieved_rate_hz")
    if point.mode == "oneway":
        fields.update(oneway_fields(plan.calls, int(received.get("messages") or 0), int(received.get("bytes") or 0),
                                    elapsed, bool((answer.get("sync") or {}).get("complete"))))
        if "warmup_sync" in answer:
            # Incomplete: late warm-up messages were counted as timed ones, and may have hidden loss.
            fields["warmup_sync_complete"] = bool(answer["warmup_sync"].get("complete"))
    return Measurement(**fields, **anatomy_fields)
