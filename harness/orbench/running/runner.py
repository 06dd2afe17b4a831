"""Runs a campaign: per placement and option set, starts each target's workers pinned on every host pair (server
host, client host; `local` by default), runs the points' trials with the targets and the pairs interleaved
(schedule.py), and stores every trial as it ends. Remote hosts are reached over SSH (hosts/remote.py); a local run is the pair local/local.

With `launches` > 1 the whole schedule runs that many times, each launch with freshly started workers and orders
of its own (schedule.launch_order, round_order): the process launch is a level of repetition of its own, and the
summary's intervals are over launches. Before a point's first trial in a launch each worker may be warmed until
its latency is steady (`steady_cv_pct`, steady.py), and the calls that took are recorded.

A worker that crashes fails the trial it was running, with the reason; the harness restarts that target's
workers for the next trial, and the campaign goes on. A host that stops answering fails the rest of its pair's
trials at once, with the reason. Ctrl-C stops every worker on every host and keeps what finished;
`orbench run --resume RUN_DIR` runs the trials that did not finish.
"""

from __future__ import annotations

import random
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from orbench.campaign.spec import Campaign
from orbench.errors import UserError, WorkerError
from orbench.hosts.environment import collect_environment
from orbench.hosts.placement import Placement, resolve_on
from orbench.hosts.readiness import unavailable_reason
from orbench.hosts.remote import HostSet, PairRuntime
from orbench.hosts.ssh import HostPair, HostUnreachable
from orbench.results.accounting import TimeAccount, time_account
from orbench.results.manifest import Manifest
from orbench.results.point import Point, PointGroup
from orbench.results.profile import append_record
from orbench.results.repetitions import repetition_plans
from orbench.results.soak import SoakRecord, soak_dir_name, soak_records
from orbench.results.store import SCHEMA_VERSION, RunStore
from orbench.results.trial import GIVEN_UP, Measurement, Trial
from orbench.running.accounting import PhaseClock, RunClock
from orbench.running.awake import AwakeCPUs
from orbench.running.budget import PlannedRepetitions
from orbench.running.clients import measure_group
from orbench.running.cpu_usage import cpus_allowed
from orbench.running.flood import bounded
from orbench.running.load_usage import SAMPLING
from orbench.running.measure import TrialPlan, jit_ms, measure_single
from orbench.running.profiled import (
    ProfileSettings,
    ToolShipper,
    failed_trial,
    measure_profiled,
    profile_records,
    profiled_calls,
)
from orbench.running.progress import Progress
from orbench.running.schedule import (
    Block,
    blocks,
    disjoint_waves,
    launch_order,
    launch_seed,
    launch_steps,
    new_seed,
    round_order,
    round_units,
    steps,
    sweep_last,
    sweep_step_runs,
    total_group_runs,
    trial_seed,
)
from orbench.running.session import TargetSession
from orbench.running.skips import DEFAULT_STALL_S, PointSkips, is_rule_skip
from orbench.running.slices import (
    SLICED_MODES,
    Companion,
    SliceMember,
    measure_sliced,
    slice_sizes,
    takes_turns,
)
from orbench.running.soak.point import run_soak_point
from orbench.running.steady import (
    JIT_BUSY_POINTS,
    Chunk,
    SteadyRecord,
    SteadyState,
    chunk_p50,
    chunk_p50_se,
    warm_until_jit_quiet,
    warm_until_steady,
)
from orbench.running.stopping import StoppingRule
from orbench.running.sweep import SweepState
from orbench.stats.stats import read_samples
from orbench.targets.descriptor import MEASURED_AGAINST_BASELINE, Target
from orbench.targets.server_settings import Unsupported, server_setting

# Trial statuses that --resume does not run again.
FINISHED_STATUSES = ("ok", "skipped", GIVEN_UP)

# A trial's timeout and the grace given a dead server are in measure.py, which runs the trials.


@dataclass
class Lane:
    """One host pair's part of a step: its block, its live workers, and why targets cannot run there."""

    block: Block
    runtime: PairRuntime
    sessions: dict[str, TargetSession] = field(default_factory=dict)
    broken: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.block.pair.label

    def stop(self) -> None:
        for name in list(self.sessions):
            self.sessions.pop(name).stop()


# The stopping reason of a group in a launch beyond `launches` that launches_for adds: its `trials`, no more.
EXTRA_LAUNCH = "extra launch"


class Runner:
    def __init__(self, campaign: Campaign, store: RunStore, argv: list[str] | None = None,
                 on_trial_done: Callable[[Runner, Trial], None] | None = None,
                 stream=sys.stderr, resume: bool = False, retry_skipped: bool = False,
                 companions: Callable[[Point, int, int], tuple[Companion, ...]] | None = None):
        self.campaign = campaign
        self.resume = resume
        self.pairs: list[HostPair] = campaign.host_pairs()
        self.hosts: HostSet | None = None
        self.pairs_down: dict[str, str] = {}  # host pair label -> why it was given up
        # Trials already finished (only when resuming), by point, launch and trial number: a resumed point feeds
        # them to its stopping rule instead of running them.
        self.finished: dict[tuple[Point, int, int], Trial] = {}
        # Point groups whose trials in a launch ended (a stopping record exists): a resume skips them.
        self.done_groups: set[tuple[PointGroup, int]] = set()
        self.launches = campaign.most_launches
        self.launch, self.launch_seed = 0, 0  # the launch running now and the seed of its orders
        # The load sweep of the launch running now (campaign key sweep): each step's rate, and when to stop.
        self.sweeps = SweepState(campaign.load_plan)
        self.store = store
        self.argv = argv or sys.argv
        self.on_trial_done = on_trial_done
        # What takes turns with a sliced trial's targets beside them, by point, launch and trial (`orbench
        # fidelity`'s references, slices.Companion): a target alone is sliced with them.
        self.companions = companions
        self.lanes: list[Lane] = []  # the host pairs of the step running now
        self.broken: dict[str, str] = {}
        # Pairs sharing no host run their rounds at the same time (campaign key concurrent_pairs): the trials'
        # bookkeeping (sequence numbers, trials.csv, manifest, progress) is then guarded by this lock.
        self.concurrent = campaign.settings.concurrent_pairs
        self._lock = threading.RLock()
        self.seq = 0
        self.failed_trials = 0
        # Points given up after failures in a row (skips.py); a stall counts when it lasted the watchdog's bound.
        self.skips = PointSkips(store.path, campaign.settings.stall_timeout_s or DEFAULT_STALL_S)
        self.baselines = {t.name: t.baseline for t in campaign.targets
                          if t.kind in MEASURED_AGAINST_BASELINE and t.baseline}
        self.stopping = StoppingRule.from_settings(
            campaign.settings, self.baselines, samples_dir=store.path,
            unscaled=frozenset(t.name for t in campaign.targets if not t.added_scales_with_host))
        self.steady = SteadyState.from_settings(campaign.settings)
        self.profile_tools = ToolShipper()  # the profile mode's files on each host, shipped once
        # The order of targets within each round is random, from a seed the manifest records (schedule.py); a
        # resumed run keeps its seed, so it draws the same orders.
        if campaign.settings.order_seed is None:
            self.campaign = campaign = campaign.with_settings(order_seed=new_seed())
        if resume:
            if store.written_schema() != SCHEMA_VERSION:
                raise UserError(f"{store.path}: written with results schema {store.written_schema()}; this orbench "
                                f"writes {SCHEMA_VERSION} and resumes only runs of its own schema (start a new run)")
            manifest, trials = store.read()
            self.seq = max((t.seq for t in trials), default=0)
            self.finished = self.skips.finished_on_resume(trials, FINISHED_STATUSES, retry_skipped)
            retried = {(t.point.group, t.launch) for t in trials if is_rule_skip(t)} if retry_skipped else set()
            # A group whose given-up points are retried runs again (its finished trials are kept and re-fed).
            self.done_groups = {(PointGroup.from_record(r), int(r.get("launch", 0))) for r in manifest["stopping"]}
            self.done_groups -= retried
        self.progress = Progress(total_group_runs(campaign, self.pairs) - len(self.done_groups), stream)
        self.manifest: Manifest | None = None
        # Where the time goes (accounting.py): per launch and point group, per lane while the group runs.
        self.clock = RunClock()
        self.group_clocks: dict[tuple[str, PointGroup], PhaseClock] = {}
        self.prior_time = time_account(store.read_manifest()) if resume else None
        # Planned repetitions and the time budget (budget.py): the launches, and each group's trials and calls.
        self.groups_per_launch = total_group_runs(campaign, self.pairs) // campaign.most_launches
        self.planned: PlannedRepetitions | None = None
        if campaign.settings.is_planned and not campaign.is_soak:
            groups = [g for pair in self.pairs for o in campaign.option_labels()
                      for g in campaign.point_groups(pair.label, o) if not g.is_sweep_step]
            self.planned = PlannedRepetitions(
                campaign, store, groups, self.progress.note, time.monotonic(),
                self.prior_time.wall_s if self.prior_time else 0.0,
                repetition_plans(store.read_manifest()) if resume else None)
            for trial in sorted(self.finished.values(), key=lambda t: t.seq):
                self.planned.add_trial(trial)
        self.resumed_done = set(self.done_groups)

    @property
    def sessions(self) -> dict[str, TargetSession]:
        """The live workers by target name (of the first host pair of the step: for one pair, all of them)."""
        out: dict[str, TargetSession] = {}
        for lane in reversed(self.lanes):
            out.update(lane.sessions)
        return out

    # -- manifest -------------------------------------------------------------------------------------------
    def _prepare_hosts(self) -> None:
        """Connect, deploy and check every host before anything runs (UserError lists what is missing)."""
        hosts = HostSet(self.pairs, self.campaign.ssh_settings(), self.campaign.name, self.store.run_id)
        runnable = [t for t in self.campaign.targets if unavailable_reason(t) is None]
        pinned = any(p != "unpinned" for p in self.campaign.settings.placements)
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
            self.manifest = self.store.manifest()
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
        self.manifest = Manifest.start(
            "soak" if self.campaign.is_soak else "campaign", self.store.run_id, self.argv,
            collect_environment(self.campaign.jdk.java if self.campaign.jdk else None),
            campaign=self.campaign.as_run(),
            hosts=self._hosts_manifest(),
            host_pairs=[{**p.as_dict(), "placements": [] if self.hosts.unreachable(p) else
                            [self._placement(p, name).as_dict() for name in self.campaign.settings.placements],
                            **({"skipped": why} if (why := self.hosts.unreachable(p)) else {})}
                           for p in self.pairs],
            placements=[self._placement(self.hosts.alive_pairs()[0], p).as_dict()
                           for p in self.campaign.settings.placements],
            targets={
                t.name: {"kind": t.kind, "language": t.language, "baseline": t.baseline,
                         **({"family": t.family} if t.family else {}),
                         **({"oneway_call": t.oneway_call} if t.oneway_call != "written" else {}),
                         **({"parameter": {t.parameter: t.parameter_value}} if t.parameter else {}),
                         **({"known_added_ns": t.known_added_ns} if t.known_added_ns is not None else {}),
                         "description": t.description, "warmup": self.campaign.warmup_for(t),
                         "server_argv": t.server_command(self.campaign.settings.host, 0), "client_argv": t.client_command(),
                         "options": self.campaign.connect_options(t),
                         "option_sets": {(plan := self.campaign.option_plan(t, o)).label: plan.as_dict()
                                         for o in self.campaign.option_sets()},
                         "workers": {}}
                for t in self.campaign.targets
            },
            skipped_targets=skipped,
            warnings=[f"host pair {p.label} skipped: {why}" for p in self.pairs
                         if (why := self.hosts.unreachable(p))],
            stopping=[], launches=[], steady_state=[], **({"soaks": []} if self.campaign.is_soak else {}))
        self.broken.update({name: f"unavailable: {why}" for name, why in skipped.items()})
        self.store.write_manifest(self.manifest)

    def _awake_cpus(self) -> AwakeCPUs | None:
        """The busy loops of awake_cpus (running/awake.py) on every CPU a placement pins a worker to (all of this
        machine's when unpinned); this machine's only."""
        if not self.campaign.settings.awake_cpus:
            return None
        assert self.hosts is not None
        cpus: set[int] = set()
        for pair in self.hosts.alive_pairs():
            remote = [h.name for h in (pair.server, *pair.clients) if not h.is_local]
            if remote:
                raise UserError(f"{self.campaign.path}: awake_cpus keeps this machine's CPUs awake only, and host "
                                f"pair {pair.label} runs on {remote[0]}: set awake_cpus = false for remote hosts")
            for name in self.campaign.settings.placements:
                cpus |= self._placement(pair, name).worker_cpus()
        return AwakeCPUs(cpus)

    def _placement(self, pair: HostPair, name: str) -> Placement:
        assert self.hosts is not None
        return resolve_on(name, self.hosts.cpus(pair.server), self.hosts.cpus(pair.client))

    def _record_workers(self, session: TargetSession, block: Block) -> None:
        with self._lock:  # also called from a pair's thread (a restart)
            info = self.manifest["targets"][session.target.name]["workers"]
            info[block.label] = {
                "host_pair": block.pair.label, "placement": block.placement, "options": block.options,
                **({"server_setting": session.setting.as_dict()} if session.setting is not None else {}),
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
        # Before the first trial: a thread started just before a trial slows it (load_usage.py).
        SAMPLING.start()
        self._start_manifest()
        status = "failed"
        awake = self._awake_cpus()
        try:
            if awake is not None:
                awake.start()
                self.manifest["awake_cpus"] = awake.as_dict()
                self.store.write_manifest(self.manifest)
            seed = self.campaign.settings.order_seed
            assert seed is not None
            if self.planned is not None:
                self.planned.before_run()
                self._apply_plan(0)
            launch = 0
            while launch < self.launches:
                if self.planned is not None and launch > 0 and not self.planned.launch_fits():
                    self._apply_plan(launch)
                    break
                self._start_launch(launch, launch_seed(seed, launch))
                pending = self._launch_pending(launch)
                for step in launch_steps(steps(self.campaign, self.pairs), self.launch_seed):
                    self._run_step(step, launch)
                if self.planned is not None and pending:
                    self.planned.after_launch(launch, self.time_account())
                    self._apply_plan(launch + 1)
                launch += 1
            status = "complete" if self.failed_trials == 0 else "complete-with-failures"
            self.progress.finish()
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        finally:
            if awake is not None:
                awake.stop()
            for lane in self.lanes:
                lane.stop()
            self.lanes = []
            if self.manifest is None:  # the hosts were not ready: what the run got to, for the record
                self.manifest = Manifest.start("soak" if self.campaign.is_soak else "campaign", self.store.run_id,
                                               self.argv, {})
            if self.hosts is not None:
                self.manifest.setdefault("warnings", []).extend(self.hosts.collect_gc_logs(self.store.logs_dir))
                # Belt and braces: whatever a worker's own stop missed (a channel that died) ends here.
                self.manifest.setdefault("warnings", []).extend(self.hosts.sweep_all())
                self.hosts.close()
            self.manifest.finish(status)
            self.manifest["failed_trials"] = self.failed_trials
            self.manifest["time_accounting"] = self.time_account().to_json()
            if self.planned is not None:
                self.manifest["repetitions"] = self.planned.to_json()
            self.store.write_manifest(self.manifest)
            self.store.mark_latest()
        return self.failed_trials

    def _start_launch(self, launch: int, seed: int) -> None:
        """A launch's record in the manifest: its number and the seed of its orders (a resume adds none twice)."""
        self.launch, self.launch_seed = launch, seed
        self.sweeps = SweepState(self.campaign.load_plan)
        for (_, done_launch, _), trial in sorted(self.finished.items(), key=lambda kv: kv[1].seq):
            if done_launch == launch:  # a resumed launch: its finished probes and steps, as they ran
                self.sweeps.note(trial)
        with self._lock:
            records = self.manifest.setdefault("launches", [])
            if not any(r.get("launch") == launch for r in records):
                records.append({"launch": launch, "seed": seed, "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
                self.store.write_manifest(self.manifest)
        if self.launches > 1:
            self.progress.note(f"launch {launch + 1} of {self.launches} (order seed {seed})")

    def _record_launch_pids(self, session: TargetSession, block: Block) -> None:
        """The processes a launch started (their pids, as each worker reports them): the evidence that every launch
        ran fresh workers."""
        with self._lock:
            record = next(r for r in self.manifest["launches"] if r.get("launch") == self.launch)
            record.setdefault("workers", {})[f"{session.target.name} {block.label}"] = {
                "server_pid": session.server.ready.get("pid") if session.server else None,
                "client_pid": session.hello.get("pid") or (session.client.pid if session.client else None),
                # Every client worker with its host and pid there: which host ran which client (spread_clients).
                "clients": session.client_places() if session.client else []}
            self.store.write_manifest(self.manifest)

    def _targets(self) -> list[Target]:
        """The campaign's targets that run in this launch (launches_for gives some more launches than others)."""
        return [t for t in self.campaign.targets if self.launch < self.campaign.launches_of(t, self.launches)]

    def _last_launch_of(self, target: Target) -> bool:
        """Whether this launch is the target's last: its traced and profiled trials run there."""
        return self.launch == min(self.launches, self.campaign.launches_of(target, self.launches)) - 1

    def _pending(self, groups: tuple[PointGroup, ...]) -> bool:
        """Whether any of the groups has trials left in this launch (no stopping record yet)."""
        return any((g, self.launch) not in self.done_groups for g in groups)

    def _run_step(self, step: tuple[Block, ...], launch: int) -> None:
        """Every pair's workers of one placement and option set, started afresh for this launch, then its point
        groups one after the other in the launch's order, each group's rounds interleaved across the pairs."""
        order = sweep_last(step[0].groups, launch_order(tuple(range(len(step[0].groups))), self.launch_seed),
                           self.launch_seed)
        step = tuple(replace(b, groups=tuple(b.groups[i] for i in order)) for b in step)
        try:
            self.lanes = [self._open_lane(b) for b in step]
            if self.concurrent and len(self.lanes) > 1:
                waves = disjoint_waves([lane.block.pair for lane in self.lanes])
                with self._lock:
                    self.manifest.setdefault("concurrent_pairs", []).append({
                        "placement": step[0].placement, "options": step[0].options,
                        "waves": [[self.lanes[i].label for i in wave] for wave in waves]})
                    self.store.write_manifest(self.manifest)
            interleaved = ([n for n, g in enumerate(step[0].groups) if not g.is_sweep_step]
                           if self.campaign.settings.interleave_groups and not self.campaign.is_soak else [])
            if interleaved:
                self._run_passes(interleaved)
            for n in range(len(step[0].groups)):
                if n not in interleaved:
                    self._run_groups([(lane, lane.block.groups[n]) for lane in self.lanes])
        finally:
            for lane in self.lanes:
                with self.clock.workers(launch, lane.block.label):
                    lane.stop()
            self.lanes = []

    def _launch_pending(self, launch: int) -> bool:
        """Whether the launch has a group left to run (a resumed run passes its finished launches)."""
        return any((g, launch) not in self.resumed_done for b in blocks(self.campaign, self.pairs) for g in b.groups)

    def _apply_plan(self, done: int) -> None:
        """The latest plan's launches (`done` ran already), for the loop, the progress and the manifest."""
        assert self.planned is not None
        self.launches = self.planned.launches(done)
        self.progress.total = max(1, self.groups_per_launch * self.launches - len(self.resumed_done))
        if self.manifest is not None:
            with self._lock:
                self.manifest["repetitions"] = self.planned.to_json()
                self.store.write_manifest(self.manifest)

    def time_account(self) -> TimeAccount:
        """The run's time so far (with a resumed run's earlier part)."""
        now = self.clock.account()
        if self.prior_time is None:
            return now
        prior = self.prior_time
        return TimeAccount.of(prior.wall_s + now.wall_s, prior.records + now.records)

    def _open_lane(self, block: Block) -> Lane:
        """One pair's block: its targets' workers started, or why they cannot run there."""
        assert self.hosts is not None
        pair = block.pair
        if pair.label not in self.pairs_down and (why := self.hosts.unreachable(pair)):
            # A host unreachable at the start: the pair's trials are skipped, with the reason.
            self.pairs_down[pair.label] = why
        down = self.pairs_down.get(pair.label)
        placement = Placement(block.placement, None, None) if down else self._placement(pair, block.placement)
        lane = Lane(block, PairRuntime(pair, self.hosts, placement), broken=dict(self.broken))
        if not self._pending(block.groups):
            return lane
        for t in self._targets():
            if t.name in lane.broken:
                continue
            if pair.label in self.pairs_down:
                lane.broken[t.name] = self.pairs_down[pair.label]
                continue
            plan = self.campaign.option_plan(t, block.option_set)
            if plan.unsupported:
                lane.broken[t.name] = f"unsupported: {plan.unsupported}"
                continue
            try:
                setting = server_setting(t, block.threading, block.objects)
            except Unsupported as exc:
                lane.broken[t.name] = f"unsupported: {exc}"
                continue
            tag = block.groups[0].with_target(t.name).workers_slug
            session = TargetSession(t.with_server_args(plan.server_args + setting.args), lane.runtime,
                                    self.store.logs_dir, plan.client, tag, setting=setting, launch=self.launch,
                                    on_clients_started=lambda s, b=block: self._record_launch_pids(s, b))
            try:
                where = placement.name if pair.label == "local" else f"{pair.label}, {placement.name}"
                self.progress.note(f"starting {t.name} ({where})")
                with self.clock.workers(self.launch, block.label):
                    session.start()
                lane.sessions[t.name] = session
                self._record_workers(session, block)
                self._record_launch_pids(session, block)
            except WorkerError as exc:
                # A worker refusing an option it cannot do is a skip with its reason, not a failure.
                lane.broken[t.name] = (f"unsupported: {exc}" if exc.kind == "unsupported"
                                       else f"could not start: {exc}")
                self.progress.note(f"{t.name}: {lane.broken[t.name]}")
                self._check_pair(lane)
        return lane

    def _run_groups(self, lane_groups: list[tuple[Lane, PointGroup]]) -> None:
        """The same point group on every pair: rounds of one trial per target, pair after pair (or, with
        concurrent_pairs, the pairs of a wave at once), until each pair's stopping rule ends its group; each
        record goes into the manifest."""
        if self.campaign.is_soak:
            self._run_soak_groups(lane_groups)
            return
        running = self._begin_groups(lane_groups)
        while running:
            running = self._one_round(running)

    def _run_passes(self, indexes: list[int]) -> None:
        """The step's point groups (by index) interleaved (campaign key interleave_groups): passes in which every
        group still running does one round, in a fresh random order per pass, until each group's stopping rule
        ends it. A group's trials then spread over the whole launch instead of a fraction of a second of it, so
        the host's speed phases (which switch every 0.3-0.8 s on a small VM) fall on every group alike within a
        launch, not on whole groups of one launch and not another (Abedi and Brecht's randomized multiple
        interleaved trials)."""
        running = {n: found for n in indexes
                   if (found := self._begin_groups([(lane, lane.block.groups[n]) for lane in self.lanes]))}
        passes = 0
        while running:
            where = f"launch {self.launch + 1} of {self.launches}, " if self.launches > 1 else ""
            self.progress.note(f"{where}pass {passes + 1}: {len(running)} of {len(indexes)} point groups still running")
            order = sorted(running)
            random.Random(trial_seed(self.launch_seed, self.lanes[0].block.groups[order[0]].with_target("pass"),
                                     passes)).shuffle(order)
            for n in order:
                left = self._one_round(running[n])
                if left:
                    running[n] = left
                else:
                    del running[n]
            passes += 1

    def _begin_groups(self, lane_groups: list[tuple[Lane, PointGroup]]) -> list[tuple[Lane, PointGroup, Any]]:
        """The groups' trials in this launch under the stopping rule (those not finished before a resume), their
        clocks started."""
        # A sweep step runs one trial per launch: its interval is over launches, and its rate is a share of the
        # launch's own capacity probe.
        running = [(lane, group, self._start_group(group))
                   for lane, group in lane_groups if (group, self.launch) not in self.done_groups]
        for lane, group, _ in running:
            self.group_clocks[(lane.label, group)] = self.clock.group()
        if running:
            self.progress.group_started()
        return running

    def _one_round(self, running: list[tuple[Lane, PointGroup, Any]]) -> list[tuple[Lane, PointGroup, Any]]:
        """One round of the same group on every pair (or, with concurrent_pairs, the pairs of a wave at once);
        the groups whose stopping rule ends them get their records, the others are returned."""
        started = time.monotonic()
        if self.concurrent and len(running) > 1:
            for wave in disjoint_waves([lane.block.pair for lane, _, _ in running]):
                self._at_once([running[i] for i in wave])
        else:
            for lane, group, trials in running:
                self._run_round(lane, group, trials)
        left = []
        for lane, group, trials in running:
            trials.add_time(time.monotonic() - started)
            reason = trials.stop_reason()
            if reason:
                with self._lock:
                    self.manifest.setdefault("stopping", []).append(trials.record(group, reason))
                    self.done_groups.add((group, self.launch))
                    self.store.write_manifest(self.manifest, lazily=True)
                # The traced trial is not a result: one per point and target, in the last launch.
                clock = self.group_clocks.pop((lane.label, group))
                if self.campaign.settings.anatomy == "syscalls":
                    with clock.phase("anatomy"):
                        self._run_traced(lane, group)
                if self.campaign.settings.profile:
                    with clock.phase("profiles"):
                        self._run_profiled(lane, group, trials.p50s)
                self.clock.close_group(self.launch, group, clock, trials.rounds, self._calls_of(group))
                self.progress.group_finished()
            else:
                left.append((lane, group, trials))
        return left

    def _start_group(self, group: PointGroup) -> Any:
        """A group's trials in this launch under the stopping rule; a sweep step runs one trial per launch (its
        interval is over launches, its rate a share of the launch's own capacity probe); planned repetitions
        run the plan's trials, fewer when the budget's time is up."""
        if group.is_sweep_step:
            return self.stopping.start_point(self.launch, self._spent_s(group), rounds=1)
        if self.planned is not None:
            return self.stopping.start_point(self.launch, self._spent_s(group), rounds=self.planned.trials(group),
                                             fixed_reason="planned", over_time=self.planned.deadline_passed)
        if self.launch >= self.campaign.settings.launches:
            # A launch that only launches_for's targets run is there for the variance between processes: more
            # trials in it would narrow what is already the narrow part.
            return self.stopping.start_point(self.launch, self._spent_s(group), rounds=self.campaign.settings.trials,
                                             fixed_reason=EXTRA_LAUNCH)
        return self.stopping.start_point(self.launch, self._spent_s(group))

    # -- soak points ------------------------------------------------------------------------------------------
    def _run_soak_groups(self, lane_groups: list[tuple[Lane, PointGroup]]) -> None:
        """Soak points (campaign key duration_s): per pair, one soak per target, in the launch's order; the
        group's stopping record says the soaks ran (a resume then skips it)."""
        for lane, group in lane_groups:
            if (group, self.launch) in self.done_groups:
                continue
            self.progress.group_started()
            for t in round_order(self._targets(), group, 0, self.launch_seed, self.baselines):
                self._run_soak(lane, group.with_target(t.name), t)
            with self._lock:
                self.manifest["stopping"].append({**group.as_record(), "launch": self.launch, "rounds": 1,
                                                  "reason": "soak: one run of duration_s per target"})
                self.done_groups.add((group, self.launch))
                self.store.write_manifest(self.manifest)

    def _soak_record(self, lane: Lane, point: Point, target: Target) -> SoakRecord:
        """The point's record from an earlier (resumed) run, or a new one."""
        for r in soak_records(self.manifest.to_json()):
            if r.matches(point, self.launch):
                return r
        s = self.campaign.settings
        seed = s.arrivals_seed
        if s.load.arrivals == "poisson" and seed is None:
            seed = new_seed()
        assert s.duration_s is not None
        return SoakRecord(point, self.launch, soak_dir_name(point, self.launch), s.duration_s,
                          min(s.interval_s, s.duration_s), s.load.arrivals, seed,
                          self.campaign.warmup_for(target), time.time(),
                          hosts={"server": lane.runtime.server_host.name,
                                 "client": "+".join(h.name for h in lane.runtime.client_hosts)})

    def _put_soak(self, record: SoakRecord) -> None:
        with self._lock:
            records = self.manifest.setdefault("soaks", [])
            at = next((i for i, r in enumerate(soak_records({"soaks": records}))
                       if r.matches(record.point, record.launch)), None)
            if at is None:
                records.append(record.to_json())
            else:
                records[at] = record.to_json()
            self.store.write_manifest(self.manifest)

    def _run_soak(self, lane: Lane, point: Point, target: Target) -> None:
        record = self._soak_record(lane, point, target)
        if record.status in ("finished", "skipped"):
            return
        unsupported = self.campaign.unsupported(target, point.mode, point.payload_type)
        broken = lane.broken.get(target.name)
        if unsupported or broken:
            why = unsupported or broken or ""
            skipped = bool(unsupported) or why.startswith(("unavailable", "unsupported", "unreachable"))
            record.status, record.failures = ("skipped" if skipped else "failed"), {"setup": why}
            self.failed_trials += record.status == "failed"
            self._put_soak(record)
            return
        session = lane.sessions[target.name]
        self._hold(lane, target.name)
        where = "" if lane.runtime.is_local else f" on {lane.label}"
        self.progress.note(f"soak of {point.label}{where} for {record.duration_s:g} s, one histogram per "
                           f"{record.interval_s:g} s -> {record.dir}")
        try:
            run_soak_point(session, record, self.store.path, self.campaign.settings.sync_timeout_ms, self.argv,
                           self.progress.note, self._put_soak)
        except WorkerError as exc:
            self.progress.note(f"{point.label}: soak failed: {exc}")
            self._check_pair(lane)
            if target.name not in lane.broken:
                self._restart(lane, session)
        self.progress.soak(point.label, record.status, sum(int(a.get("calls") or 0) for a in record.answers.values()))
        if record.status == "failed":
            self.failed_trials += 1
            for k, why in record.failures.items():
                self.progress.note(f"{point.label}: client {k}: {why}")

    def _spent_s(self, group: PointGroup) -> float:
        """Seconds this group's finished later rounds took in this launch before a resume (they count against
        the time cap; the first round's full warm-ups do not)."""
        return sum(t.duration_s or 0.0 for (point, launch, trial), t in self.finished.items()
                   if launch == self.launch and trial > 0 and point.group == group)

    def _at_once(self, wave: list[tuple[Lane, PointGroup, Any]]) -> None:
        """One round on each pair of a wave (pairs sharing no host), each in its own thread."""
        if len(wave) == 1:
            self._run_round(*wave[0])
            return
        failures: list[BaseException] = []

        def one(lane: Lane, group: PointGroup, trials: Any) -> None:
            try:
                self._run_round(lane, group, trials)
            except BaseException as exc:  # noqa: BLE001 - raised again in the main thread
                failures.append(exc)

        threads = [threading.Thread(target=one, args=member, daemon=True, name=f"pair-{member[0].label}")
                   for member in wave]
        for t in threads:
            t.start()
        for t in threads:
            while t.is_alive():
                t.join(timeout=0.5)
        if failures:
            raise failures[0]

    def _run_round(self, lane: Lane, group: PointGroup, trials: Any) -> None:
        for unit in round_units(self._targets(), group, trials.rounds, self.launch_seed, self.baselines):
            finished = {t.name for t in unit if (group.with_target(t.name), self.launch, trials.rounds) in self.finished}
            for name, result in self._run_unit(lane, group, unit, trials.rounds).items():
                trials.add(name, result)
                if name not in finished:
                    self.sweeps.note(result)
        trials.rounds += 1

    def _hold(self, lane: Lane, *measured: str) -> None:
        """pause_idle_workers: continue the measured target's local workers and stop every other target's of its
        host pair, so their JIT, GC and timer threads stay off the measured CPU during the trial or slice (other
        pairs' workers are left alone: with concurrent_pairs they are measuring)."""
        if not self.campaign.settings.pause_idle_workers:
            return
        for name, session in lane.sessions.items():
            if name not in measured:
                session.signal(signal.SIGSTOP)
        for name in measured:
            if name in lane.sessions:
                lane.sessions[name].signal(signal.SIGCONT)


    def _check_pair(self, lane: Lane) -> None:
        """After a failure: if a host of the pair no longer answers, give up the pair's remaining trials at
        once (one ConnectTimeout, not one per trial), with the reason."""
        if lane.runtime.is_local or lane.label in self.pairs_down:
            return
        try:
            lane.runtime.check_reachable()
        except HostUnreachable as exc:
            why = f"host pair {lane.label} given up: {exc}"
            self.pairs_down[lane.label] = why
            self.progress.note(why)
            lane.stop()
            for t in self.campaign.targets:
                lane.broken.setdefault(t.name, why)

    def _finish(self, point: Point, trial: int, measurement: Measurement, started: float | None = None) -> Trial:
        if started is not None:
            measurement = replace(measurement, started_at=time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(started)),
                                  duration_s=round(time.time() - started, 3))
        with self._lock:
            self.seq += 1
            result = Trial.of(self.seq, point, trial, measurement, launch=self.launch)
            self.store.append_trial(result)
            if result.status == "failed":
                self.failed_trials += 1
            self.progress.trial(result)
            if given_up := self.skips.note(result):
                self.progress.note(f"{point.label}: {given_up}")
            if self.planned is not None:
                self.planned.add_trial(result)
            if self.on_trial_done:
                self.on_trial_done(self, result)
        return result

    def _not_run(self, lane: Lane, point: Point, target: Target, trial: int) -> tuple[Trial | None, float | None]:
        """A trial that does not run (its row, finished: skipped, given up, the target broken), else None with a
        sweep step's offered rate."""
        broken = lane.broken
        why_not = (self.campaign.unsupported(target, point.mode, point.payload_type)
                   or self.campaign.unsupported_load(target, point))
        if why_not:
            return self._finish(point, trial, Measurement(status="skipped", error=why_not)), None
        offered = None
        if point.is_sweep_step and target.name not in broken:
            offered, why_not = self.sweeps.rate_for(point)
            if why_not:
                return self._finish(point, trial, Measurement(status="skipped", error=why_not)), None
        if given_up := self.skips.reason(point):
            return self._finish(point, trial, Measurement(status=GIVEN_UP, error=given_up)), None
        if target.name in broken:
            status = ("skipped" if broken[target.name].startswith(("unavailable", "unsupported", "unreachable"))
                      else "failed")
            return self._finish(point, trial, Measurement(status=status, error=broken[target.name])), None
        return None, offered

    def _warm(self, session: TargetSession, point: Point, clock: PhaseClock) -> tuple[bool, bool]:
        """What comes before a trial's `run`: the steady-state chunks at the worker's first point. Returns
        (first: the trial gets the full warm-up, just_warmed: the chunks ran right before it)."""
        first = session.first_at(point)
        just_warmed = False
        if first and self.steady is not None:
            if session.fixed_warmup_done and self.campaign.settings.steady_at == "first-point":
                first = False  # warmed at its first point: this trial is like the point's later ones
                # ... once the JIT has compiled the point's own paths, unless it never goes quiet (steady.py)
                if session.target.is_jvm and session.jit_busy_points < JIT_BUSY_POINTS:
                    self._warm_until_jit_quiet(session, point, clock)
                    just_warmed = True
            else:
                self._warm_until_steady(session, point, clock)
                first, just_warmed = False, True  # warm now: the trial gets the short rewarm, or none
        clock.warmup_phase = "full_warmup" if first else "rewarm"
        return first, just_warmed

    def _failed(self, lane: Lane, session: TargetSession, exc: WorkerError) -> Measurement:
        """A trial's WorkerError: the trial fails with it, the pair is checked, the target's workers restarted."""
        self._check_pair(lane)
        if session.target.name not in lane.broken:
            self._restart(lane, session)
        return Measurement(status="failed", error=str(exc))

    def _run_trial(self, lane: Lane, point: Point, target: Target, trial: int) -> Trial:
        done, offered = self._not_run(lane, point, target, trial)
        if done is not None:
            return done
        session = lane.sessions[target.name]
        clock = self.group_clocks.get((lane.label, point.group)) or PhaseClock()
        clock.start_trial()
        started = time.time()
        try:
            first, just_warmed = self._warm(session, point, clock)
            if first and point.objects > 1 and self._reads_anatomy(point, trial):
                self._fetch_objects(session, point, clock)
            measurement = self._measure(session, point, trial, first, offered, clock, just_warmed)
        except WorkerError as exc:
            measurement = self._failed(lane, session, exc)
        result = self._finish(point, trial, measurement, started)
        clock.end_trial()
        return result

    def _fetch_objects(self, session: TargetSession, point: Point, clock: PhaseClock) -> None:
        """One untimed call before a first trial at N > 1 objects that reads the anatomy: in it the client fetches
        the references it does not hold yet (PROTOCOL.md, "Load at scale"), a remote call each for an ORB, which
        the anatomy would otherwise spread over the trial's calls (10,000 objects read as 726 us of client CPU and
        30 context switches per call in a 700-call trial of omniORB, where the calls took 23 us and 1)."""
        path = self.store.warmup_samples_path(point, self.launch, 0).with_name(f"{point.slug}-l{self.launch}-objects.i64")
        measure_for(point)(session, point, self._trial_plan(calls=1, warmup=0, samples_file=path, anatomy="off",
                                                             clock=clock.setup()))
        path.unlink(missing_ok=True)

    def _sliced(self, group: PointGroup, trial: int) -> bool:
        """Whether the group's trial `trial` runs in the sliced design (slices.py): a closed loop of one client
        process (on one thread or N), not a sweep step, and not a trial that reads the anatomy (its counters are
        the target's alone)."""
        s = self.campaign.settings
        one_client = group.clients == 1 or group.clients_as == "threads"
        return (s.slice_calls > 0 and group.mode in SLICED_MODES and one_client and not group.rate_hz
                and not group.is_sweep_step and len(slice_sizes(self._calls_of(group), s.slice_calls)) >= 2
                and not self._reads_anatomy(group.with_target(""), trial))

    def _run_unit(self, lane: Lane, group: PointGroup, unit: list[Target], trial: int) -> dict[str, Trial]:
        """One round's trials of a unit (a baseline and its middleware): sliced when the design and the group
        allow and two or more of them run (or one with its companions), else one after the other."""
        if group.is_sweep_step:
            return self._run_sweep_step(lane, group, unit, trial)
        out: dict[str, Trial] = {}
        members: list[Target] = []
        sliced = self._sliced(group, trial)
        companions = (self.companions(group.with_target(unit[0].name), self.launch, trial)
                      if self.companions and sliced else ())
        for t in unit:
            point = group.with_target(t.name)
            done = self.finished.get((point, self.launch, trial))
            if done is None and (len(unit) > 1 or companions) and sliced:
                done, _ = self._not_run(lane, point, t, trial)
                if done is None:
                    members.append(t)
                    continue
            if done is None:
                self._hold(lane, t.name)
                done = self._run_trial(lane, point, t, trial)
            out[t.name] = done
        if len(members) == 1 and not companions:
            self._hold(lane, members[0].name)
            out[members[0].name] = self._run_trial(lane, group.with_target(members[0].name), members[0], trial)
        elif members:
            out.update(self._run_sliced(lane, group, members, trial, companions))
        return {t.name: out[t.name] for t in unit}

    def _run_sweep_step(self, lane: Lane, group: PointGroup, unit: list[Target], trial: int) -> dict[str, Trial]:
        """One round of a unit at a sweep step: each target's trial at its own rate and, where the sweep pairs,
        each baseline's at its middleware's rate beside it (schedule.sweep_step_runs). The paired trials are the
        sweep's to note here; the round's own trials go back to the stopping rule."""
        sweep = self.campaign.load_plan.sweep
        runs = (sweep_step_runs(unit, group, trial, self.launch_seed, self.baselines)
                if sweep is not None and sweep.paired else [(t, "") for t in unit])
        out: dict[str, Trial] = {}
        for t, load_of in runs:
            point = group.with_target(t.name).replace(load_of=load_of)
            done = self.finished.get((point, self.launch, trial))
            if done is None:
                self._hold(lane, t.name)
                done = self._run_trial(lane, point, t, trial)
                if load_of:
                    self.sweeps.note(done)
            if not load_of:
                out[t.name] = done
        return out

    def _run_sliced(self, lane: Lane, group: PointGroup, members: list[Target], trial: int,
                    companions: tuple[Companion, ...] = ()) -> dict[str, Trial]:
        """The members' trials as alternating slices (slices.py), with the companions' turns; each member's
        warm-up (steady-state chunks, the trial's warm-up or rewarm) before the first slice, a failed member's
        workers restarted after."""
        clock = self.group_clocks.get((lane.label, group)) or PhaseClock()
        clock.start_trial()
        started = time.time()
        sliced: list[SliceMember] = []
        out: dict[str, Trial] = {}
        for t in members:
            session, point = lane.sessions[t.name], group.with_target(t.name)
            self._hold(lane, t.name)  # its warm-up alone on the CPU, as a whole trial's
            try:
                first, just_warmed = self._warm(session, point, clock)
                plan = self._plan(session, point, trial, first, None, clock, just_warmed)
            except WorkerError as exc:
                out[t.name] = self._finish(point, trial, self._failed(lane, session, exc), started)
                continue
            sliced.append(SliceMember(session, point, plan, clock.warmup_phase))
        clock.warmup_phase = "rewarm"
        if len(sliced) + (len(companions) if sliced else 0) >= 2:
            s = self.campaign.settings
            rng = random.Random(trial_seed(self.launch_seed, group.with_target("slices"), trial))
            # A unit with a JVM: each slice with only its own target's workers running, the other JVMs' JIT, GC and
            # timer threads off the CPU, as during a whole trial (pause_idle_workers). Without one, the unit's
            # workers all run through the trial: stopping and continuing them around every slice read omniORB
            # about 4 us faster per call at split-core than whole trials did (the campaigns README, "How a
            # campaign runs").
            # In turns (slices.takes_turns) both clients run through the trial, the one waiting blocked on its pipe.
            names = [m.point.target for m in sliced]
            turns = s.slice_turns and takes_turns(sliced, companions)
            per_slice = not turns and any(lane.sessions[n].target.is_jvm for n in names)
            if not per_slice:
                self._hold(lane, *names)
            before_slice = (lambda m: self._hold(lane, m.point.target)) if per_slice else (lambda m: None)
            results = measure_sliced(sliced, s.slice_calls, s.slice_rewarm, rng, before_slice, companions, turns)
        else:  # the others failed their warm-up: the one left runs its trial whole, its workers running again
            results = []
            for m in sliced:
                self._hold(lane, m.point.target)
                results.append(_measure_or_error(m))
        for member, result in zip(sliced, results):
            measurement = (self._failed(lane, member.session, result) if isinstance(result, WorkerError)
                           else result)
            out[member.point.target] = self._finish(member.point, trial, measurement, started)
        clock.end_trial(trials=len(members))
        return out

    def _run_traced(self, lane: Lane, group: PointGroup) -> None:
        """The anatomy mode: one trial per target with strace attached to both workers, into traced.csv (apart
        from the latency trials: tracing slows every system call). One-client points only."""
        if group.clients > 1:
            return
        for t in self._targets():
            if not self._last_launch_of(t) or t.name in lane.broken or t.name not in lane.sessions \
                    or self.campaign.unsupported(t, group.mode, group.payload_type):
                continue
            point = group.with_target(t.name)
            session = lane.sessions[t.name]
            self._hold(lane, t.name)
            started = time.time()
            try:
                measurement = bounded(measure_single)(session, point, self._plan(session, point, None, True))
            except WorkerError as exc:
                measurement = Measurement(status="failed", error=str(exc))
                self._check_pair(lane)
                if t.name not in lane.broken:
                    self._restart(lane, session)
            measurement = replace(measurement, started_at=time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(started)),
                                  duration_s=round(time.time() - started, 3))
            with self._lock:
                self.store.append_trial(Trial.of(0, point, 0, measurement), traced=True)
            self.progress.note(f"{point.label}: traced trial {measurement.status}"
                               + (f" ({measurement.error})" if measurement.error else ""))

    def _run_profiled(self, lane: Lane, group: PointGroup, p50s: dict[str, dict[int, float]]) -> None:
        """The profile mode: one trial per target with a sampling profiler attached to both workers
        (running/profiled.py), into profiled.csv and profiles/ (apart from the latency trials: the profilers
        sample the workers). One-client points only."""
        settings = ProfileSettings.from_settings(self.campaign.settings)
        if not settings.covers(group):
            return
        for t in self._targets():
            if not self._last_launch_of(t) or t.name in lane.broken or t.name not in lane.sessions \
                    or self.campaign.unsupported(t, group.mode, group.payload_type):
                continue
            point = group.with_target(t.name)
            session = lane.sessions[t.name]
            self._hold(lane, t.name)
            latencies = list(p50s.get(t.name, {}).values())
            plan = replace(self._plan(session, point, None, False),
                           calls=profiled_calls(self.campaign.settings.calls, sum(latencies) / len(latencies) if latencies
                                                else None, settings.seconds),
                           samples_file=self.store.profiled_samples_path(point),
                           anatomy="off" if self.campaign.settings.anatomy == "off" else "counters")
            started = time.time()
            try:
                profiled = measure_profiled(session, point, plan, settings, self.profile_tools)
            except WorkerError as exc:
                profiled = failed_trial(exc)
                self._check_pair(lane)
                if t.name not in lane.broken:
                    self._restart(lane, session)
            measurement = replace(profiled.measurement, duration_s=round(time.time() - started, 3),
                                  started_at=time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(started)))
            hosts = {"client": lane.runtime.client_host.name, "server": lane.runtime.server_host.name}
            with self._lock:
                self.store.append_trial(Trial.of(0, point, 0, measurement), profiled=True)
                for record in profile_records(self.store.path, point, replace(profiled, measurement=measurement),
                                              hosts):
                    append_record(self.store.path, record)
            self.progress.note(f"{point.label}: profiled trial {measurement.status}, {plan.calls} calls"
                               + (f" ({measurement.error})" if measurement.error else ""))

    def _restart(self, lane: Lane, session: TargetSession) -> None:
        """After a crash or a broken connection: fresh workers for the next trial, or give the target up."""
        try:
            with self.clock.workers(self.launch, lane.block.label):
                session.stop()
                session.start()
            self._record_workers(session, lane.block)
        except WorkerError as exc:
            lane.broken[session.target.name] = f"could not restart after a failure: {exc}"
            lane.sessions.pop(session.target.name, None)

    def _calls_of(self, group: PointGroup) -> int:
        """The timed calls per trial (per client) of the group's trials in this launch."""
        planned = self.planned.calls(group) if self.planned is not None else None
        return planned or self.campaign.settings.calls

    def _plan(self, session: TargetSession, point: Point, trial: int | None, first: bool,
              offered_rate_hz: float | None = None, clock: PhaseClock | None = None,
              just_warmed: bool = False) -> TrialPlan:
        """A latency trial's plan, or (trial None) the anatomy mode's traced trial's; `first`: the first trial
        these workers run at the point (the full warm-up); `just_warmed`: the steady-state chunks ran right
        before it; `offered_rate_hz`: a sweep step's rate in all."""
        s = self.campaign.settings
        anatomy = "traced" if trial is None else ("counters" if self._reads_anatomy(point, trial) else "off")
        sweep = self.campaign.load_plan.sweep
        planned = self.planned.calls(point.group) if self.planned is not None else None
        calls = (sweep.step_calls_per_client(offered_rate_hz) if sweep is not None and offered_rate_hz is not None
                 else planned or s.calls)
        # Right after the steady-state chunks the worker is as warm as it gets: a rewarm is only needed when the
        # anatomy's reading (and its settle) idles the CPU in between.
        warmup = (0 if just_warmed and anatomy == "off"
                  else self.campaign.warmup_for(session.target, first, point.mode))
        return self._trial_plan(calls=calls, warmup=warmup,
                                samples_file=self.store.samples_path(point, trial, self.launch) if trial is not None
                                else self.store.traced_samples_path(point),
                                anatomy=anatomy, clock=clock, offered_rate_hz=offered_rate_hz,
                                seed=trial_seed(self.launch_seed, point, trial or 0))

    def _reads_anatomy(self, point: Point, trial: int) -> bool:
        """Whether a latency trial of this launch reads the anatomy counters (Settings.reads_anatomy); the trials
        that read nothing have nothing idle the CPU right before them."""
        return self.campaign.settings.reads_anatomy(point.payload_bytes, trial, self.launch)

    def _trial_plan(self, *, calls: int, warmup: int, samples_file: Path, anatomy: str, clock: PhaseClock | None,
                    offered_rate_hz: float | None = None, seed: int | None = None) -> TrialPlan:
        """A plan of calls at a point, latency trial's or warm-up chunk's: what is its own as given, the rest the
        same for every plan of the launch (the campaign's barrier timeout and stall bound, the store's root)."""
        s = self.campaign.settings
        return TrialPlan(calls=calls, warmup=warmup, samples_file=samples_file, anatomy=anatomy, clock=clock,
                         offered_rate_hz=offered_rate_hz, seed=seed, sync_timeout_ms=s.sync_timeout_ms,
                         store_root=self.store.path, stall_timeout_s=s.stall_timeout_s)

    def _measure(self, session: TargetSession, point: Point, trial: int, first: bool,
                 offered_rate_hz: float | None = None, clock: PhaseClock | None = None,
                 just_warmed: bool = False) -> Measurement:
        return measure_for(point)(session, point, self._plan(session, point, trial, first, offered_rate_hz, clock,
                                                             just_warmed))

    def _warm_until_steady(self, session: TargetSession, point: Point, clock: PhaseClock) -> None:
        """Untimed chunks until the worker's latency is steady (steady.py); the record goes into the manifest's
        steady_state, a failed chunk's WorkerError to the caller (the trial fails, the workers restart)."""
        assert self.steady is not None
        measure = measure_for(point)
        # The fixed warm-up once per worker launch, at its first point (the JIT's first compilations); at later
        # points none: the chunks are the warm-up there, and go on until the latency is steady there too.
        full = self.campaign.warmup_for(session.target) if not session.fixed_warmup_done else 0
        chunks = clock.chunks(full_warmup=not session.fixed_warmup_done)
        session.fixed_warmup_done = True

        def chunk(n: int, warmup: int) -> Chunk:
            plan = self._chunk_plan(point, n, warmup, chunks)
            m = measure(session, point, plan)
            # One client's calls in order; N clients' file is their samples one client after another, whose
            # first third is client 0's calls, so a group's chunk keeps its whole p50 and has no noise of its own.
            if m.status != "ok" or point.clients != 1:
                return Chunk(m)
            samples = read_samples(plan.samples_file)
            return Chunk(replace(m, p50_ns=chunk_p50(samples)), chunk_p50_se(samples))

        record = warm_until_steady(self.steady, full, chunk, point.mode)
        self._keep_steady_record(point, record)
        if not record.reached:
            spread = (f"last {record.window} chunk p50s vary {record.cv_pct:.1f}%" if record.cv_pct is not None
                      else f"{len(record.chunk_p50s_ns)} chunk(s), fewer than the window of {record.window}")
            bound = f", the {record.seconds:.2f} s bound" if record.stopped_by == "max_s" else ""
            self.progress.note(f"{point.label}: not steady after {record.steady_calls} calls ({spread}{bound})")

    def _warm_until_jit_quiet(self, session: TargetSession, point: Point, clock: PhaseClock) -> None:
        """Untimed chunks at a JVM's later point until one in which neither JVM finished a compilation
        (steady.warm_until_jit_quiet); the record goes into the manifest's steady_state as the chunks' does."""
        assert self.steady is not None
        measure = measure_for(point)
        chunks = clock.chunks(full_warmup=False)
        server = session.server

        def compiled_ms() -> int | None:
            return jit_ms(server.stats() or {}) if server is not None else None

        def chunk(n: int, warmup: int) -> Chunk:
            plan = self._chunk_plan(point, n, warmup, chunks)
            before = compiled_ms()
            m = measure(session, point, plan)
            after = compiled_ms()
            served = None if before is None or after is None else after - before
            jit = None if m.client_jit_ms is None else m.client_jit_ms + (served or 0)
            return Chunk(m, jit_ms=jit)

        record = warm_until_jit_quiet(self.steady, chunk)
        session.jit_busy_points = 0 if record.reached else session.jit_busy_points + 1
        self._keep_steady_record(point, record)

    def _chunk_plan(self, point: Point, n: int, warmup: int, clock: PhaseClock) -> TrialPlan:
        """Warm-up chunk n's plan at the point: the steady-state rule's calls, never the anatomy."""
        assert self.steady is not None
        return self._trial_plan(calls=self.steady.chunk_calls, warmup=warmup,
                                samples_file=self.store.warmup_samples_path(point, self.launch, n), anatomy="off",
                                clock=clock)

    def _keep_steady_record(self, point: Point, record: SteadyRecord) -> None:
        """A warm-up's record into the manifest's steady_state. Written with the group's stopping record (or the
        run's end): a quick run's 300 manifest writes (216 of them here, up to 300 KB each) took 1.75 s, and a
        group cut short is run again on resume anyway."""
        with self._lock:
            self.manifest.setdefault("steady_state", []).append({**point.as_record(), "launch": self.launch,
                                                                 **record.as_dict()})


def _measure_or_error(member: SliceMember) -> Measurement | WorkerError:
    try:
        return measure_for(member.point)(member.session, member.point, member.plan)
    except WorkerError as exc:
        return exc


def measure_for(point: Point) -> Callable[[TargetSession, Point, TrialPlan], Measurement]:
    """N client processes are a group (clients.py); one client, or N threads of one client, a single one; a
    oneway warm-up in pieces (flood.py)."""
    return bounded(measure_group if point.clients > 1 and point.clients_as == "processes" else measure_single)
