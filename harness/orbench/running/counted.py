"""The counting mode (campaign key count): instructions per call, exact, instead of timed trials.

Each C++ and Python target's two workers run under valgrind's callgrind, which counts every user-space instruction
they execute on its synthetic CPU: a figure no host's speed or load changes. At each point the client runs
`count_warmup` untimed calls, then a run of N1 calls and a run of N2 (campaign key count_calls), in each of
`count_repeats` pairs of worker processes of its own, and after each run the harness has callgrind dump both
workers' counts (`vgdb --pid=P dump`: a dump holds the counts since the previous one). Instructions per call are
(I(N2) - I(N1)) / (N2 - N1): start-up, warm-up, the harness's own requests of a run (its reset, counters and sync,
the JSON commands and answers, the samples file) are the same in both runs and cancel, so no worker needs to know it
is counted. The calls are paced (count_rate_hz, evenly spaced, each wait a plain sleep), so that a request meets a
server done with the one before: closed loop, a oneway server reads as many requests at once as timing brings
and a watcher thread wakes as often as the calls' speed under callgrind has it; paced, the path is the same for
every call. A target's [count] server_args keep a timed wakeup of its middleware out (omniORB's connection
watcher). What two processes' timing still changes (a read that returns part of a message, a thread handoff)
shows as the repeats' spread, recorded per point; each repeat runs in processes of its own, since much of that is
set once per process and kept; the allocators (glibc's, CPython's), whose instructions for the same calls hang on
the heap's state (thread timing), are counted apart with their calls per call (anatomy/callgrind.py,
allocator_share).

What would make two runs differ is pinned: address-space randomisation off (setarch -R), PYTHONHASHSEED=0,
symbols bound at start (LD_BIND_NOW), the same calls in the same order at every point (no adaptive trial counts),
no progress watchdog asking the server for its counters, no send/recv counter preloaded, the worker's clock-cost
calibration cut to 1000 reads (ORBENCH_TIMER_READS) and its pacing's spin off (ORBENCH_PACING_SPIN_NS=0: a spin's
turns depend on when its sleep ended). Kernel work is not counted: the anatomy's system
calls per call sit beside the counts.

A JVM target is not run under valgrind (its JIT makes an instruction count unrepresentative): the same runs
give its deterministic counters instead, bytes allocated per call (the calling thread's and all threads') and
methods compiled (jstat) per call, by the same difference.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from orbench.anatomy.callgrind import (
    CallgrindFormatError,
    Difference,
    Dump,
    allocator_share,
    difference,
    folded_stacks,
    read_dump,
)
from orbench.anatomy.folded import folded_text
from orbench.campaign.spec import Campaign
from orbench.errors import UserError, WorkerError
from orbench.hosts.environment import collect_environment
from orbench.hosts.placement import Placement, available_cpus
from orbench.hosts.readiness import unavailable_reason
from orbench.results.counted import CountRecord, append_record, counts_dir, write_functions
from orbench.results.manifest import Manifest
from orbench.results.point import Point
from orbench.results.store import RunStore
from orbench.targets.descriptor import Target, java_executable
from orbench.targets.workers import ClientWorker, ServerWorker

ROLES = ("client", "server")
# Under callgrind a worker starts 20-100 times slower: CPython's imports take tens of seconds on a busy VM.
READY_TIMEOUT_S = 300.0
COMMAND_TIMEOUT_S = 600.0
TIMER_READS = "1000"
# What every counted worker's environment sets (and the manifest records): see the module's docstring.
COUNTING_ENV = {"PYTHONHASHSEED": "0", "ORBENCH_TIMER_READS": TIMER_READS, "LD_BIND_NOW": "1",
                "ORBENCH_PACING_SPIN_NS": "0"}
# vgdb makes a worker blocked in a system call (waiting for the next command) dump after this long: 100 ms as
# vgdb ships, which made each dump take 0.32 s; at 1 ms, 0.12 s (c-socket and omniORB, this VM).
VGDB_INVOKE_MS = 1
MIN_SLEEP_VARIABLE = "ORBENCH_PACING_MIN_SLEEP_NS"
# A late call's least sleep, as a share of the target's period: count_rate_hz_for sets each period to a few times
# what a call takes under callgrind (instructions.toml), so half of it is time enough for the server to read.
MIN_SLEEP_SHARE = 0.5
CALLGRIND_OPTIONS = ("--tool=callgrind", "--compress-pos=no", "--vgdb=yes")


class CountError(Exception):
    """A point or worker that cannot be counted, with the reason (recorded, the campaign goes on)."""


@dataclass(frozen=True)
class CountPlan:
    runs: tuple[int, int]      # N1, N2
    warmup: int
    repeats: int
    sync_timeout_ms: int
    rate_hz: float = 0.0       # the calls' pace; 0: closed loop

    @classmethod
    def for_target(cls, campaign: Campaign, target: Target) -> CountPlan:
        """The campaign's plan for the target: count_calls_for's runs and count_rate_hz_for's rate for its name,
        its descriptor or its language, the first it names, else count_calls and count_rate_hz. A JVM's calls run
        closed loop: its counters are bytes and methods, which a server's batched reads do not move, and a paced
        Java client would run its paced loop's own code in the counted calls."""
        s = campaign.settings
        runs = campaign.for_target(s.count_calls_for, target, s.count_calls)
        rate = campaign.for_target(s.count_rate_hz_for, target, s.count_rate_hz)
        return cls(runs, s.count_warmup, s.count_repeats, s.sync_timeout_ms, 0.0 if target.is_jvm else rate)

    @property
    def differenced_calls(self) -> int:
        return (self.runs[1] - self.runs[0]) * self.repeats


def counted_points(campaign: Campaign, target: Target) -> tuple[list[Point], list[tuple[Point, str]]]:
    """The target's points the counting mode runs, and those it skips with why: one client on one thread, the
    `in` shape, closed loop, the default server setting; a mode or payload type the target lacks."""
    runs, skips = [], []
    option = campaign.option_labels()[0]
    for group in campaign.point_groups("local", option):
        point = group.with_target(target.name)
        why = campaign.unsupported(target, group.mode, group.payload_type)
        if why is None and (group.clients != 1 or group.rate_hz or group.shape != "in" or group.objects != 1):
            why = "the counting mode counts one closed-loop client's `in` calls on one object"
        (skips.append((point, why)) if why else runs.append(point))
    return runs, skips


def valgrind_version() -> str | None:
    if shutil.which("valgrind") is None or shutil.which("vgdb") is None:
        return None
    done = subprocess.run(["valgrind", "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or None


def _no_aslr() -> list[str]:
    """setarch -R where the kernel lets this process turn address-space randomisation off, else nothing."""
    if shutil.which("setarch") is None:
        return []
    prefix = ["setarch", platform.machine(), "-R"]
    ok = subprocess.run([*prefix, "true"], capture_output=True, check=False).returncode == 0
    return prefix if ok else []


@dataclass(frozen=True)
class CountPlacement:
    """Where the counted workers run, so that each read finds a whole message: both on one CPU, the server at
    SCHED_BATCH, the harness (and the vgdb it starts) on the other CPUs. A batch task that wakes does not preempt
    the task running (the scheduler leaves its wake-up preemption to normal tasks), so the server, woken by the
    first part of a request, waits until its client waits (for a reply, or in its pacing's sleep) and then finds
    the whole request; nor does it fall behind into reading two oneway requests at once. Thrift's twoway 1 KB
    server, whose client writes a call in three parts, counted 2,969.7-2,980.1 instructions per call in four
    processes unplaced; placed, 2,967.0 in all six of two runs. SCHED_IDLE did as well on a quiet machine but
    starved the server behind any other load (the known-answer test beside three busy loops: 300 s, against 9 s at
    SCHED_BATCH and 5 s quiet). With one CPU it stays unplaced (the manifest says so)."""

    worker_cpu: int | None = None
    harness_cpus: frozenset[int] = frozenset()

    @classmethod
    def choose(cls) -> CountPlacement:
        cpus = available_cpus()
        if len(cpus) < 2 or shutil.which("taskset") is None or shutil.which("chrt") is None:
            return cls()
        return cls(cpus[-1], frozenset(cpus[:-1]))

    def prefix(self, role: str) -> list[str]:
        if self.worker_cpu is None:
            return []
        pinned = Placement("counting", str(self.worker_cpu), str(self.worker_cpu)).prefix(role)
        return [*pinned, *(["chrt", "--batch", "0"] if role == "server" else [])]

    def words(self) -> str:
        if self.worker_cpu is None:
            return "unplaced: one CPU, or no taskset or chrt"
        return (f"client and server on CPU {self.worker_cpu}, the server at SCHED_BATCH (it does not preempt its "
                f"client when a request wakes it); the harness on CPU {','.join(map(str, sorted(self.harness_cpus)))}")


def counted_target(target: Target) -> Target:
    """The target as the counting mode runs it: its descriptor's [count] server arguments appended."""
    return target.with_server_args(target.count_server_args)


def worker_env(rate_hz: float = 0.0) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    # LD_BIND_NOW: every symbol bound at start, not at its first call, which timing can put in either run of a pair
    # (c-socket's client: ~1,100 instructions of _dl_fixup in the N2 run of one process, the N1 run of another).
    # A paced call sleeps at least half a period, a late one too: sent at once after the one before, a oneway met a
    # server that had not read that one, and one recv took both (c-socket's oneway server: a run with one late
    # call made 602 recv calls for 603 messages, 0.36 fewer instructions per call in its difference).
    least = {MIN_SLEEP_VARIABLE: str(int(MIN_SLEEP_SHARE * 1e9 / rate_hz))} if rate_hz > 0 else {}
    return {**env, **COUNTING_ENV, **least}


class CountedWorker:
    """One worker process under callgrind and its dumps so far (callgrind numbers them .1, .2, ...)."""

    def __init__(self, process: ServerWorker | ClientWorker, out_file: Path):
        self.process = process
        self.out_file = out_file
        self.dumps = 0

    def dump(self) -> Dump:
        done = subprocess.run(["vgdb", f"--pid={self.process.pid}", f"--max-invoke-ms={VGDB_INVOKE_MS}", "dump"],
                              capture_output=True, text=True, timeout=120, check=False)
        self.dumps += 1
        path = Path(f"{self.out_file}.{self.dumps}")
        if done.returncode != 0 or not path.is_file():
            raise CountError(f"{self.process.name} {self.process.role}: callgrind dump failed (vgdb exit "
                             f"{done.returncode}: {(done.stderr or done.stdout).strip()[-300:]})")
        try:
            dump = read_dump(path)
        except CallgrindFormatError as exc:
            raise CountError(str(exc)) from None
        path.unlink()
        return dump


class Workers:
    """A target's server and client, started under callgrind (or as they are, for a JVM), connected."""

    def __init__(self, target: Target, logs: Path, raw: Path, prefix: list[str], env: dict[str, str],
                 placement: CountPlacement = CountPlacement()):
        target = counted_target(target)
        self.target = target
        wrap = (lambda role, argv: argv) if not prefix else (
            lambda role, argv: [*placement.prefix(role), *prefix,
                                f"--callgrind-out-file={raw / f'{target.name}.{role}'}.%p", *argv])
        server = ServerWorker(target.name, wrap("server", target.server_command("127.0.0.1", 0)),
                              logs / f"{target.name}-count-server.log", env=env, ready_timeout=READY_TIMEOUT_S)
        self.server = server
        try:
            self.client = ClientWorker(target.name, wrap("client", target.client_command()),
                                       logs / f"{target.name}-count-client.log", env=env)
            self.hello = self._ok(self.client.call({"cmd": "hello"}, timeout=READY_TIMEOUT_S, watch=[server]))
            self._ok(self.client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}},
                                      timeout=READY_TIMEOUT_S, watch=[server]))
        except WorkerError:
            self.stop()
            raise
        self.counted = {"server": CountedWorker(server, raw / f"{target.name}.server.{server.pid}"),
                        "client": CountedWorker(self.client, raw / f"{target.name}.client.{self.client.pid}")}

    def _ok(self, answer: dict[str, Any]) -> dict[str, Any]:
        if not answer["ok"]:
            raise WorkerError(f"{self.target.name} client: {answer.get('error')}", answer.get("error_kind", "run"))
        return answer

    def run(self, point: Point, calls: int, samples: Path, plan: CountPlan) -> dict[str, Any]:
        return self._ok(self.client.call(
            {"cmd": "run", "mode": point.mode, "payload_type": point.payload_type, "payload_bytes": point.payload_bytes,
             "calls": calls, "warmup": 0, "samples_file": str(samples), "sync_timeout_ms": plan.sync_timeout_ms,
             **({"rate_hz": plan.rate_hz} if plan.rate_hz > 0 else {})},
            timeout=COMMAND_TIMEOUT_S, watch=[self.server]))

    def dump_both(self) -> dict[str, Dump]:
        # At once: each vgdb dump takes about 0.12 s, reading its file back 0.01 s of it (c-socket, omniORB).
        with ThreadPoolExecutor(len(ROLES)) as pool:
            dumps = {role: pool.submit(self.counted[role].dump) for role in ROLES}
            return {role: dumps[role].result() for role in ROLES}

    def stop(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            if client.alive() and not client.answer_pending:
                try:
                    client.call({"cmd": "quit"}, timeout=60)
                except WorkerError:
                    pass
            client.stop(grace=30.0)
        self.server.stop(grace=30.0)


def count_point(workers: Workers, point: Point, plan: CountPlan, samples: Path) -> dict[str, list[Difference]]:
    """The differenced runs of one point under callgrind: per role, one Difference per repeat. The warm-up ends
    with a run of N2 calls, so that every repeat starts where the one before it ended (after N2): a run's own
    cost depends on what ran before it (the allocator's free lists after the last run's samples buffer)."""
    n1, n2 = plan.runs
    if plan.warmup:
        workers.run(point, plan.warmup, samples, plan)
    workers.run(point, n2, samples, plan)
    workers.dump_both()
    out: dict[str, list[Difference]] = {role: [] for role in ROLES}
    for _ in range(plan.repeats):
        workers.run(point, n1, samples, plan)
        short = workers.dump_both()
        workers.run(point, n2, samples, plan)
        long = workers.dump_both()
        for role in ROLES:
            out[role].append(difference(long[role], short[role], n2 - n1))
    return out


@dataclass
class Tally:
    """One worker's counts at one point, gathered repeat by repeat (each repeat in processes of its own): per
    repeat its instructions, its allocator's and its calls into the allocator per call; summed, its functions'
    instructions and folded stacks (a Difference is dropped once added: a target's points times repeats would
    hold every call graph)."""

    per_call: list[float] = field(default_factory=list)
    allocator: list[float] = field(default_factory=list)
    allocator_calls: list[float] = field(default_factory=list)
    functions: dict[str, tuple[int, int]] = field(default_factory=dict)
    stacks: dict[str, int] = field(default_factory=dict)

    def add(self, d: Difference) -> None:
        share = allocator_share(d)
        self.per_call.append(d.per_call)
        self.allocator.append(share.instructions / d.calls)
        self.allocator_calls.append(share.calls / d.calls)
        for f, c in d.functions.items():
            s, i = self.functions.get(f, (0, 0))
            self.functions[f] = (s + c.self_instructions, i + c.inclusive_instructions)
        for stack, n in folded_stacks(d).items():
            self.stacks[stack] = self.stacks.get(stack, 0) + n


def callgrind_records(run_dir: Path, point: Point, tallies: dict[str, Tally], plan: CountPlan, version: str,
                      worker: dict[str, dict[str, Any]]) -> list[CountRecord]:
    """Each worker's record, its functions' table and folded stacks (summed over the repeats) in counts/."""
    records = []
    for role in ROLES:
        t = tallies[role]
        table, folded = (counts_dir(run_dir) / f"{point.slug}.{role}.{kind}" for kind in ("functions.tsv", "folded"))
        write_functions(table, t.functions)
        folded.write_text(folded_text(t.stacks))
        records.append(CountRecord(point, role, "callgrind", version, plan.differenced_calls, plan.runs,
                                   tuple(t.per_call), tuple(t.allocator), tuple(t.allocator_calls),
                                   str(table.relative_to(run_dir)), str(folded.relative_to(run_dir)),
                                   worker=worker[role]))
    return records


def jstat_compiled(pid: int) -> int:
    """Methods the JVM has compiled since it started (jstat -compiler's Compiled)."""
    jstat = Path(java_executable()).with_name("jstat")
    done = subprocess.run([str(jstat) if jstat.exists() else "jstat", "-compiler", str(pid)], capture_output=True,
                          text=True, timeout=60, check=False)
    lines = done.stdout.split("\n")
    if done.returncode != 0 or len(lines) < 2 or not lines[1].split():
        raise CountError(f"jstat -compiler {pid} failed: {(done.stderr or done.stdout).strip()[-200:]}")
    return int(lines[1].split()[0])


def jvm_point(workers: Workers, point: Point, plan: CountPlan, samples: Path) -> dict[str, dict[str, float]]:
    """The JVM's counters per call at one point, by the same difference of runs of N1 and N2 calls: bytes
    allocated (the calling thread's, every thread's; the server's from its stats), methods compiled."""
    pids = {"client": int(workers.hello.get("pid") or workers.client.pid),
            "server": int(workers.server.ready.get("pid") or workers.server.pid)}

    def reading(answer: dict[str, Any]) -> dict[str, dict[str, float]]:
        memory = answer.get("memory") or {}
        stats = (workers.server.stats() or {}).get("memory") or {}
        return {"client": {"thread_allocated_bytes": float(memory.get("thread_allocated_bytes", 0)),
                           "allocated_bytes": float(memory.get("allocated_bytes", 0)),
                           "compiled_methods": float(jstat_compiled(pids["client"]))},
                "server": {"allocated_bytes": float(stats.get("allocated_bytes", 0)),
                           "compiled_methods": float(jstat_compiled(pids["server"]))}}

    n1, n2 = plan.runs
    if plan.warmup:
        workers.run(point, plan.warmup, samples, plan)
    workers.run(point, n2, samples, plan)
    sums: dict[str, dict[str, float]] = {"client": {}, "server": {}}
    for _ in range(plan.repeats):
        before = reading({})
        short = reading(workers.run(point, n1, samples, plan))
        long = reading(workers.run(point, n2, samples, plan))
        for role in ROLES:
            for key in long[role]:
                if key == "compiled_methods" or role == "server":  # cumulative counters: a run's own part
                    delta = (long[role][key] - short[role][key]) - (short[role][key] - before[role][key])
                else:                                              # the client's memory is the run's own
                    delta = long[role][key] - short[role][key]
                sums[role][key] = sums[role].get(key, 0.0) + delta
    return {role: {k: v / plan.differenced_calls for k, v in sums[role].items()} for role in ROLES}


class CountedRun:
    """Runs a campaign of the counting mode: target after target, its workers started once, its points in the
    campaign's order."""

    def __init__(self, campaign: Campaign, store: RunStore, argv: list[str] | None = None,
                 stream: TextIO = sys.stderr):
        self.campaign = campaign
        self.store = store
        self.argv = argv or sys.argv
        self.stream = stream
        self.failed = 0
        self.placement = CountPlacement()

    def note(self, line: str) -> None:
        print(f"orbench: {line}", file=self.stream, flush=True)

    def run(self) -> int:
        """Returns how many workers' counts failed; raises UserError before anything ran when it cannot."""
        s = self.campaign.settings
        if [tuple(p) for p in s.host_pairs] not in ([], [("local", "local")]) or s.hosts:
            raise UserError(f"{self.campaign.path}: the counting mode runs on this machine only (host_pairs local)")
        version = valgrind_version()
        needs_valgrind = [t.name for t in self.campaign.targets if not t.is_jvm]
        if version is None and needs_valgrind:
            raise UserError(f"valgrind and vgdb are not installed, which the counting mode needs for "
                            f"{', '.join(needs_valgrind)} (make deps-system installs valgrind)")
        prefix = [*_no_aslr(), "valgrind", *CALLGRIND_OPTIONS]
        self.placement = CountPlacement.choose()
        manifest = Manifest.start(
            "campaign", self.store.run_id, self.argv, collect_environment(None), campaign=self.campaign.as_run(),
            targets={t.name: {"kind": t.kind, "language": t.language, "baseline": t.baseline,
                              **({"family": t.family} if t.family else {}),
                              **({"parameter": {t.parameter: t.parameter_value}} if t.parameter else {}),
                              "description": t.description,
                              "server_argv": counted_target(t).server_command("127.0.0.1", 0),
                              "client_argv": t.client_command(), "workers": {}}
                     for t in self.campaign.targets},
            counting={"valgrind": version, "command": prefix,
                      "environment": {**COUNTING_ENV, "LD_PRELOAD": "unset", MIN_SLEEP_VARIABLE: f"{MIN_SLEEP_SHARE:g} of the period"},
                      "aslr": "off (setarch -R)" if prefix[0] == "setarch" else "on: setarch -R was refused",
                      "runs": {t.name: list(CountPlan.for_target(self.campaign, t).runs) for t in self.campaign.targets},
                      "rates_hz": {t.name: CountPlan.for_target(self.campaign, t).rate_hz for t in self.campaign.targets},
                      "server_args": {t.name: {"args": list(t.count_server_args), "why": t.count_why}
                                      for t in self.campaign.targets if t.count_server_args},
                      "warmup": s.count_warmup, "repeats": s.count_repeats,
                      "placement": self.placement.words()},
            hosts={}, skipped_targets={}, stopping=[], launches=[], steady_state=[], warnings=[])
        self.store.write_manifest(manifest)
        raw = self.store.path / "counts" / "raw"
        raw.mkdir(parents=True, exist_ok=True)
        status = "failed"
        started = time.monotonic()
        try:
            for target in self.campaign.targets:
                self._count_target(target, manifest, [] if target.is_jvm else prefix, version or "")
            status = "complete" if self.failed == 0 else "complete-with-failures"
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        finally:
            shutil.rmtree(raw, ignore_errors=True)
            manifest["counting"]["seconds"] = round(time.monotonic() - started, 1)
            manifest.finish(status)
            self.store.write_manifest(manifest)
            self.store.mark_latest()
        return self.failed

    def _skip(self, points: list[Point], why: str, manifest: Manifest, failed: bool) -> None:
        for point in points:
            for role in ROLES:
                append_record(self.store.path, CountRecord(point, role, "", "", 0, (0, 0), error=why))
        if failed:
            self.failed += len(points)
        manifest["warnings"].append(f"{points[0].target if points else '?'}: {why}")
        self.note(why)

    def _count_target(self, target: Target, manifest: Manifest, prefix: list[str], version: str) -> None:
        points, skips = counted_points(self.campaign, target)
        for point, why in skips:
            append_record(self.store.path, CountRecord(point, "client", "", "", 0, (0, 0), error=why))
        if not points:
            return
        if why := unavailable_reason(target):
            manifest["skipped_targets"][target.name] = why
            self._skip(points, f"{target.name} unavailable: {why}", manifest, failed=False)
            return
        if target.is_jvm:
            self._count_jvm_target(target, points, manifest)
        else:
            self._count_callgrind_target(target, points, manifest, prefix, version)

    def _start(self, target: Target, manifest: Manifest, prefix: list[str], note: str) -> Workers:
        """The target's workers, started and connected; the first start's words go into the manifest."""
        self.note(f"starting {target.name}{note}")
        began = time.monotonic()
        workers = Workers(target, self.store.logs_dir, self.store.path / "counts" / "raw", prefix,
                          worker_env(CountPlan.for_target(self.campaign, target).rate_hz), self.placement)
        # Keyed like a campaign's workers (by the block they ran in), so compare's environment check reads them.
        manifest["targets"][target.name]["workers"].setdefault("counted", {
            "server": workers.server.ready.get("worker"), "client": workers.hello.get("worker"),
            "started_in_s": round(time.monotonic() - began, 1)})
        return workers

    def _count_jvm_target(self, target: Target, points: list[Point], manifest: Manifest) -> None:
        try:
            workers = self._start(target, manifest, [], " (a JVM: its own counters)")
        except WorkerError as exc:
            self._skip(points, f"{target.name} could not start: {exc}", manifest, failed=True)
            return
        samples = self.store.path / "counts" / "raw" / "samples.i64"
        plan = CountPlan.for_target(self.campaign, target)
        worker = {"server": dict(workers.server.ready.get("worker") or {}),
                  "client": dict(workers.hello.get("worker") or {})}
        runtime = str(worker["client"].get("runtime", "JVM"))
        try:
            for i, point in enumerate(points):
                began = time.monotonic()
                try:
                    counters = jvm_point(workers, point, plan, samples)
                except (CountError, WorkerError) as exc:
                    self._skip([point], f"{point.label}: {exc}", manifest, failed=True)
                    if isinstance(exc, WorkerError):
                        self._skip(points[i + 1:], f"{target.name}: its workers failed at {point.label}",
                                   manifest, failed=True)
                        return
                    continue
                for role in ROLES:
                    append_record(self.store.path, CountRecord(point, role, "jvm", runtime, plan.differenced_calls,
                                                               plan.runs, jvm=counters[role], worker=worker[role]))
                self.note(f"{point.label}: counted in {time.monotonic() - began:.1f} s")
        finally:
            workers.stop()
            self.store.write_manifest(manifest)

    def _count_callgrind_target(self, target: Target, points: list[Point], manifest: Manifest, prefix: list[str],
                                version: str) -> None:
        """Each repeat in a pair of worker processes of its own, every point in each: what a process's timing
        sets once and keeps (its heap's state, a oneway server's pattern of batched reads, CPython's) differs
        from one process to the next, so repeats in one process would show a spread that two runs exceed."""
        # The harness (and the vgdb it starts) off the workers' CPU while they count; a JVM's workers, started
        # elsewhere, inherit the harness's CPUs, so it is pinned here only.
        own_cpus = os.sched_getaffinity(0)
        if self.placement.harness_cpus:
            os.sched_setaffinity(0, self.placement.harness_cpus)
        try:
            self._count_callgrind_repeats(target, points, manifest, prefix, version)
        finally:
            os.sched_setaffinity(0, own_cpus)

    def _count_callgrind_repeats(self, target: Target, points: list[Point], manifest: Manifest, prefix: list[str],
                                 version: str) -> None:
        plan = CountPlan.for_target(self.campaign, target)
        one = replace(plan, repeats=1)
        samples = self.store.path / "counts" / "raw" / "samples.i64"
        tallies = {p: {role: Tally() for role in ROLES} for p in points}
        live = list(points)
        worker: dict[str, dict[str, Any]] = {}
        for repeat in range(plan.repeats):
            try:
                workers = self._start(target, manifest, prefix,
                                      f" under callgrind (processes {repeat + 1} of {plan.repeats})")
            except WorkerError as exc:
                self._skip(live, f"{target.name} could not start: {exc}", manifest, failed=True)
                return
            worker = worker or {"server": dict(workers.server.ready.get("worker") or {}),
                                "client": dict(workers.hello.get("worker") or {})}
            try:
                for point in list(live):
                    began = time.monotonic()
                    try:
                        diffs = count_point(workers, point, one, samples)
                    except (CountError, WorkerError) as exc:
                        self._skip([point], f"{point.label}: {exc}", manifest, failed=True)
                        live.remove(point)
                        if isinstance(exc, WorkerError):
                            done = [p for p in live if len(tallies[p]["client"].per_call) == plan.repeats]
                            self._write(done, tallies, plan, version, worker)
                            self._skip([p for p in live if p not in done],
                                       f"{target.name}: its workers failed at {point.label}", manifest, failed=True)
                            return
                        continue
                    for role in ROLES:
                        tallies[point][role].add(diffs[role][0])
                    self.note(f"{point.label}: counted in {time.monotonic() - began:.1f} s")
            finally:
                workers.stop()
                self.store.write_manifest(manifest)
        self._write(live, tallies, plan, version, worker)

    def _write(self, points: list[Point], tallies: dict[Point, dict[str, Tally]], plan: CountPlan, version: str,
               worker: dict[str, dict[str, Any]]) -> None:
        for point in points:
            for record in callgrind_records(self.store.path, point, tallies[point], plan, version, worker):
                append_record(self.store.path, record)


def run_counting_campaign(campaign: Campaign, store: RunStore) -> int:
    """`orbench run` of a campaign with count = true; returns the failed workers' count."""
    return CountedRun(campaign, store).run()
