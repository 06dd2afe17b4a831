"""Runs a campaign: per host pair (server host, client host; `local` by default) and placement, starts each
target's workers pinned, runs the points' trials with the targets interleaved (A B C A B C ...), and stores
every trial as it ends. Remote hosts are reached over SSH (hosts/remote.py); a local run is the pair local/local.

A worker that crashes fails the trial it was running, with the reason; the harness restarts that target's
workers for the next trial, and the campaign goes on. A host that stops answering fails the rest of its pair's
trials at once, with the reason. Ctrl-C stops every worker on every host and keeps what finished;
`orbench run --resume RUN_DIR` runs the trials that did not finish.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from orbench import __version__
from orbench.campaign.spec import Campaign
from orbench.errors import UserError, WorkerError
from orbench.hosts.environment import collect_environment
from orbench.hosts.placement import Placement, resolve_on
from orbench.hosts.readiness import unavailable_reason
from orbench.hosts.remote import HostSet, PairRuntime
from orbench.hosts.ssh import HostPair, HostUnreachable
from orbench.results.point import Point, PointGroup
from orbench.results.store import SCHEMA_VERSION, RunStore
from orbench.results.trial import Measurement, Trial
from orbench.running.clients import measure_group
from orbench.running.cpu_usage import cpus_allowed
from orbench.running.measure import TrialPlan, measure_single
from orbench.running.progress import Progress
from orbench.running.schedule import Block, blocks, new_seed, round_order, total_trials
from orbench.running.session import TargetSession
from orbench.running.stopping import StoppingRule
from orbench.targets.descriptor import MEASURED_AGAINST_BASELINE, Target

# Trial statuses that --resume does not run again.
FINISHED_STATUSES = ("ok", "skipped")

# A trial's timeout and the grace given a dead server are in measure.py, which runs the trials.


class Runner:
    def __init__(self, campaign: Campaign, store: RunStore, argv: list[str] | None = None,
                 on_trial_done: Callable[[Runner, Trial], None] | None = None,
                 stream=sys.stderr, resume: bool = False):
        self.campaign = campaign
        self.resume = resume
        self.pairs: list[HostPair] = campaign.host_pairs()
        self.hosts: HostSet | None = None
        self.pair_down: str | None = None  # why the current host pair was given up
        # Trials already finished (only when resuming), by point and trial number: a resumed point feeds them
        # to its stopping rule instead of running them.
        self.finished: dict[tuple[Point, int], Trial] = {}
        self.store = store
        self.argv = argv or sys.argv
        self.on_trial_done = on_trial_done
        self.sessions: dict[str, TargetSession] = {}
        self.broken: dict[str, str] = {}
        self.seq = 0
        self.failed_trials = 0
        self.stopping = StoppingRule.from_settings(
            campaign.settings, {t.name: t.baseline for t in campaign.targets if t.kind in MEASURED_AGAINST_BASELINE
                                and t.baseline})
        # The order of targets within each round is random, from a seed the manifest records (schedule.py); a
        # resumed run keeps its seed, so it draws the same orders.
        if campaign.settings.get("order_seed") is None:
            campaign.settings["order_seed"] = new_seed()
        if resume:
            if store.written_schema() != SCHEMA_VERSION:
                raise UserError(f"{store.path}: written with results schema {store.written_schema()}; this orbench "
                                f"writes {SCHEMA_VERSION} and resumes only runs of its own schema (start a new run)")
            trials = store.read_trials()
            self.seq = max((t.seq for t in trials), default=0)
            self.finished = {(t.point, t.trial): t for t in trials if t.status in FINISHED_STATUSES}
        self.progress = Progress(total_trials(campaign, self.pairs, self.stopping.most_trials) - len(self.finished),
                                 stream)
        self.manifest: dict[str, Any] = {}
        self.block: Block | None = None  # the block running now

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
                       "deployed": self.hosts.deployed.get(name), "environment": self.hosts.environments.get(name),
                       **({"unreachable": self.hosts.down[name]} if name in self.hosts.down else {})}
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
            "host_pairs": [{**p.as_dict(), "placements": [] if self.hosts.unreachable(p) else
                            [self._placement(p, name).as_dict() for name in self.campaign.placements],
                            **({"skipped": why} if (why := self.hosts.unreachable(p)) else {})}
                           for p in self.pairs],
            "environment": collect_environment(self.campaign.jdk.java if self.campaign.jdk else None),
            "placements": [self._placement(self.hosts.alive_pairs()[0], p).as_dict()
                           for p in self.campaign.placements],
            "targets": {
                t.name: {"kind": t.kind, "language": t.language, "baseline": t.baseline,
                         **({"family": t.family} if t.family else {}),
                         **({"parameter": {t.parameter: t.parameter_value}} if t.parameter else {}),
                         **({"known_added_ns": t.known_added_ns} if t.known_added_ns is not None else {}),
                         "description": t.description, "warmup": self.campaign.warmup_for(t),
                         "server_argv": t.server_command(self.campaign.host, 0), "client_argv": t.client_command(),
                         "options": self.campaign.connect_options(t),
                         "option_sets": {(plan := self.campaign.option_plan(t, o)).label: plan.as_dict()
                                         for o in self.campaign.option_sets()},
                         "workers": {}}
                for t in self.campaign.targets
            },
            "skipped_targets": skipped,
            "warnings": [f"host pair {p.label} skipped: {why}" for p in self.pairs
                         if (why := self.hosts.unreachable(p))],
            "stopping": [],
        }
        self.broken.update({name: f"unavailable: {why}" for name, why in skipped.items()})
        self.store.write_manifest(self.manifest)

    def _placement(self, pair: HostPair, name: str) -> Placement:
        assert self.hosts is not None
        return resolve_on(name, self.hosts.cpus(pair.server), self.hosts.cpus(pair.client))

    def _record_workers(self, session: TargetSession, block: Block) -> None:
        info = self.manifest["targets"][session.target.name]["workers"]
        info[block.label] = {
            "host_pair": block.pair.label, "placement": block.placement, "options": block.options,
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
            pair = None
            for block in blocks(self.campaign, self.pairs):
                if block.pair is not pair:
                    # A pair with a host that was unreachable at the start: its trials are skipped, with the reason.
                    pair = block.pair
                    self.pair_down = self.hosts.unreachable(pair) if self.hosts else None
                self._run_block(block)
            status = "complete" if self.failed_trials == 0 else "complete-with-failures"
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        finally:
            for s in self.sessions.values():
                s.stop()
            self.sessions.clear()
            if self.hosts is not None:
                self.manifest.setdefault("warnings", []).extend(self.hosts.collect_gc_logs(self.store.logs_dir))
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

    def _pending(self, groups: tuple[PointGroup, ...], target: Target | None = None) -> bool:
        return any((g.with_target(t.name), trial) not in self.finished
                   for g in groups
                   for t in self.campaign.targets if target is None or t.name == target.name
                   for trial in range(self.campaign.trials))

    def _run_block(self, block: Block) -> None:
        if not self._pending(block.groups):
            return
        assert self.hosts is not None
        self.block = block
        pair = block.pair
        placement = (Placement(block.placement, None, None) if self.pair_down
                     else self._placement(pair, block.placement))
        runtime = PairRuntime(pair, self.hosts, placement)
        broken_here = dict(self.broken)
        for t in self.campaign.targets:
            if t.name in broken_here or not self._pending(block.groups, t):
                continue
            if self.pair_down:
                broken_here[t.name] = self.pair_down
                continue
            plan = self.campaign.option_plan(t, block.option_set)
            if plan.unsupported:
                broken_here[t.name] = f"unsupported: {plan.unsupported}"
                continue
            tag = block.groups[0].with_target(t.name).workers_slug
            session = TargetSession(t.with_server_args(plan.server_args), runtime, self.store.logs_dir, plan.client,
                                    tag)
            try:
                where = placement.name if pair.label == "local" else f"{pair.label}, {placement.name}"
                self.progress.note(f"starting {t.name} ({where})")
                session.start()
                self.sessions[t.name] = session
                self._record_workers(session, block)
            except WorkerError as exc:
                # A worker refusing an option it cannot do is a skip with its reason, not a failure.
                broken_here[t.name] = f"unsupported: {exc}" if exc.kind == "unsupported" else f"could not start: {exc}"
                self.progress.note(f"{t.name}: {broken_here[t.name]}")
                self._check_pair(runtime, broken_here)
        try:
            for group in block.groups:
                self._run_group(group, broken_here)
        finally:
            for name in list(self.sessions):
                self.sessions.pop(name).stop()

    def _run_group(self, group: PointGroup, broken: dict[str, str]) -> None:
        """Rounds of one trial per target until the stopping rule ends the group; its record goes into the
        manifest."""
        trials = self.stopping.start_point()
        while True:
            for t in round_order(self.campaign.targets, group, trials.rounds, self.campaign.settings["order_seed"]):
                point = group.with_target(t.name)
                done = self.finished.get((point, trials.rounds))
                if done is None:
                    self._hold(t.name)
                trials.add(t.name, done if done is not None else self._run_trial(point, t, trials.rounds, broken))
            trials.rounds += 1
            reason = trials.stop_reason()
            if reason:
                self.manifest.setdefault("stopping", []).append(trials.record(group, reason))
                self.store.write_manifest(self.manifest)
                return

    def _hold(self, measured: str) -> None:
        """pause_idle_workers: continue the measured target's local workers and stop every other target's, so
        their JIT, GC and timer threads stay off the measured CPU during the trial."""
        if not self.campaign.settings.get("pause_idle_workers"):
            return
        for name, session in self.sessions.items():
            if name != measured:
                session.signal(signal.SIGSTOP)
        if measured in self.sessions:
            self.sessions[measured].signal(signal.SIGCONT)

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

    def _finish(self, point: Point, trial: int, measurement: Measurement, started: float | None = None) -> Trial:
        self.seq += 1
        if started is not None:
            measurement = replace(measurement, started_at=time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(started)),
                                  duration_s=round(time.time() - started, 3))
        result = Trial.of(self.seq, point, trial, measurement)
        self.store.append_trial(result)
        if result.status == "failed":
            self.failed_trials += 1
        self.progress.trial(result)
        if self.on_trial_done:
            self.on_trial_done(self, result)
        return result

    def _run_trial(self, point: Point, target: Target, trial: int, broken: dict[str, str]) -> Trial:
        why_not = self.campaign.unsupported(target, point.mode, point.payload_type)
        if why_not:
            return self._finish(point, trial, Measurement(status="skipped", error=why_not))
        if target.name in broken:
            status = ("skipped" if broken[target.name].startswith(("unavailable", "unsupported", "unreachable"))
                      else "failed")
            return self._finish(point, trial, Measurement(status=status, error=broken[target.name]))
        session = self.sessions[target.name]
        started = time.time()
        try:
            measurement = self._measure(session, point, trial)
        except WorkerError as exc:
            measurement = Measurement(status="failed", error=str(exc))
            self._check_pair(session.runtime, broken)
            if target.name not in broken:
                self._restart(session, broken)
        return self._finish(point, trial, measurement, started)

    def _restart(self, session: TargetSession, broken: dict[str, str]) -> None:
        """After a crash or a broken connection: fresh workers for the next trial, or give the target up."""
        assert self.block is not None
        session.stop()
        try:
            session.start()
            self._record_workers(session, self.block)
        except WorkerError as exc:
            broken[session.target.name] = f"could not restart after a failure: {exc}"
            self.sessions.pop(session.target.name, None)

    def _measure(self, session: TargetSession, point: Point, trial: int) -> Measurement:
        plan = TrialPlan(calls=self.campaign.calls, warmup=self.campaign.warmup_for(session.target,
                                                                                    session.first_at(point)),
                         sync_timeout_ms=self.campaign.sync_timeout_ms,
                         samples_file=self.store.samples_path(point, trial), store_root=self.store.path)
        measure = measure_group if point.clients > 1 else measure_single
        return measure(session, point, plan)
