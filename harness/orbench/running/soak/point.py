"""One soak point, run by the Runner on the workers it started for the host pair: the point's clients sent `run`
with a duration, every interval written the moment it arrives (results/soak.py lists the files), the workers'
memory and CPU read on their hosts once per interval. A Ctrl-C, a crash or a dead worker loses at most the
interval that was open; a resumed run keeps the intervals written and runs the rest of the duration.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from orbench.errors import WorkerError
from orbench.results.soak import SoakRecord, read_jsonl
from orbench.running.session import TargetSession
from orbench.running.soak.intervals import IntervalLog, keep_intervals
from orbench.running.soak.resources import Resources
from orbench.targets.workers import ClientWorker

# How long to wait for the next line of a soak beyond one interval: the warm-up before the first, a loaded
# machine after that.
LINE_MARGIN_S = 120.0
# A resumed soak's Poisson seeds move on by this per resume: new arrivals, not a replay of the first ones.
RESUME_SEED_STEP = 1_000_003


class _Recorder:
    """Where the clients' events go, from their reader threads: the logs and the resources, under one lock."""

    def __init__(self, folder: Path, record: SoakRecord, resources: Resources, clients: int,
                 note: Callable[[str], None], index_offset: int):
        self.note = note
        self.resources = resources
        self.lock = threading.Lock()
        # A resumed soak's workers count intervals from 0 again: their events are numbered on from the last
        # interval kept, and their logs' time stamps count from the soak's first start.
        self.index_offset = index_offset
        self.time_offset_s = time.time() - record.start_unix if index_offset else 0.0
        self.logs = [IntervalLog(folder / f"client-{k}.hlog", record.start_unix,
                                 f"orbench soak {record.point.label} client {k}") for k in range(clients)]
        self.t0: dict[int, int] = {}
        self.intervals: IO[str] = open(folder / "intervals.jsonl", "a")
        self.resource_lines: IO[str] = open(folder / "resources.jsonl", "a")
        self.sampled: set[int] = set()

    def on_event(self, k: int, event: dict[str, Any]) -> None:
        with self.lock:
            t0 = self.t0.setdefault(k, event["start_ns"] - event["index"] * (event["end_ns"] - event["start_ns"]))
            self.logs[k].write(event, t0, self.time_offset_s)
            event = {**event, "index": event["index"] + self.index_offset}
            row = {"client": k, **{key: v for key, v in event.items() if key not in ("buckets", "event", "id")},
                   "wall_time": time.time()}
            self.intervals.write(json.dumps(row) + "\n")
            self.intervals.flush()
            if event["index"] not in self.sampled:
                # The first client to close interval i: every process is read once for it, on its host.
                self.sampled.add(event["index"])
                line = {"index": event["index"], "wall_time": time.time(), **self.resources.read()}
                self.resource_lines.write(json.dumps(line) + "\n")
                self.resource_lines.flush()
            if k == 0:
                self.note(f"interval {event['index']}: {event['calls']} calls, p50 {event['p50_ns'] / 1000:.1f} us, "
                          f"p99.9 {event['p999_ns'] / 1000:.1f} us, max {event['max_ns'] / 1000:.1f} us, "
                          f"misses {event.get('deadline_misses', '-')}")

    def close(self) -> None:
        for log in self.logs:
            log.close()
        self.intervals.close()
        self.resource_lines.close()


def run_command(record: SoakRecord, k: int, duration_s: float, interval_s: float, seed: int | None,
                sync_timeout_ms: int) -> dict[str, Any]:
    point = record.point
    command: dict[str, Any] = {
        "cmd": "run", "mode": point.mode, "payload_type": point.payload_type, "payload_bytes": point.payload_bytes,
        "warmup": record.warmup, "duration_s": duration_s, "interval_s": interval_s,
        "sync_timeout_ms": sync_timeout_ms}
    if point.rate_hz > 0:
        command["rate_hz"] = point.rate_hz
        command["arrivals"] = record.arrivals
        if seed is not None:
            command["seed"] = seed + k
    if point.clients > 1:
        command["clients"] = point.clients
    return command


def intervals_done(folder: Path, clients: int) -> int:
    """How many intervals every client has written, from the first on without a hole."""
    seen: dict[int, set[int]] = {k: set() for k in range(clients)}
    for r in read_jsonl(folder / "intervals.jsonl"):
        seen.setdefault(r["client"], set()).add(r["index"])
    done = 0
    while all(done in indices for indices in seen.values()):
        done += 1
    return done


def _cut_after(folder: Path, done: int, clients: int) -> float | None:
    """Keep the first `done` intervals of every file (the open one, and any a client wrote past the others,
    are redone); returns the wall time of the last interval kept."""
    last = None
    for name in ("intervals.jsonl", "resources.jsonl"):
        rows = [r for r in read_jsonl(folder / name) if r["index"] < done]
        tmp = folder / (name + ".tmp")
        tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
        tmp.replace(folder / name)
        if name == "intervals.jsonl" and rows:
            last = max(r["wall_time"] for r in rows)
    for k in range(clients):
        keep_intervals(folder / f"client-{k}.hlog", done)
    return last


def _resume(folder: Path, record: SoakRecord, argv: list[str]) -> tuple[int, float]:
    """A soak that stopped early: cut its files to the intervals every client closed, record the gap; returns
    (intervals kept, seconds left)."""
    clients = record.point.clients
    done = intervals_done(folder, clients)
    last_wall = _cut_after(folder, done, clients)
    gap = {"after_index": done - 1, "resumed_at": time.time(),
           "seconds": round(time.time() - (last_wall or record.start_unix), 3)}
    with open(folder / "gaps.jsonl", "a") as f:
        f.write(json.dumps(gap) + "\n")
    record.resumed.append({"at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "command": argv, "intervals_kept": done,
                           "gap_s": gap["seconds"], "status_before": record.status,
                           "answers_before": record.answers, "failures_before": record.failures})
    record.answers, record.failures = {}, {}
    return done, record.duration_s - done * record.interval_s


def run_soak_point(session: TargetSession, record: SoakRecord, run_dir: Path, sync_timeout_ms: int,
                   argv: list[str], note: Callable[[str], None], changed: Callable[[SoakRecord], None]) -> None:
    """Runs (or, when the record has intervals already, finishes) the soak; the record's status and answers
    say how it went, `changed` is called whenever the record changes. A WorkerError (a dead worker) is raised
    after the record says failed; a KeyboardInterrupt after it says interrupted."""
    folder = record.path(run_dir)
    folder.mkdir(parents=True, exist_ok=True)
    done, left = 0, record.duration_s
    if record.status != "running" or (folder / "intervals.jsonl").exists():
        done, left = _resume(folder, record, argv)
    if left < 1e-6:
        record.status = "finished"
        changed(record)
        return
    seed = record.seed + RESUME_SEED_STEP * len(record.resumed) if record.seed is not None else None
    record.status = "running"
    changed(record)
    recorder: _Recorder | None = None
    answers: dict[int, dict] = {}
    errors: dict[int, BaseException] = {}
    try:
        try:
            clients = session.clients(record.point.clients)
            assert session.server is not None
            if len(clients) > 1:
                clients[0].call({"cmd": "reset_counters"}, watch=[session.server])
            recorder = _Recorder(folder, record, Resources(session, len(clients)), len(clients), note, done)
        except WorkerError as exc:
            record.status, record.failures = "failed", {"setup": str(exc)}
            raise
        interval = min(record.interval_s, left)
        line_timeout = interval + LINE_MARGIN_S
        server = session.server

        def drive(k: int, client: ClientWorker) -> None:
            try:
                answers[k] = client.call(run_command(record, k, left, interval, seed, sync_timeout_ms),
                                         timeout=line_timeout, watch=[server],
                                         on_event=lambda e: recorder.on_event(k, e))
            except BaseException as exc:  # noqa: BLE001 - reported by the caller's thread
                errors[k] = exc

        threads = [threading.Thread(target=drive, args=(k, c), daemon=True, name=f"soak-client-{k}")
                   for k, c in enumerate(clients)]
        for t in threads:
            t.start()
        for t in threads:
            while t.is_alive():
                t.join(timeout=0.5)
        failed = {str(k): str(e) for k, e in errors.items()}
        failed.update({str(k): f"{a.get('error_kind')}: {a.get('error')}" for k, a in answers.items() if not a["ok"]})
        record.answers = {str(k): a for k, a in sorted(answers.items())}
        record.failures = failed
        record.status = "failed" if failed else "finished"
        dead = next((e for e in errors.values() if isinstance(e, WorkerError)), None)
        if dead is not None:
            raise dead
    except KeyboardInterrupt:
        record.status = "interrupted"
        raise
    finally:
        if recorder is not None:
            recorder.close()
        changed(record)
