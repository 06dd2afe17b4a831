"""Runs a campaign: per host pair (server host, client host; `local` by default) and placement, starts each
target's workers pinned, runs the points' trials with the targets interleaved (A B C A B C ...), and stores
every trial as it ends. Remote hosts are reached over SSH (remote.py); a local run is the pair local/local.

A worker that crashes fails the trial it was running, with the reason; the harness restarts that target's
workers for the next trial, and the campaign goes on. A host that stops answering fails the rest of its pair's
trials at once, with the reason. Ctrl-C stops every worker on every host and keeps what finished;
`orbench run --resume RUN_DIR` runs the trials that did not finish.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from orbench import __version__
from orbench.campaign import Campaign, Point
from orbench.environment import collect_environment
from orbench.errors import WorkerError
from orbench.hosts import HostPair, HostUnreachable
from orbench.interop import path_safe
from orbench.load import measure_group
from orbench.machine_load import cpus_allowed
from orbench.measure import measure_single
from orbench.options import option_label
from orbench.placement import Placement, resolve_on
from orbench.progress import Progress
from orbench.remote import HostSet, PairRuntime
from orbench.results import RunStore
from orbench.stopping import StoppingRule
from orbench.targets import Target, unavailable_reason
from orbench.workers import ClientWorker, ServerWorker

# Trial statuses that --resume does not run again.
FINISHED_STATUSES = ("ok", "skipped")

# A trial's timeout and the grace given a dead server are in measure.py, which runs the trials.


@dataclass
class TargetSession:
    """A target's live server and client for one placement."""

    target: Target
    runtime: PairRuntime
    store: RunStore
    options: dict[str, Any]
    server: ServerWorker | None = None
    client: ClientWorker | None = None
    hello: dict[str, Any] = field(default_factory=dict)
    starts: int = 0
    # Client workers 2..N for points with several clients (campaign key `clients`), started when first needed.
    extra_clients: list[ClientWorker] = field(default_factory=list)

    @property
    def placement(self) -> Placement:
        return self.runtime.placement

    def start(self) -> None:
        self.starts += 1
        tag = self._tag()
        # A JVM's GC log per worker start (a restart gets a new file), kept in logs/ for the GC-pause figure.
        gc_log = str(self.store.logs_dir / f"{tag}-%s-gc-{self.starts}.log")
        self.server = ServerWorker(
            self.target.name, self.runtime.server_command(self.target, gc_log=gc_log % "server"),
            self.store.logs_dir / f"{tag}-server.log", reaper=self.runtime.reaper(self.target, "server"),
        )
        try:
            self.client = ClientWorker(self.target.name,
                                       self.runtime.client_command(self.target, gc_log=gc_log % "client"),
                                       self.store.logs_dir / f"{tag}-client.log",
                                       reaper=self.runtime.reaper(self.target, "client"))
            self.server.via, self.client.via = self.runtime.via("server"), self.runtime.via("client")
            hello = self.client.call({"cmd": "hello"}, watch=[self.server])
            if not hello["ok"]:
                raise WorkerError(f"{self.target.name} client: hello failed: {hello.get('error')}", "protocol")
            self.hello = hello
            answer = self.client.call({"cmd": "connect", "endpoint": self.server.endpoint, "options": self.options},
                                      watch=[self.server])
            if not answer["ok"]:
                kind = "unsupported" if answer.get("error_kind") == "unsupported" else "connect"
                raise WorkerError(f"{self.target.name} client: connect failed: {answer.get('error')}", kind)
        except WorkerError:
            self.stop()
            raise

    def _tag(self) -> str:
        pair, name = self.runtime.pair.label, path_safe(self.target.name)
        return f"{self.placement.name}-{name}" if pair == "local" else f"{pair}-{self.placement.name}-{name}"

    def clients(self, n: int) -> list[ClientWorker]:
        """The first n client workers, connected to the one server; extra ones are started (pinned like the
        first: the placement's client CPUs) when a point first needs them, and kept for later points."""
        assert self.client is not None and self.server is not None
        while len(self.extra_clients) < n - 1:
            k = len(self.extra_clients) + 1
            tag = f"{self._tag()}-c{k}"
            client = ClientWorker(self.target.name,
                                  self.runtime.client_command(self.target, gc_log=str(
                                      self.store.logs_dir / f"{tag}-client-gc-{self.starts}.log")),
                                  self.store.logs_dir / f"{tag}-client.log",
                                  reaper=self.runtime.reaper(self.target, "client"))
            client.via = self.runtime.via("client")
            self.extra_clients.append(client)
            try:
                for command in ({"cmd": "hello"},
                                {"cmd": "connect", "endpoint": self.server.endpoint, "options": self.options}):
                    answer = client.call(command, watch=[self.server])
                    if not answer["ok"]:
                        raise WorkerError(f"{self.target.name} client {k}: {command['cmd']} failed: "
                                          f"{answer.get('error')}", "connect")
            except WorkerError:
                self.extra_clients.pop().stop()
                raise
        return [self.client, *self.extra_clients[:n - 1]]

    def stop(self) -> None:
        for extra in self.extra_clients:
            if extra.alive():
                try:
                    extra.call({"cmd": "quit"}, timeout=5)
                except WorkerError:
                    pass
            extra.stop()
        self.extra_clients = []
        if self.client is not None:
            if self.client.alive():
                try:
                    self.client.call({"cmd": "quit"}, timeout=5)
                except WorkerError:
                    pass
            self.client.stop()
            self.client = None
        if self.server is not None:
            self.server.stop()
            self.server = None


class Runner:
    def __init__(self, campaign: Campaign, store: RunStore, argv: list[str] | None = None,
                 on_trial_done: Callable[[Runner, Point, int, dict], None] | None = None,
                 stream=sys.stderr, resume: bool = False):
        self.campaign = campaign
        self.resume = resume
        self.pairs: list[HostPair] = campaign.host_pairs()
        self.hosts: HostSet | None = None
        self.pair_down: str | None = None  # why the current host pair was given up
        # Trials already finished (only when resuming), by (host_pair, placement, mode, type, bytes, target,
        # trial), with their rows: a resumed point feeds them to its stopping rule instead of running them.
        self.finished: dict[tuple, dict] = {}
        self.store = store
        self.argv = argv or sys.argv
        self.on_trial_done = on_trial_done
        self.sessions: dict[str, TargetSession] = {}
        self.broken: dict[str, str] = {}
        self.seq = 0
        self.failed_trials = 0
        self.stopping = StoppingRule.from_settings(campaign.settings)
        if resume:
            rows = store.read_trials()
            self.seq = max((int(r["seq"]) for r in rows if str(r.get("seq", "")).isdigit()), default=0)
            self.finished = {self._trial_key(r.get("host_pair") or "local", r["placement"], r["mode"],
                                             r["payload_type"], r["payload_bytes"], r["target"], r["trial"],
                                             r.get("clients") or 1, r.get("rate_hz") or 0, r.get("options") or ""): r
                             for r in rows if r["status"] in FINISHED_STATUSES}
        self.progress = Progress(self._total_trials() - len(self.finished), stream)
        self.manifest: dict[str, Any] = {}

    @staticmethod
    def _trial_key(pair: str, placement: str, mode: str, ptype: str, size: Any, target: str, trial: Any,
                   clients: Any = 1, rate_hz: Any = 0, options: str = "") -> tuple:
        return (pair, placement, mode, ptype, int(size), target, int(trial), int(clients), float(rate_hz), options)

    def _total_trials(self) -> int:
        return (len(self.pairs) * len(self.campaign.point_groups()) * self.stopping.most_trials
                * len(self.campaign.targets) * len(self.campaign.loads()) * len(self.campaign.option_sets()))

    # -- manifest -------------------------------------------------------------------------------------------
    def _prepare_hosts(self) -> None:
        """Connect, deploy and check every host before anything runs (UserError lists what is missing)."""
        hosts = HostSet(self.pairs, self.campaign.ssh_settings(), self.campaign.name, self.store.run_id)
        runnable = [t for t in self.campaign.targets if unavailable_reason(t) is None]
        pinned = any(p != "unpinned" for p in self.campaign.placements)
        hosts.prepare(runnable, pinned, self.progress.note)
        self.hosts = hosts

    def _hosts_manifest(self) -> dict:
        assert self.hosts is not None
        return {name: {**h.spec.as_dict(), "campaign_dir": self.hosts.dirs.get(name),
                       "deployed": self.hosts.deployed.get(name), "environment": self.hosts.environments.get(name)}
                for name, h in self.hosts.hosts.items()}

    def _start_manifest(self) -> None:
        self._prepare_hosts()
        if self.resume:
            self.manifest = self.store.read_manifest()
            self.manifest.pop("schema_version", None)
            self.manifest.setdefault("resumed", []).append({
                "at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "command": self.argv,
                "finished_trials_kept": len(self.finished), "hosts": self._hosts_manifest(),
                "status_before": self.manifest.get("status")})
            self.manifest["status"] = "running"
            skipped = self.manifest.get("skipped_targets", {})
            self.broken.update({name: f"unavailable: {why}" for name, why in skipped.items()})
            self.store.write_manifest(self.manifest)
            return
        skipped = {t.name: r for t in self.campaign.targets if (r := unavailable_reason(t))}
        self.manifest = {
            "orbench_version": __version__,
            "run_id": self.store.run_id,
            "command": self.argv,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "status": "running",
            "campaign": self.campaign.as_run(),
            "hosts": self._hosts_manifest(),
            "host_pairs": [{**p.as_dict(), "placements": [self._placement(p, name).as_dict()
                                                          for name in self.campaign.placements]}
                           for p in self.pairs],
            "environment": collect_environment(self.campaign.jdk.java if self.campaign.jdk else None),
            "placements": [self._placement(self.pairs[0], p).as_dict() for p in self.campaign.placements],
            "targets": {
                t.name: {"kind": t.kind, "language": t.language, "baseline": t.baseline,
                         "description": t.description, "warmup": self.campaign.warmup_for(t),
                         "server_argv": t.server_command(self.campaign.host, 0), "client_argv": t.client_command(),
                         "options": self.campaign.connect_options(t),
                         "option_sets": {(plan := self.campaign.option_plan(t, o)).label: plan.as_dict()
                                         for o in self.campaign.option_sets()},
                         "workers": {}}
                for t in self.campaign.targets
            },
            "skipped_targets": skipped,
            "warnings": [],
            "stopping": [],
        }
        self.broken.update({name: f"unavailable: {why}" for name, why in skipped.items()})
        self.store.write_manifest(self.manifest)

    def _placement(self, pair: HostPair, name: str) -> Placement:
        assert self.hosts is not None
        return resolve_on(name, self.hosts.cpus(pair.server), self.hosts.cpus(pair.client))

    def _record_workers(self, session: TargetSession) -> None:
        info = self.manifest["targets"][session.target.name]["workers"]
        pair = session.runtime.pair.label
        info[session.placement.name if pair == "local" else f"{pair}/{session.placement.name}"] = {
            "server": session.server.ready.get("worker") if session.server else None,
            "endpoint": session.server.endpoint if session.server else None,
            "client": session.hello.get("worker"),
            "timer": session.hello.get("timer"),
            "starts": session.starts,
            # Local workers only: a remote worker's local pid is its ssh process.
            "cpus_allowed": {"server": cpus_allowed(session.server.pid) if session.server and not session.server.via
                             else None,
                             "client": cpus_allowed(session.client.pid) if session.client and not session.client.via
                             else None},
        }
        self.store.write_manifest(self.manifest)

    # -- running ----------------------------------------------------------------------------------------------
    def run(self) -> int:
        """Returns the number of failed trials; raises KeyboardInterrupt after cleaning up."""
        self.progress.start(self.campaign, self.store)
        self._start_manifest()
        status = "failed"
        try:
            for pair in self.pairs:
                self.pair_down = None
                for placement_name in self.campaign.placements:
                    # Each option set gets workers of its own (server options are command-line arguments).
                    for option_set in self.campaign.option_sets():
                        self._run_placement(pair, self._placement(pair, placement_name), option_set)
            status = "complete" if self.failed_trials == 0 else "complete-with-failures"
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        finally:
            for s in self.sessions.values():
                s.stop()
            self.sessions.clear()
            if self.hosts is not None:
                # Belt and braces: whatever a worker's own stop missed (a channel that died) ends here.
                self.manifest.setdefault("warnings", []).extend(self.hosts.sweep_all())
                self.hosts.close()
            self.manifest["status"] = status
            self.manifest["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            self.manifest["failed_trials"] = self.failed_trials
            self.manifest["environment_at_end"] = {"load": {"loadavg": list(os.getloadavg())}}
            self.store.write_manifest(self.manifest)
            self.store.mark_latest()
        return self.failed_trials

    def _pending(self, pair: HostPair, placement: Placement, target: Target | None = None, options: str = "") -> bool:
        return any(self._trial_key(pair.label, pl, mode, pt, size, t.name, trial, n, rate, options) not in self.finished
                   for (n, rate) in self.campaign.loads()
                   for (pl, mode, pt, size) in self.campaign.point_groups() if pl == placement.name
                   for t in self.campaign.targets if target is None or t.name == target.name
                   for trial in range(self.campaign.trials))

    def _run_placement(self, pair: HostPair, placement: Placement, option_set: dict[str, Any] | None = None) -> None:
        option_set = option_set or {}
        opts = option_label(option_set)
        if not self._pending(pair, placement, options=opts):
            return
        assert self.hosts is not None
        runtime = PairRuntime(pair, self.hosts, placement)
        broken_here = dict(self.broken)
        for t in self.campaign.targets:
            if t.name in broken_here or not self._pending(pair, placement, t, opts):
                continue
            if self.pair_down:
                broken_here[t.name] = self.pair_down
                continue
            plan = self.campaign.option_plan(t, option_set)
            if plan.unsupported:
                broken_here[t.name] = f"unsupported: {plan.unsupported}"
                continue
            session = TargetSession(t.with_server_args(plan.server_args), runtime, self.store, plan.client)
            try:
                where = placement.name if pair.label == "local" else f"{pair.label}, {placement.name}"
                self.progress.note(f"starting {t.name} ({where})")
                session.start()
                self.sessions[t.name] = session
                self._record_workers(session)
            except WorkerError as exc:
                # A worker refusing an option it cannot do is a skip with its reason, not a failure.
                broken_here[t.name] = f"unsupported: {exc}" if exc.kind == "unsupported" else f"could not start: {exc}"
                self.progress.note(f"{t.name}: {broken_here[t.name]}")
                self._check_pair(runtime, broken_here)
        try:
            for (pl, mode, ptype, size, n, rate) in [g + load for load in self.campaign.loads()
                                                     for g in self.campaign.point_groups()]:
                if pl != placement.name:
                    continue
                trials = self.stopping.start_point()
                while True:
                    for t in self.campaign.targets:
                        done = self.finished.get(
                            self._trial_key(pair.label, pl, mode, ptype, size, t.name, trials.rounds, n, rate, opts))
                        if done is not None:
                            trials.add(t.name, done)
                            continue
                        point = Point(pl, mode, ptype, size, t.name, pair.label, n, rate, opts)
                        trials.add(t.name, self._run_trial(point, t, trials.rounds, broken_here))
                    trials.rounds += 1
                    reason = trials.stop_reason()
                    if reason:
                        record = trials.record((pl, mode, ptype, size), reason)
                        if pair.label != "local":
                            record["host_pair"] = pair.label
                        if n != 1 or rate:
                            record.update(clients=n, rate_hz=rate)
                        if opts:
                            record["options"] = opts
                        self.manifest.setdefault("stopping", []).append(record)
                        self.store.write_manifest(self.manifest)
                        break
        finally:
            for name in list(self.sessions):
                self.sessions.pop(name).stop()

    def _check_pair(self, runtime: PairRuntime, broken: dict[str, str]) -> None:
        """After a failure: if a host of the pair no longer answers, give up the pair's remaining trials at
        once (one ConnectTimeout, not one per trial), with the reason."""
        if runtime.is_local or self.pair_down:
            return
        try:
            runtime.check_reachable()
        except HostUnreachable as exc:
            self.pair_down = f"host pair {runtime.pair.label} given up: {exc}"
            self.progress.note(self.pair_down)
            for name in list(self.sessions):
                self.sessions.pop(name).stop()
            for t in self.campaign.targets:
                broken.setdefault(t.name, self.pair_down)

    def _row(self, point: Point, trial: int, status: str, error: str = "", **extra: Any) -> dict:
        self.seq += 1
        return {"seq": self.seq, "host_pair": point.host_pair, "placement": point.placement, "mode": point.mode,
                "payload_type": point.payload_type, "payload_bytes": point.payload_bytes, "target": point.target,
                "trial": trial, "status": status, "error": error, "loadavg_1m": os.getloadavg()[0],
                "clients": point.clients, "rate_hz": point.rate_hz, "options": point.options, **extra}

    def _finish(self, point: Point, trial: int, row: dict) -> None:
        self.store.append_trial(row)
        if row["status"] == "failed":
            self.failed_trials += 1
        self.progress.trial(point, trial, row)
        if self.on_trial_done:
            self.on_trial_done(self, point, trial, row)

    def _run_trial(self, point: Point, target: Target, trial: int, broken: dict[str, str]) -> dict:
        why_not = self.campaign.unsupported(target, point.mode, point.payload_type)
        if why_not:
            row = self._row(point, trial, "skipped", why_not)
            self._finish(point, trial, row)
            return row
        if target.name in broken:
            status = "skipped" if broken[target.name].startswith(("unavailable", "unsupported")) else "failed"
            row = self._row(point, trial, status, broken[target.name])
            self._finish(point, trial, row)
            return row
        session = self.sessions[target.name]
        started = time.time()
        try:
            row = self._measure(session, point, trial)
        except WorkerError as exc:
            row = self._row(point, trial, "failed", str(exc))
            self._check_pair(session.runtime, broken)
            if target.name not in broken:
                self._restart(session, broken)
        row["started_at"] = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(started))
        row["duration_s"] = round(time.time() - started, 3)
        self._finish(point, trial, row)
        return row

    def _restart(self, session: TargetSession, broken: dict[str, str]) -> None:
        """After a crash or a broken connection: fresh workers for the next trial, or give the target up."""
        session.stop()
        try:
            session.start()
            self._record_workers(session)
        except WorkerError as exc:
            broken[session.target.name] = f"could not restart after a failure: {exc}"
            self.sessions.pop(session.target.name, None)

    def _measure(self, session: TargetSession, point: Point, trial: int) -> dict:
        measure = measure_group if point.clients > 1 else measure_single
        return self._row(point, trial, **measure(self, session, point, trial))
