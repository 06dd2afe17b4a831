"""One soak of one target on this machine: its server and N clients, a `run` with a duration, every interval
written the moment it arrives.

What it writes in the run directory (harness/campaigns/README.md, "Soak runs"):
- soak/client-<k>.hlog: client k's HdrHistogram interval log;
- soak/intervals.jsonl: one line per client and interval (the worker's fields without the buckets);
- soak/resources.jsonl: per interval, the resident memory and CPU time of the harness, the server and every
  client, read from /proc here (the workers' own rss_bytes are in intervals.jsonl too);
- soak/gaps.jsonl: per resume, the gap between the last interval kept and the restart;
- manifest.json: the settings, the workers, the environment, and at the end the answers and the status.
A Ctrl-C, a crash or a dead worker loses at most the interval that was open; --resume runs the rest.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import IO, Any

from orbench import __version__
from orbench.errors import UserError, WorkerError
from orbench.hosts.environment import collect_environment
from orbench.hosts.placement import resolve
from orbench.hosts.readiness import unavailable_reason
from orbench.results.store import RunStore
from orbench.running.soak.intervals import IntervalLog, keep_intervals
from orbench.running.soak.procstats import ProcessSample, sample
from orbench.targets.descriptor import Target
from orbench.targets.workers import ClientWorker, ServerWorker

# How long to wait for the next line of a soak beyond one interval: the warm-up before the first, a loaded
# machine after that.
LINE_MARGIN_S = 120.0
DEFAULT_WARMUP = {"java": 10000, "c++": 1000}


@dataclass(frozen=True)
class SoakSettings:
    duration_s: float
    interval_s: float = 10.0
    rate_hz: float = 0.0            # 0: closed loop
    arrivals: str = "fixed"          # or "poisson" (with a rate)
    clients: int = 1
    mode: str = "twoway"
    payload_type: str = "octets"
    payload_bytes: int = 64
    warmup: int | None = None        # None: 1000 calls for C++ targets, 10000 for Java (JIT)
    placement: str = "same-core"
    host: str = "127.0.0.1"
    seed: int | None = None          # Poisson: client k gets seed + k

    def check(self, target: Target) -> None:
        if not self.interval_s <= self.duration_s:
            raise UserError(f"soak interval {self.interval_s:g} s is longer than the duration {self.duration_s:g} s")
        if self.arrivals not in ("fixed", "poisson"):
            raise UserError(f"soak arrivals {self.arrivals!r}: use 'fixed' or 'poisson'")
        if self.arrivals == "poisson" and self.rate_hz <= 0:
            raise UserError("soak arrivals 'poisson' needs a rate above 0")
        if self.clients < 1:
            raise UserError(f"soak clients {self.clients}: at least 1")
        if self.mode not in target.modes:
            raise UserError(f"target {target.name} has no mode {self.mode!r} (it has {', '.join(target.modes)})")
        if self.mode == "oneway" and self.clients > 1:
            raise UserError("a oneway soak takes one client (harness/PROTOCOL.md, \"Soak runs\")")


def _process_json(s: ProcessSample | None) -> dict | None:
    return None if s is None else {"rss_bytes": s.rss_bytes, "cpu_ns": s.cpu_ns}


class _Recorder:
    """Where the clients' events go, from their reader threads: the logs and the resources, under one lock."""

    def __init__(self, store: RunStore, target: Target, clients: list[ClientWorker], server: ServerWorker,
                 progress: Callable[[str], None], start_unix: float, index_offset: int = 0):
        self.dir = store.path / "soak"
        self.dir.mkdir(exist_ok=True)
        self.server = server
        self.clients = clients
        self.progress = progress
        self.lock = threading.Lock()
        # A resumed soak's workers count intervals from 0 again: their events are numbered on from the last
        # interval kept, and their logs' time stamps count from the soak's first start.
        self.index_offset = index_offset
        self.time_offset_s = time.time() - start_unix
        self.logs = [IntervalLog(self.dir / f"client-{k}.hlog", start_unix, f"orbench soak {target.name} client {k}")
                     for k in range(len(clients))]
        self.t0: dict[int, int] = {}
        self.intervals: IO[str] = open(self.dir / "intervals.jsonl", "a")
        self.resources: IO[str] = open(self.dir / "resources.jsonl", "a")
        self.sampled: set[int] = set()

    def on_event(self, k: int, event: dict[str, Any]) -> None:
        with self.lock:
            t0 = self.t0.setdefault(k, event["start_ns"] - event["index"] * (event["end_ns"] - event["start_ns"]))
            self.logs[k].write(event, t0, self.time_offset_s if self.index_offset else 0.0)
            event = {**event, "index": event["index"] + self.index_offset}
            row = {"client": k, **{key: v for key, v in event.items() if key not in ("buckets", "event", "id")},
                   "wall_time": time.time()}
            self.intervals.write(json.dumps(row) + "\n")
            self.intervals.flush()
            if event["index"] not in self.sampled:
                # The first client to close interval i: sample every process once for it.
                self.sampled.add(event["index"])
                line = {"index": event["index"], "wall_time": time.time(),
                        "harness": _process_json(sample("self")),
                        "server": _process_json(sample(self.server.pid)),
                        "clients": [_process_json(sample(c.pid)) for c in self.clients]}
                self.resources.write(json.dumps(line) + "\n")
                self.resources.flush()
            if k == 0:
                self.progress(f"interval {event['index']}: {event['calls']} calls, p50 "
                              f"{event['p50_ns'] / 1000:.1f} us, p99.9 {event['p999_ns'] / 1000:.1f} us, "
                              f"max {event['max_ns'] / 1000:.1f} us, misses {event['deadline_misses']}")

    def close(self) -> None:
        for log in self.logs:
            log.close()
        self.intervals.close()
        self.resources.close()


def _run_command(settings: SoakSettings, target: Target, k: int, seed: int | None) -> dict[str, Any]:
    command: dict[str, Any] = {
        "cmd": "run", "mode": settings.mode, "payload_type": settings.payload_type,
        "payload_bytes": settings.payload_bytes,
        "warmup": settings.warmup if settings.warmup is not None else DEFAULT_WARMUP.get(target.language, 1000),
        "duration_s": settings.duration_s, "interval_s": settings.interval_s, "sync_timeout_ms": 30000}
    if settings.rate_hz > 0:
        command["rate_hz"] = settings.rate_hz
        command["arrivals"] = settings.arrivals
        if seed is not None:
            command["seed"] = seed + k
    if settings.clients > 1:
        command["clients"] = settings.clients
    return command


def settings_of(manifest: dict) -> SoakSettings:
    """The settings a soak run was started with (for --resume)."""
    fields = {k: v for k, v in manifest["soak"].items() if k in SoakSettings.__dataclass_fields__}
    return SoakSettings(**fields)


def intervals_done(store: RunStore, clients: int) -> int:
    """How many intervals every client has written, from the first on without a hole."""
    seen: dict[int, set[int]] = {k: set() for k in range(clients)}
    for r in read_jsonl(store.path / "soak" / "intervals.jsonl"):
        seen.setdefault(r["client"], set()).add(r["index"])
    done = 0
    while all(done in indices for indices in seen.values()):
        done += 1
    return done


def _cut_after(store: RunStore, done: int, clients: int) -> float | None:
    """Keep the first `done` intervals of every file (the open one, and any a client wrote past the others,
    are redone); returns the wall time of the last interval kept."""
    soak_dir = store.path / "soak"
    last = None
    for name in ("intervals.jsonl", "resources.jsonl"):
        rows = [r for r in read_jsonl(soak_dir / name) if r["index"] < done]
        tmp = soak_dir / (name + ".tmp")
        tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
        tmp.replace(soak_dir / name)
        if name == "intervals.jsonl" and rows:
            last = max(r["wall_time"] for r in rows)
    for k in range(clients):
        keep_intervals(soak_dir / f"client-{k}.hlog", done)
    return last


def run_soak(store: RunStore, target: Target, settings: SoakSettings, argv: list[str],
             progress: Callable[[str], None], resume: bool = False) -> dict[str, Any]:
    """Runs the soak and returns the manifest as written at the end. Raises KeyboardInterrupt after stopping
    the workers and marking the manifest 'interrupted' (what was written is kept).

    With `resume`, `store` is a soak that stopped early: its intervals up to the first one some client did not
    finish are kept, the rest of the duration runs on fresh workers, its intervals numbered on, and the gap
    between is recorded (soak/gaps.jsonl, the manifest's `resumed`)."""
    why = unavailable_reason(target)
    if why:
        raise UserError(f"target {target.name} is not available: {why}")
    settings.check(target)
    placement = resolve(settings.placement)
    done = 0
    if resume:
        manifest = store.read_manifest()
        manifest.pop("schema_version", None)
        seed = manifest["soak"].get("seed")
        done = intervals_done(store, settings.clients)
        left = settings.duration_s - done * settings.interval_s
        if left <= 1e-9:
            raise UserError(f"{store.path}: the soak has all its {done} intervals; nothing to resume")
        last_wall = _cut_after(store, done, settings.clients)
        now = time.time()
        gap = {"after_index": done - 1, "from_wall": last_wall, "to_wall": now,
               "seconds": None if last_wall is None else round(now - last_wall, 3)}
        with open(store.path / "soak" / "gaps.jsonl", "a") as f:
            f.write(json.dumps(gap) + "\n")
        manifest.setdefault("resumed", []).append({
            "at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "command": argv, "intervals_kept": done,
            "gap_s": gap["seconds"], "status_before": manifest.get("status"),
            "answers_before": manifest.pop("answers", None), "failures_before": manifest.pop("failures", None)})
        manifest["status"] = "running"
        start_unix = manifest["soak_start_unix"]
        run_settings = replace(settings, duration_s=left, interval_s=min(settings.interval_s, left))
        if seed is not None:
            seed += 1_000_003 * len(manifest["resumed"])  # new arrivals, not a replay of the first ones
    else:
        seed = settings.seed
        if settings.arrivals == "poisson" and seed is None:
            seed = random.getrandbits(62)
        start_unix = time.time()
        manifest = {
            "orbench_version": __version__, "kind": "soak", "run_id": store.run_id, "command": argv,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "status": "running",
            "soak": {**asdict(settings), "seed": seed, "target": target.name}, "soak_start_unix": start_unix,
            "placement": placement.as_dict(),
            "targets": {target.name: {"kind": target.kind, "language": target.language,
                                      "description": target.description}},
            "environment": collect_environment(target.java if target.is_jvm else None),
        }
        run_settings = settings
    store.write_manifest(manifest)
    starts = 1 + len(manifest.get("resumed", []))
    gc_log = str(store.logs_dir / f"{target.name}-%s-gc-{starts}.log")
    server = ServerWorker(target.name, placement.prefix("server") + target.server_command(
        settings.host, 0, gc_log=gc_log % "server"), store.logs_dir / f"{target.name}-server.log")
    clients: list[ClientWorker] = []
    recorder: _Recorder | None = None
    answers: dict[int, dict] = {}
    try:
        for k in range(settings.clients):
            client = ClientWorker(target.name, placement.prefix("client") + target.client_command(
                gc_log=gc_log % f"client-{k}"), store.logs_dir / f"{target.name}-client-{k}.log")
            clients.append(client)
            hello = client.call({"cmd": "hello"}, watch=[server])
            connect = client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}}, watch=[server])
            if not (hello["ok"] and connect["ok"]):
                raise WorkerError(f"{target.name} client {k}: {hello.get('error') or connect.get('error')}")
            if k == 0:
                manifest["targets"][target.name]["workers"] = {"server": server.ready.get("worker"),
                                                               "client": hello.get("worker"),
                                                               "timer": hello.get("timer")}
        if settings.clients > 1:
            clients[0].call({"cmd": "reset_counters"}, watch=[server])
        recorder = _Recorder(store, target, clients, server, progress, start_unix, done)
        line_timeout = settings.interval_s + LINE_MARGIN_S
        errors: dict[int, BaseException] = {}

        def drive(k: int) -> None:
            try:
                answers[k] = clients[k].call(_run_command(run_settings, target, k, seed), timeout=line_timeout,
                                             watch=[server], on_event=lambda e: recorder.on_event(k, e))
            except BaseException as exc:  # noqa: BLE001 - reported by the main thread
                errors[k] = exc

        threads = [threading.Thread(target=drive, args=(k,), daemon=True, name=f"soak-client-{k}")
                   for k in range(settings.clients)]
        for t in threads:
            t.start()
        for t in threads:
            while t.is_alive():
                t.join(timeout=0.5)
        failed = {k: str(e) for k, e in errors.items()}
        failed.update({k: f"{a.get('error_kind')}: {a.get('error')}" for k, a in answers.items() if not a["ok"]})
        manifest["answers"] = {str(k): a for k, a in sorted(answers.items())}
        manifest["status"] = "failed" if failed else "finished"
        if failed:
            manifest["failures"] = {str(k): why for k, why in failed.items()}
    except KeyboardInterrupt:
        manifest["status"] = "interrupted"
        raise
    except WorkerError as exc:
        manifest["status"] = "failed"
        manifest["failures"] = {"setup": str(exc)}
    finally:
        for c in clients:
            c.stop(grace=2.0)
        server.stop(grace=2.0)
        if recorder is not None:
            recorder.close()
        manifest["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        manifest["environment_at_end"] = {"load": {"loadavg": list(os.getloadavg())}}
        store.write_manifest(manifest)
    return manifest


def read_jsonl(path: os.PathLike) -> list[dict]:
    """The lines of a soak's .jsonl file; a last line cut by a crash is left out."""
    rows = []
    try:
        with open(path) as f:
            for line in f:
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    break
    except FileNotFoundError:
        return []
    return rows
