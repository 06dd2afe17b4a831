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
from orbench.running.accounting import PhaseClock
from orbench.running.cpu_usage import UsageReading
from orbench.running.load_usage import LoadSampler
from orbench.running.session import TargetSession
from orbench.running.watchdog import Watchdog
from orbench.running.wire_reading import WireReading
from orbench.stats.stats import latency_summary, read_samples
from orbench.targets.descriptor import Target
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
    # A sweep step's offered rate, all clients together (running/sweep.py); None: the point's rate_hz per client.
    offered_rate_hz: float | None = None
    # The seed of Poisson send times (client k of a group takes seed + k); None: the workers draw their own.
    seed: int | None = None
    # Where the trial's seconds go (running/accounting.py); None: not counted.
    clock: PhaseClock | None = None

    @property
    def phases(self) -> PhaseClock:
        """The plan's clock, or one whose count nobody reads."""
        return self.clock if self.clock is not None else PhaseClock()

    @property
    def samples_record(self) -> str:
        return str(self.samples_file.relative_to(self.store_root))


# Per-call allowance for a trial's timeout on top of a fixed margin: far above any latency an ORB shows on
# loopback (tens of microseconds), so only a hang or a stall of seconds trips it.
TRIAL_TIMEOUT_BASE_S = 60.0
TRIAL_TIMEOUT_PER_CALL_S = 0.002
# After a lost connection, how long to wait for the server process to be seen dead before blaming it.
SERVER_DEATH_GRACE_S = 2.0


def total_rate_hz(point: Point, plan: TrialPlan) -> float:
    """What the trial's clients are asked to send in all, calls/s; 0: closed loop."""
    return plan.offered_rate_hz if plan.offered_rate_hz is not None else point.rate_hz * point.clients


def load_fields(point: Point, plan: TrialPlan, target: Target, processes: int = 1) -> dict[str, Any]:
    """The `run` fields of the point's load (harness/PROTOCOL.md, "Load" and "Load at scale") for each of
    `processes` client processes (their rates add up to the trial's), without "clients". A target without
    objects (a socket baseline) runs a point of K objects unchanged: it has no object keys to spread calls over."""
    out: dict[str, Any] = {}
    if point.shape != "in":
        out["shape"] = point.shape  # not a load field, but every run command of the point carries it
    rate = total_rate_hz(point, plan)
    if rate:
        out["rate_hz"] = rate / processes
        if point.arrivals != "fixed":
            out["arrivals"] = point.arrivals
            if plan.seed is not None:
                out["seed"] = plan.seed
    if point.clients_as == "threads" and point.clients > 1:
        out["threads"] = point.clients
    if point.objects > 1 and target.objects:
        out["objects"] = point.objects
        out["object_order"] = point.object_order
        if point.object_order == "random" and plan.seed is not None:
            out.setdefault("seed", plan.seed)
    return out


def jain_fairness(rates: list[float]) -> float | None:
    """Jain's fairness index of the clients' throughputs: 1 when all were served alike, 1/n when one got it all
    (Jain, Chiu and Hawe, "A Quantitative Measure of Fairness and Discrimination for Resource Allocation")."""
    if len(rates) < 2 or not any(rates):
        return None
    return round(sum(rates) ** 2 / (len(rates) * sum(r * r for r in rates)), 4)


def settle_ratio(samples: np.ndarray) -> float | None:
    """The mean latency of a trial's second half over its first's: about 1 when the queue had settled, above
    when it was still growing (an open loop past capacity grows without bound)."""
    half = samples.size // 2
    if half < 50:
        return None
    first = float(np.mean(samples[:half]))
    return round(float(np.mean(samples[half:])) / first, 4) if first > 0 else None


def trial_timeout_s(plan: TrialPlan, rate_hz: float, clients: int = 1) -> float:
    """How long one `run` may take: the margin, every call of every client (they share the CPUs), the
    barriers' timeout, and at a fixed rate the calls' schedule itself (`rate_hz` per client)."""
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


def fetched_samples(session: TargetSession, path: Path, store_path: Path, calls: int, k: int = 0) -> np.ndarray:
    """The samples of client worker k, copied back from its host when remote, checked against the contract."""
    try:
        session.runtime.collect_samples(path, store_path, k)
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


def jit_ms(line: dict[str, Any]) -> int | None:
    """The JIT compile time (ms) in a worker's line (PROTOCOL.md memory.jit_ms): a run answer's, over its timed
    calls; a server's stats line's, since it started. None for a worker without a JIT."""
    found = (line.get("memory") or {}).get("jit_ms")
    return None if found is None else int(found)


def jit_total(values: list[int | None]) -> int | None:
    """Several runs' or clients' jit_ms together; None where one did not say."""
    return None if not values or any(v is None for v in values) else sum(v for v in values if v is not None)


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


def local_client_pid(session: TargetSession) -> int | None:
    """The client's pid when it runs on this machine (wire_reading.py reads its sockets here), else None."""
    assert session.client is not None
    if session.client.via or not session.runtime.client_host.spec.is_local:
        return None
    pid = session.hello.get("pid") or session.client.pid
    return int(pid) if pid else None


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

    # The command timeout, not a shorter one: a JVM server on a busy remote host once took over 10 s to answer,
    # and failed a trial that the next one showed was no stall.
    def count() -> int | None:
        return int((server.stats() or {}).get("received", {}).get("messages", -1))

    return count


def local_warmup_s(client: ClientWorker, start_ns: Any, sent_ns: int) -> float | None:
    """Seconds from sending `run` to the first timed call, when the worker says when that was on this machine's
    monotonic clock (a local worker's start_ns); None otherwise."""
    if start_ns is None or client.via:
        return None
    return (int(start_ns) - sent_ns) / 1e9


def host_shell(host: Host) -> Shell:
    """Runs an anatomy script on the host, its output as text."""
    return lambda script: host.run_shell(script, check=False).stdout.decode(errors="replace")


def end_anatomy(anatomy: AnatomyReading, plan: TrialPlan, answer: dict[str, Any], threads: int = 1) -> dict[str, Any]:
    try:
        return anatomy.end(threads * (plan.calls + plan.warmup), threads * plan.calls, answer.get("memory"))
    except HostUnreachable as exc:
        raise WorkerError(f"cannot read the trial's anatomy: {exc}", "anatomy") from None
    except StraceError as exc:
        raise WorkerError(str(exc), "anatomy") from None


class ServiceReading:
    """A serial server's service-time moments over a trial (its `stats` answer's `service`, since it started,
    read before and after): what the queueing known answer needs (summary/queueing.py)."""

    def __init__(self, server: ServerWorker):
        self.server = server
        self.before = self._read()

    def _read(self) -> dict[str, float] | None:
        if not self.server.ready.get("worker", {}).get("serial"):
            return None
        return (self.server.stats() or {}).get("service")

    def fields(self) -> dict[str, float]:
        after = self._read() if self.before is not None else None
        if not after or not self.before:
            return {}
        n = float(after["requests"]) - float(self.before["requests"])
        if n <= 0:
            return {}
        return {"server_service_ns": round((float(after["busy_ns"]) - float(self.before["busy_ns"])) / n, 1),
                "server_service_sq_ns2": (float(after["busy_sq_ns2"]) - float(self.before["busy_sq_ns2"])) / n}


def start_load_sampler(session: TargetSession, clients: list[ClientWorker],
                       hellos: list[dict[str, Any]]) -> LoadSampler | None:
    """The trial's CPU and thread sampler (load_usage.py), for local workers only."""
    server = session.server
    assert server is not None
    if server.via or any(c.via for c in clients) or not server.ready.get("pid"):
        return None
    pids = [int(h.get("pid") or c.pid) for c, h in zip(clients, hellos)]
    return LoadSampler(int(server.ready["pid"]), pids)


def run_command(session: TargetSession, point: Point, plan: TrialPlan) -> dict[str, Any]:
    """The `run` command of the plan's calls at the point (harness/PROTOCOL.md, "run")."""
    return {"cmd": "run", "mode": point.mode, "payload_type": point.payload_type,
            "payload_bytes": point.payload_bytes, "calls": plan.calls, "warmup": plan.warmup,
            "samples_file": session.runtime.client_samples_path(plan.samples_file, plan.store_root),
            "sync_timeout_ms": plan.sync_timeout_ms, **load_fields(point, plan, session.target)}


def measure_single(session: TargetSession, point: Point, plan: TrialPlan) -> Measurement:
    """One trial of the target's one client (its calls on `threads` threads for a point of N clients as
    threads). Raises WorkerError for a dead or hung worker."""
    assert session.client is not None and session.server is not None
    threads = point.clients if point.clients_as == "threads" else 1
    command = run_command(session, point, plan)
    rate = total_rate_hz(point, plan)
    clock = plan.phases
    # The anatomy's reading first: its short commands are then outside the load window (on a remote host, where
    # orbench's processes are not told apart, they would read as other work).
    with clock.phase("anatomy"):
        anatomy = start_anatomy(session, plan)
        reading = UsageReading(session.runtime.usage_hosts())
        wire = WireReading(local_client_pid(session))
    watchdog = start_watchdog(session, [session.client], plan)
    with clock.phase("anatomy"):
        service = ServiceReading(session.server)
    sampler = start_load_sampler(session, [session.client], [session.hello])
    sent, sent_ns = time.perf_counter(), time.monotonic_ns()
    try:
        answer = session.client.call(command, timeout=trial_timeout_s(plan, rate / threads, threads),
                                     watch=[session.server], on_wait=watchdog.check if watchdog else None)
    finally:
        if sampler is not None:
            sampler.stop()
    round_trip = time.perf_counter() - sent
    # When the answer came back: the end of the timed calls to within the client's post-loop work (a
    # counters call and writing the samples file, ~1 ms), to place GC pauses on the per-call time line.
    trial_end_unix = time.time()
    with clock.phase("anatomy"):
        usage = reading.end()
        segs = wire.per_call(threads * (plan.calls + plan.warmup))
        anatomy_fields = (end_anatomy(anatomy, plan, answer, threads) if anatomy is not None and answer["ok"]
                          else {})
    failed = failed_answer(answer, session.server)
    if failed:
        return failed
    calls = plan.calls * threads
    elapsed = int(answer.get("elapsed_ns") or 0)
    clock.run_command(round_trip, elapsed, plan.warmup, plan.calls,
                      local_warmup_s(session.client, answer.get("start_ns"), sent_ns), clients=threads)
    with clock.phase("samples"):
        samples = fetched_samples(session, plan.samples_file, plan.store_root, calls)
        latency = latency_fields(samples)
    received = answer.get("received") or {}
    fields: dict[str, Any] = {
        "status": "ok", "calls": calls, "warmup": plan.warmup, "samples_file": plan.samples_record,
        **latency, "elapsed_ns": elapsed or None,
        "received_messages": received.get("messages"), "received_bytes": received.get("bytes"),
        "trial_end_unix": round(trial_end_unix, 4), **usage.as_fields(), "out_segs_per_call": segs,
        "client_jit_ms": jit_ms(answer),
    }
    if elapsed:
        fields["aggregate_calls_per_s"] = round(calls / elapsed * 1e9, 1)
    if threads > 1:
        thread_calls = tuple(int(n) for n in answer.get("thread_calls") or ())
        fields["client_calls"] = thread_calls or None
        fields["fairness"] = jain_fairness([float(n) for n in thread_calls])
    fields.update(service.fields())
    if sampler is not None:
        start = answer.get("start_ns")
        fields.update(sampler.fields(int(start) if start is not None else None,
                                     int(answer["end_ns"]) if answer.get("end_ns") is not None else None))
    if rate:
        fields["offered_rate_hz"] = round(rate, 3)
        fields["deadline_misses"] = answer.get("deadline_misses")
        fields["achieved_rate_hz"] = answer.get("achieved_rate_hz")
        fields["settle_ratio"] = settle_ratio(samples)
    if point.mode == "oneway":
        fields.update(oneway_fields(calls, int(received.get("messages") or 0), int(received.get("bytes") or 0),
                                    elapsed, bool((answer.get("sync") or {}).get("complete"))))
        if "warmup_sync" in answer:
            # Incomplete: late warm-up messages were counted as timed ones, and may have hidden loss.
            fields["warmup_sync_complete"] = bool(answer["warmup_sync"].get("complete"))
    return Measurement(**fields, **anatomy_fields)
