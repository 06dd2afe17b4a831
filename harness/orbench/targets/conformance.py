"""`orbench check-target NAME`: runs one target's real workers through the worker contract (PROTOCOL.md) and
says which rule fails. Every target must pass it; the contract tests run it for every available target.
"""

from __future__ import annotations

import json
import os
import re
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import jsonschema
import numpy as np

from orbench.anatomy.strace import StraceError
from orbench.anatomy.syscount import local_library, preloaded_env
from orbench.errors import WorkerError
from orbench.paths import repo_root
from orbench.stats.stats import read_samples
from orbench.targets import (
    relay_steps,
    sample_checks,
    scale_checks,
    shape_checks,
    timing_checks,
    turn_checks,
    wire_checks,
)
from orbench.targets.descriptor import Target, counted_payload_bytes
from orbench.targets.families import endpoint_form, read_families
from orbench.targets.options import plan_options
from orbench.targets.workers import ClientWorker, ServerWorker

CHECK_SIZES = (1, 1000, 65536)  # one byte, one size that is no power of two, the largest of the quick campaign
# Other payload types than octets at these only: 1 B (an empty sequence) and 1000 B (rounding to whole elements:
# 62 records or strings, 250 longs, 125 doubles) are where their byte counts can go wrong.
CHECK_SIZES_OTHER_TYPES = (1, 1000)
CHECK_CALLS = 200
CHECK_WARMUP = 20
# The runs of an option step: short, because tcp_nodelay = false costs a delayed ACK (about 40 ms) per twoway.
OPTION_CALLS = 40
OPTION_WARMUP = 5
# tcp_nodelay = false, twoway: fewer calls, each may wait 40 ms for a delayed ACK (enough to count segments).
NAGLE_TWOWAY_CALLS = 12
NAGLE_TWOWAY_WARMUP = 3
# The known delay on every server reply (delay_relay.py): far above a loopback call on a loaded machine, and
# short enough that its runs take a second. A twoway sample must be at least this and not above CEILING x it.
RELAY_DELAY_NS = 20_000_000
RELAY_CEILING = 5
RELAY_CALLS = 10
RELAY_WARMUP = 2
# tcp_nodelay = false is seen on the wire when a twoway request takes this many more data segments than with
# true (header and body apart), or small oneways this fraction of the segments or fewer (Nagle coalesces).
# With true, Linux's autocorking alone can halve a oneway flood's segments on a busy core: hence a third.
NAGLE_TWOWAY_EXTRA_SEGMENTS = 0.5
NAGLE_ONEWAY_FRACTION = 0.35
# A socket baseline's run (PROTOCOL.md): per call at most this many write- and read-family system calls and
# data segments, each end (one per message plus the run's few control messages and command lines).
BASELINE_CALLS = 200
BASELINE_PER_CALL_MAX = 1.1
# What a run costs besides its calls, left out of the counts: its command line and answer, the samples file,
# reset and counters on the wire, the server's two stats lines (measured: 3 to 5 of each kind).
BASELINE_RUN_OVERHEAD = 4
BASELINE_PAYLOAD = 1000
# ... and no buffer allocated per message: the heap bytes each end allocates per call (client: its run answer's
# `memory`; server: its stats), at most this fraction of the payload. Measured: C 0 and 14 B, Java 24 and
# about 100 B (small objects, not buffers) at 1000 B.
BASELINE_ALLOCATED_FRACTION_MAX = 0.25
# The values check-target tries of each connect option a descriptor claims (supports.options): every one a
# campaign can set, so a claim copied from another target is tried before it is published.
OPTION_VALUES: dict[str, tuple[object, ...]] = {"tcp_nodelay": (True, False), "socket_buffer_bytes": (65536,),
                                                "sync_scope": ("none", "transport", "server", "target")}
# Every threading setting a descriptor declares starts its server and serves a short twoway run; a sized one at
# this size. Not 4: gRPC C++'s thread quota counts its pollers too, and one client's short run against
# SetMaxThreads(4) was once refused (RESOURCE_EXHAUSTED) on a loaded VM, which is that setting working as documented.
THREADING_CHECK_SIZE = 8
# A serial server's service times (PROTOCOL.md, Load servers): this many twoway calls, each of whose service
# times must be at least the server's spin.
SERIAL_CALLS = 100
# The killed-server step kills the server once it has counted this many calls of the client's run.
KILL_AFTER_CALLS = 100
# The long haul: one connection carries at least this many payload bytes in each of twoway and oneway, so that
# a transport that gives up after some number of bytes fails the check (Thrift 0.17's framed transport closes a
# connection after 100 MiB read); each run must end within LONG_HAUL_SECONDS (at least 2 MiB/s), or the check fails.
LONG_HAUL_BYTES = 256 * 2**20
LONG_HAUL_PAYLOAD = 65536
LONG_HAUL_SECONDS = 120
# A twoway request of 1000 B with TCP_NODELAY on takes one data segment when its worker writes it whole; this many
# or more (1.5) mean its header and body leave in writes of their own, each a segment: a warning, not a failure.
SPLIT_SEGMENTS = 1 + NAGLE_TWOWAY_EXTRA_SEGMENTS
# The groups of steps check-target runs after the main pair's (ready line, stats, hello, connect), in order; a
# run may be limited to some of them (`--only`: a new target's developer, or a test that needs a few steps).
STEP_GROUPS = ("runs", "shapes", "delays", "in_time", "baseline", "long_haul", "soak", "threads", "turns", "errors",
               "serial", "lifecycle", "clients", "options", "threading", "objects")
# A check that took this long or more shows its time (check-target must stay quick).
SHOW_SECONDS_FROM = 0.5
# Lines of a worker's stderr shown with a failed check.
STDERR_TAIL_LINES = 6


def protocol_schema() -> dict:
    return json.loads(resources.files("orbench.targets").joinpath("protocol.schema.json").read_text())


def worker_env() -> dict[str, str] | None:
    """The workers' environment: the harness's, with the send/recv counter preloaded as in a campaign (None:
    not built, the harness's own), so that a socket baseline's calls are counted without a tracer."""
    return preloaded_env(local_library(repo_root()), os.environ)


@dataclass
class Check:
    name: str
    passed: bool
    detail: str = ""
    seconds: float = 0.0
    warning: bool = False   # passed, but the worker does something a user should know (shown as WARN)
    known: bool = False     # failed, as the descriptor's known_failures says it does (shown as KNOWN, not failed)


class Conformance:
    def __init__(self, target: Target, host: str = "127.0.0.1", log_dir: Path | None = None,
                 only: frozenset[str] | None = None):
        """`only`: the step groups to run (STEP_GROUPS), every one when None."""
        unknown = sorted(set(only or ()) - set(STEP_GROUPS))
        if unknown:
            raise ValueError(f"unknown step group {unknown[0]!r} (known: {', '.join(STEP_GROUPS)})")
        self.target = target
        self.host = host
        self.only = only
        self.log_dir = Path(log_dir or tempfile.mkdtemp(prefix=f"orbench-check-{target.name}-"))
        self.schema = protocol_schema()
        self.checks: list[Check] = []
        self.workers: list[ServerWorker | ClientWorker] = []  # started so far: their stderr goes with a failure

    def _validate(self, value: dict, definition: str) -> None:
        schema = {"$ref": f"#/$defs/{definition}", "$defs": self.schema["$defs"]}
        try:
            jsonschema.validate(value, schema)
        except jsonschema.ValidationError as exc:
            raise AssertionError(f"{definition}: {exc.message} in {json.dumps(value)[:300]}") from None

    def check(self, name: str, fn: Callable[[], str | None], workers: bool = True, step: str | None = None) -> bool:
        """Runs one check; `workers`: it talks to workers (a failure then shows their stderr); `step`: its id in a
        descriptor's known_failures, where the target may say it fails it (always or at times) as shipped, and
        why: its failure is then reported as KNOWN, not failed."""
        first, started = len(self.workers), time.monotonic()
        known = dict(self.target.known_failures).get(step) if step else None
        try:
            detail = fn() or ""
        except (AssertionError, WorkerError, OSError, ValueError) as exc:
            took = time.monotonic() - started
            if known is not None:
                self.checks.append(Check(name, True, f"known failure: {known}; here: {exc}", took, known=True))
                return False
            # A step that started workers of its own shows their stderr, not that of the main pair.
            own = self.workers[first:] or self.workers[:2]
            self.checks.append(Check(name, False, str(exc) + (self._stderr_tails(own) if workers else ""), took))
            return False
        if known is not None:  # a breakage that comes and goes: listed, and passed this time
            detail += f"; passed this time, its known_failures entry says: {known}"
        self.checks.append(Check(name, True, detail, time.monotonic() - started))
        return True

    def wants(self, group: str) -> bool:
        """Whether this run takes the step group `group` (STEP_GROUPS)."""
        assert group in STEP_GROUPS, group
        return self.only is None or group in self.only

    def _stderr_tails(self, workers: list[ServerWorker | ClientWorker]) -> str:
        """The last lines of these workers' stderr, for a failed check: the ORB's own words."""
        out = []
        for w in workers:
            if w.log_path is not None and w.log_path.exists():
                lines = w.log_path.read_text(errors="replace").strip().splitlines()[-STDERR_TAIL_LINES:]
                if lines:
                    out.append(f"\n      {w.log_path.name}:\n" + "\n".join(f"        {line}" for line in lines))
        return "".join(out)

    def _server(self, tag: str, args: tuple[str, ...] = ()) -> ServerWorker:
        path = self.log_dir / f"{tag}-server.log"
        try:
            server = ServerWorker(self.target.name, self.target.with_server_args(args).server_command(self.host, 0),
                                  path, env=worker_env())
        except WorkerError as exc:
            raise WorkerError(f"{exc}{self._tail_of(path)}", exc.kind) from None
        self.workers.append(server)
        return server

    def _worker_names(self) -> set[str]:
        """The target names its workers may give: a known-answer target runs its baseline's workers."""
        names = {self.target.name, self.target.descriptor}
        if self.target.kind == "known-answer" and self.target.baseline:
            names.add(self.target.baseline)
        return names

    def _tail_of(self, path: Path) -> str:
        lines = path.read_text(errors="replace").strip().splitlines()[-STDERR_TAIL_LINES:] if path.exists() else []
        return "".join(f"\n        {line}" for line in lines)

    def _client(self, tag: str) -> ClientWorker:
        client = ClientWorker(self.target.name, self.target.client_command(), self.log_dir / f"{tag}-client.log",
                              env=worker_env())
        self.workers.append(client)
        return client

    def run(self, unavailable: str | None = None) -> list[Check]:
        """Every check, in order; `unavailable`: why the target cannot run here (hosts.readiness), if it cannot."""
        why = unavailable
        if why:
            self.checks.append(Check("target is available", False, why))
            return self.checks
        server = client = None
        try:
            box: dict = {}

            def start_server() -> str:
                box["server"] = self._server("main")
                ready = box["server"].ready
                self._validate(ready, "server_ready")
                w = ready["worker"]
                assert w["role"] == "server" and w["target"] in self._worker_names(), f"ready line names {w}"
                assert w["language"] == self.target.language, \
                    f"ready line says language {w['language']!r}, the descriptor {self.target.language!r}"
                # What the endpoint looks like: its family's form (families.toml), or a socket baseline's.
                want = endpoint_form(self.target.family).pattern
                assert re.fullmatch(want, ready["endpoint"]), f"endpoint {ready['endpoint'][:80]!r} is not {want}"
                return f"{w.get('orb') or w['language']} {w.get('orb_version') or ''}".strip()

            if not self.check("server prints a valid ready line", start_server):
                return self.checks
            server = box["server"]
            if server.answers_stats:
                self.check("server answers the stats command", lambda: self._stats(box["server"]))
            serial = bool(server.ready["worker"].get("serial"))
            client = self._client("main")
            self._run_client_checks(client, server)
            if serial and self.wants("serial"):
                self.check("serial server counts every request's service time",
                           lambda: self._serial_service(client, server))
            if self.wants("lifecycle"):
                self.check("client quits on 'quit' with status 0", lambda: self._quit(client))
                self.check("server exits when its stdin closes", lambda: self._stdin_eof(server))
                self.check("a killed server gives the client an error answer, not a hang", self._killed_server)
            if self.wants("clients"):
                kept: dict = {}
                self.check(f"{timing_checks.CLIENTS} clients of one server at once: all served, their calls overlap",
                           lambda: timing_checks.several_clients(self, kept))
                self.check("shutdown(): the client has its reply, then the server ends",
                           lambda: timing_checks.shutdown_request(self, kept.get("pair")))
            if self.wants("options"):
                self._option_checks()
            if self.wants("threading"):
                self._threading_checks()
            if self.target.objects and self.wants("objects"):
                self.check("objects: every object called, in the order asked (objects_called)",
                           lambda: scale_checks.objects_runs(self))
        finally:
            # Every worker a check started, also a server whose ready line was refused before it was kept.
            for w in reversed(self.workers):
                w.stop()
        return self.checks

    def _run_client_checks(self, client: ClientWorker, server: ServerWorker) -> None:
        told: dict = {}  # what the client's hello said it can do

        def hello() -> str:
            answer = client.call({"cmd": "hello"}, watch=[server])
            self._validate(answer, "hello_answer")
            assert answer["worker"]["role"] == "client" and answer["worker"]["target"] in self._worker_names(), \
                f"hello names {answer['worker']}"
            assert answer["worker"]["language"] == self.target.language, \
                f"hello says language {answer['worker']['language']!r}, the descriptor {self.target.language!r}"
            if "pid" in answer:
                assert is_same_or_descendant(answer["pid"], client.pid), \
                    f"hello says pid {answer['pid']}, the process is {client.pid} (and not its child)"
            for m in self.target.modes:
                assert m in answer["modes"], f"descriptor lists mode {m}, the client does not"
            for p in self.target.payload_types:
                assert p in answer["payload_types"], f"descriptor lists payload type {p}, the client does not"
            for k in self.target.shapes:
                assert k in answer.get("shapes", ["in"]), f"descriptor lists shape {k}, the client does not"
            told["turns"] = answer.get("turns")
            return f"timer {answer['timer']['clock']} {answer['timer']['cost_ns']:.1f} ns"

        def connect() -> None:
            answer = client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}}, watch=[server])
            self._validate(answer, "connect_answer")

        if not (self.check("client answers hello", hello) and self.check("client connects", connect)):
            return
        if self.wants("runs"):
            for mode in self.target.modes:
                for ptype in self.target.payload_types:
                    for size in CHECK_SIZES if ptype == "octets" else CHECK_SIZES_OTHER_TYPES:
                        self.check(f"run {mode} {ptype} {size} B", lambda m=mode, p=ptype, s=size:
                                   self._run_point(client, server, m, p, s))
        if self.wants("shapes"):
            self._shape_checks(client, server)
        if "twoway" in self.target.modes and self.wants("delays"):
            self.check("samples are ns: twoway against replies held a known time",
                       lambda: self._delayed(client, server, "twoway"))
        if "oneway" in self.target.modes and self.wants("delays"):
            self.check("oneway returns before the server replies", lambda: self._delayed(client, server, "oneway"))
        if self.wants("in_time"):
            for mode in ("twoway", "oneway"):
                if mode in self.target.modes:
                    self.check(f"in time: {mode} calls reach the server while they run (its own count)",
                               lambda m=mode: timing_checks.arrivals_in_time(self, client, server, m))
        if self.target.kind == "socket" and self.wants("baseline"):
            self.check("baseline reads and writes as PROTOCOL.md says", lambda: self._baseline_io(client, server))
        if self.wants("long_haul"):
            self.check(f"long haul: {LONG_HAUL_BYTES // 2**20} MiB through one connection, twoway and oneway",
                       self._long_haul, step="long_haul")
        if self.wants("soak"):
            self.check("soak run sends its intervals before the answer (or is unsupported)",
                       lambda: self._soak(client, server))
        if self.target.client_threads and self.wants("threads"):
            for mode in ("twoway", "oneway"):
                if mode in self.target.modes:
                    self.check(f"threads: {mode} run of {scale_checks.THREADS} threads x "
                               f"{scale_checks.THREAD_CALLS} calls, every call made and counted",
                               lambda m=mode: scale_checks.threads_run(self, client, server, m))
            if "twoway" in self.target.modes:
                self.check("threads: the threads' calls overlap (replies held a known time)",
                           lambda: scale_checks.threads_overlap(self, client, server, RELAY_DELAY_NS))

        if told.get("turns") is True and "twoway" in self.target.modes and self.wants("turns"):
            for mode in ("twoway", "oneway"):
                if mode in self.target.modes:
                    self.check(f"turns: two {mode} clients take turns through named pipes, every call made and "
                               "counted", lambda m=mode: turn_checks.two_clients_take_turns(self, client, server, m))
            self.check("turns: a turn that never comes fails the run after its timeout",
                       lambda: turn_checks.a_lone_turn_times_out(self, client, server))

        def refuses(command: dict, kinds: tuple[str, ...]) -> Callable[[], str]:
            def fn() -> str:
                answer = client.call(command, watch=[server])
                self._validate(answer, "error_answer")
                assert answer["error_kind"] in kinds, f"error_kind {answer['error_kind']}, expected one of {kinds}"
                again = client.call({"cmd": "hello"}, watch=[server])
                assert again["ok"], "client no longer answers after an error"
                return answer["error"][:80]
            return fn

        if not self.wants("errors"):
            return
        run = {"cmd": "run", "payload_type": "octets", "payload_bytes": 8, "calls": 10, "warmup": 0,
               "samples_file": str(self.log_dir / "refused.i64"), "sync_timeout_ms": 5000}
        self.check("unknown command is an error answer", refuses({"cmd": "dance"}, ("usage",)))
        self.check("unknown mode is a usage error", refuses({**run, "mode": "sideways"}, ("usage",)))
        self.check("unknown connect option is an error answer",
                   refuses({"cmd": "connect", "endpoint": server.endpoint, "options": {"no_such_option": 1}},
                           ("usage", "unsupported")))
        self.check("client reconnects", connect)

    def _shape_checks(self, client: ClientWorker, server: ServerWorker) -> None:
        """Every shape the descriptor claims, at each mode and payload type it takes; AMI's calls overlapping; a
        shape the client does not make refused."""
        for shape in shape_checks.tried_shapes(self.target):
            for mode, ptype in shape_checks.shape_points(self.target, shape):
                self.check(f"shape {shape}: {mode} {ptype} {shape_checks.SHAPE_BYTES} B, reply right, every call "
                           "counted", lambda s=shape, m=mode, p=ptype: shape_checks.shape_run(self, client, server, s,
                                                                                          m, p))
        if "ami" in self.target.shapes:
            self.check("shape ami-8: calls overlap (replies held a known time)",
                       lambda: shape_checks.ami_overlap(self, client, server, RELAY_DELAY_NS))
        if {"pipelined", "chained"} <= set(self.target.shapes):
            self.check("shapes pipelined and chained: one round trip against two (replies held a known time)",
                       lambda: shape_checks.pipelining_round_trips(self, client, server, RELAY_DELAY_NS))
        self.check("a shape the client does not make is refused (unsupported)",
                   lambda: shape_checks.unclaimed_refused(client, server, self.log_dir))

    def _run_point(self, client: ClientWorker, server: ServerWorker, mode: str, ptype: str, size: int,
                   calls: int = CHECK_CALLS, warmup: int = CHECK_WARMUP) -> str:
        answer, samples = self._run(client, server, mode, ptype, size, calls, warmup)
        med = float(np.median(samples))
        return f"p50 {med / 1000:.1f} us, {sample_checks.check_against_elapsed(samples, answer, mode)}"

    def _run(self, client: ClientWorker, server: ServerWorker, mode: str, ptype: str, size: int, calls: int,
             warmup: int, timeout: float = 120) -> tuple[dict, np.ndarray]:
        """One run, its answer and samples checked against the contract; the answer and the samples."""
        path = self.log_dir / f"{mode}-{ptype}-{size}.i64"
        answer = client.call({"cmd": "run", "mode": mode, "payload_type": ptype, "payload_bytes": size,
                              "calls": calls, "warmup": warmup, "samples_file": str(path),
                              "sync_timeout_ms": 10000}, timeout=timeout, watch=[server])
        if not answer["ok"]:
            raise AssertionError(f"error answer: {answer.get('error_kind')}: {answer.get('error')}")
        self._validate(answer, "run_answer")
        samples = read_samples(path)
        assert samples.size == calls, f"samples file has {samples.size} values, expected {calls}"
        assert (samples > 0).all(), "samples file has non-positive latencies"
        assert answer["calls"] == calls
        rx = answer["received"]
        assert rx["messages"] == calls, f"server counted {rx['messages']} messages, expected {calls}"
        want_bytes = calls * counted_payload_bytes(ptype, size)
        assert rx["bytes"] == want_bytes, f"server counted {rx['bytes']} bytes, expected {want_bytes}"
        if mode == "oneway":
            assert "sync" in answer and answer["sync"]["complete"], "oneway run without a complete sync"
            if warmup > 0:
                assert (answer.get("warmup_sync") or {}).get("complete"), \
                    "oneway run without a complete warm-up barrier (warmup_sync)"
        return answer, samples

    def _delayed(self, client: ClientWorker, server: ServerWorker, mode: str) -> str:
        """A run through a relay that holds every server reply RELAY_DELAY_NS (delay_relay.py): a twoway sample
        is at least the delay, in ns; a oneway returns long before it."""
        with relay_steps.through_relay(self.host, self.target.family, client, server, RELAY_DELAY_NS):
            answer, samples = self._run(client, server, mode, "octets", 1000, RELAY_CALLS, RELAY_WARMUP)
            sample_checks.check_against_elapsed(samples, answer, mode)
            if mode == "oneway":
                return sample_checks.check_oneway_returns_first(samples, RELAY_DELAY_NS)
            return sample_checks.check_delayed_twoway(samples, RELAY_DELAY_NS, RELAY_CEILING)

    def _long_haul(self) -> str:
        """LONG_HAUL_BYTES of 64 KB requests through one connection of a pair of workers of its own, twoway then
        oneway, each run within LONG_HAUL_SECONDS: every message delivered and counted. Its own pair, so that a
        transport that hangs or breaks here leaves the other checks' workers alone."""
        calls = -(-LONG_HAUL_BYTES // LONG_HAUL_PAYLOAD)
        server, client = self._server("long-haul"), self._client("long-haul")
        out = []
        try:
            answer = client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}}, watch=[server])
            assert answer["ok"], f"connect: {answer.get('error_kind')}: {answer.get('error')}"
            for mode in ("twoway", "oneway"):
                if mode not in self.target.modes:
                    continue
                started = time.monotonic()
                try:
                    self._run(client, server, mode, "octets", LONG_HAUL_PAYLOAD, calls, 0, timeout=LONG_HAUL_SECONDS)
                except (AssertionError, WorkerError) as exc:
                    carried = (len(out) * calls * LONG_HAUL_PAYLOAD) / 2**20
                    raise AssertionError(f"{mode} ({carried:.0f} MiB through the connection before it), {calls} calls "
                                         f"of {LONG_HAUL_PAYLOAD} B: {exc}") from None
                out.append(f"{mode} {calls * LONG_HAUL_PAYLOAD / 2**20:.0f} MiB in {time.monotonic() - started:.1f} s")
        finally:
            client.stop()
            server.stop()
        return ", ".join(out)

    def _baseline_io(self, client: ClientWorker, server: ServerWorker) -> str:
        """A socket baseline's twoway run, 1000 B: per call one write and one read each end, one data segment
        each way, and no buffer allocated per call (PROTOCOL.md, How a socket baseline reads and writes)."""
        client_pid = int(client.call({"cmd": "hello"})["pid"])
        server_pid = int(server.ready["pid"])
        box: dict = {}

        def run() -> None:
            box["segments"] = {pid: wire_checks.segments_out(pid) for pid in (client_pid, server_pid)}
            before = server.stats()
            box["answer"], _ = self._run(client, server, "twoway", "octets", BASELINE_PAYLOAD, BASELINE_CALLS, 0)
            after = server.stats()
            box["segments"] = {pid: wire_checks.segments_out(pid) - n for pid, n in box["segments"].items()}
            memory = box["answer"].get("memory") or {}
            box["allocated"] = {"client": memory.get("thread_allocated_bytes", memory.get("allocated_bytes"))}
            if before and after and "allocated_bytes" in (after.get("memory") or {}):
                box["allocated"]["server"] = after["memory"]["allocated_bytes"] - before["memory"]["allocated_bytes"]

        out = []
        calls = wire_checks.counted_calls([client_pid, server_pid], run)
        if calls is None:  # the send/recv counter is not built: strace, where it may attach
            try:
                calls = wire_checks.syscalls_during([client_pid, server_pid], run)
            except StraceError as exc:
                # Without either (strace is an anatomy tool, not a requirement) the segments are still counted.
                out.append(f"reads and writes not counted: {exc}")
                calls = None
                run()
        for role, pid in (("client", client_pid), ("server", server_pid)):
            counts = {"segments": box["segments"][pid]}
            if calls is not None:
                counts |= {"writes": calls[pid].writes, "reads": calls[pid].reads}
            per = {k: max(v - BASELINE_RUN_OVERHEAD, 0) / BASELINE_CALLS for k, v in counts.items()}
            for what, value in per.items():
                assert value <= BASELINE_PER_CALL_MAX, (
                    f"the {role} made {value:.2f} {what} per call (at most {BASELINE_PER_CALL_MAX}: one per "
                    "message)")
            if calls is not None:
                assert per["writes"] >= 0.9 and per["reads"] >= 0.9, f"the {role}'s calls were not seen: {per}"
            out.append(f"{role} " + " ".join(f"{v:.2f} {k}" for k, v in per.items())
                       + (f" ({calls[pid].source})" if calls is not None else ""))
        for role, allocated in box["allocated"].items():
            if allocated is None:
                continue
            per = allocated / BASELINE_CALLS
            assert per <= BASELINE_ALLOCATED_FRACTION_MAX * BASELINE_PAYLOAD, (
                f"the {role} allocated {per:.0f} heap bytes per call of {BASELINE_PAYLOAD} B: a buffer per message?")
            out.append(f"{role} {per:.0f} B allocated")
        return "; ".join(out) + " per call"

    def _option_checks(self) -> None:
        """Every connect option the descriptor claims, at every value a campaign can set: accepted at connect,
        and a short oneway and twoway run deliver every message; every fixed option at its value accepted."""
        plans = [(key, value) for key in self.target.options for value in OPTION_VALUES[key]]
        plans += [(key, value) for key, value in self.target.fixed_options]
        segments: dict[object, dict[str, float]] = {}
        for key, value in plans:
            self.check(f"option {key} = {json.dumps(value)}: accepted, every message delivered",
                       lambda k=key, v=value: self._with_option(k, v, segments))
        if "tcp_nodelay" in self.target.options:
            self.check("option tcp_nodelay = false: seen on the wire", lambda: nagle_seen(segments), workers=False)
        if "twoway" in segments.get(True, {}):
            self._one_segment(segments[True]["twoway"])
        for key in self.target.refused_options:
            self.check(f"option {key} (refused_options): refused at connect with a reason",
                       lambda k=key: self._refused(k))

    def _one_segment(self, per_request: float) -> None:
        """With TCP_NODELAY on, a 1000 B twoway request should leave as one data segment; more is a warning."""
        name = "tcp_nodelay = true: a 1000 B twoway request is one data segment"
        if per_request < SPLIT_SEGMENTS:
            self.checks.append(Check(name, True, f"{per_request:.2f} segments per message"))
            return
        family = read_families()[self.target.family] if self.target.family else None
        why = (family.extra_segments if family and family.extra_segments else
               "the worker writes a request in parts (header, then body), and with TCP_NODELAY on each part leaves "
               "as a segment of its own")
        self.checks.append(Check(name, True, f"{per_request:.2f} segments per message: {why}, a cost of the "
                                             "middleware's", warning=True))

    def _refused(self, key: str) -> str:
        server, client = self._server(f"refused-{key}"), self._client(f"refused-{key}")
        try:
            answer = client.call({"cmd": "connect", "endpoint": server.endpoint,
                                  "options": {key: OPTION_VALUES[key][0]}}, watch=[server])
            assert not answer["ok"] and answer.get("error_kind") == "unsupported", \
                f"expected an unsupported answer, got {answer}"
            return str(answer.get("error"))[:80]
        finally:
            client.stop()
            server.stop()

    def _with_option(self, key: str, value: object, segments: dict[object, dict[str, float]]) -> str:
        """`segments`: for tcp_nodelay, gains the client's data segments per message of each mode at `value`."""
        plan = plan_options(self.target, {key: value})
        assert plan.unsupported is None, plan.unsupported
        server = self._server(f"option-{key}-{value}", plan.server_args)
        client = self._client(f"option-{key}-{value}")
        try:
            pid = client.call({"cmd": "hello"}, watch=[server]).get("pid")
            answer = client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {key: value}},
                                 watch=[server])
            assert answer["ok"], f"connect refused it: {answer.get('error_kind')}: {answer.get('error')}"
            out = []
            for mode in ("oneway", "twoway"):
                if mode not in self.target.modes:
                    continue
                size = 1 if mode == "oneway" else 1000  # small oneways are what Nagle coalesces
                # With Nagle on, each twoway call of a request written in parts waits for a delayed ACK (40 ms).
                calls, warmup = ((NAGLE_TWOWAY_CALLS, NAGLE_TWOWAY_WARMUP)
                                 if (key, value, mode) == ("tcp_nodelay", False, "twoway") else
                                 (OPTION_CALLS, OPTION_WARMUP))

                def run(m: str = mode, n: int = size, c: int = calls, w: int = warmup) -> None:
                    out.append(self._run_point(client, server, m, "octets", n, c, w))

                if key == "tcp_nodelay" and pid is not None:
                    sent = wire_checks.segments_during(int(pid), run)
                    per = sent / (calls + warmup)
                    segments.setdefault(value, {})[mode] = per
                    out[-1] += f", {per:.2f} segments per message"
                else:
                    run()
            return "; ".join(out)
        finally:
            client.stop()
            server.stop()

    def _threading_checks(self) -> None:
        """Every server threading setting the descriptor declares ([threading]; a sized one at
        THREADING_CHECK_SIZE): its server starts with the setting's arguments and serves a short twoway run."""
        for name in self.target.threading_names(THREADING_CHECK_SIZE):
            choice = self.target.threading_choice(name)
            self.check(f"threading {name} ({choice.words}): server starts and serves twoway calls",
                       lambda c=choice: self._with_threading(c.name, c.args))

    def _with_threading(self, name: str, args: tuple[str, ...]) -> str:
        server = self._server(f"threading-{name}", args)
        client = self._client(f"threading-{name}")
        try:
            answer = client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}}, watch=[server])
            assert answer["ok"], f"connect: {answer.get('error_kind')}: {answer.get('error')}"
            return self._run_point(client, server, "twoway", "octets", 1000, OPTION_CALLS, OPTION_WARMUP)
        finally:
            client.stop()
            server.stop()

    def _serial_service(self, client: ClientWorker, server: ServerWorker) -> str:
        """A serial server's stats `service` counts each payload-carrying request once, and each one's service
        time is at least its spin (PROTOCOL.md, Load servers)."""
        before = (server.stats() or {}).get("service")
        assert before is not None, "a serial server's stats answer has no service"
        self._run(client, server, "twoway", "octets", 1000, SERIAL_CALLS, CHECK_WARMUP)
        after: dict = {}
        for _ in range(50):  # the last request is added once its reply's write has returned
            after = (server.stats() or {}).get("service") or {}
            if after.get("requests", 0) - before["requests"] >= SERIAL_CALLS + CHECK_WARMUP:
                break
            time.sleep(0.02)
        self._validate(after, "service")
        served = after["requests"] - before["requests"]
        assert served == SERIAL_CALLS + CHECK_WARMUP, \
            f"service counted {served} requests, the run made {SERIAL_CALLS + CHECK_WARMUP}"
        mean = (after["busy_ns"] - before["busy_ns"]) / served
        spin = server.ready["worker"].get("delay_ns", 0)
        assert mean >= spin, f"mean service time {mean:.0f} ns is below the server's spin of {spin} ns"
        return f"mean service time {mean / 1000:.1f} us for a spin of {spin / 1000:.1f} us"

    def _stats(self, server: ServerWorker) -> str:
        first, second = server.stats(), server.stats()
        assert first is not None and second is not None
        self._validate(first, "server_stats")
        self._validate(second, "server_stats")
        for key, value in (first.get("memory") or {}).items():
            assert second["memory"][key] >= value, f"stats counter {key} went down: {first} then {second}"
        return json.dumps(second.get("memory") or {})

    def _soak(self, client: ClientWorker, server: ServerWorker) -> str:
        """50 Hz for 0.6 s in 0.2 s intervals: three interval events of 10 calls each (a paced call is in the
        interval of its intended send time), then the answer; every call delivered."""
        events: list[dict] = []
        answer = client.call({"cmd": "run", "mode": "twoway", "payload_type": "octets", "payload_bytes": 8,
                              "warmup": CHECK_WARMUP, "duration_s": 0.6, "interval_s": 0.2, "rate_hz": 50,
                              "sync_timeout_ms": 10000}, timeout=60, watch=[server], on_event=events.append)
        if not answer["ok"] and answer.get("error_kind") == "unsupported" and not events:
            # Soak runs are a load feature, optional (PROTOCOL.md): refusing one is allowed, hanging is not.
            assert client.call({"cmd": "hello"}, watch=[server])["ok"], "client no longer answers after it"
            return f"unsupported: {str(answer.get('error'))[:60]}"
        if not answer["ok"]:
            raise AssertionError(f"error answer: {answer.get('error_kind')}: {answer.get('error')}")
        self._validate(answer, "soak_answer")
        for event in events:
            self._validate(event, "interval_event")
            # A paced run: deadline misses are counted (PROTOCOL.md, Soak runs; optional when not paced).
            assert "deadline_misses" in event, f"interval {event.get('index')} of a paced soak has no deadline_misses"
        assert "deadline_misses" in answer, "a paced soak's answer has no deadline_misses"
        assert [e["index"] for e in events] == [0, 1, 2], f"interval indices {[e['index'] for e in events]}"
        assert [e["calls"] for e in events] == [10, 10, 10], f"calls per interval {[e['calls'] for e in events]}"
        assert all(sum(c for _, c in e["buckets"]) == e["calls"] for e in events), "buckets do not add up to calls"
        assert answer["calls"] == 30 and answer["received"]["messages"] == 30, f"answer {answer}"
        if self.target.is_jvm:  # a JVM reports its GC per interval
            assert all("gc" in e for e in events), "a Java worker's intervals carry gc"
        return f"p50 {answer['p50_ns'] / 1000:.1f} us, rss {events[-1]['rss_bytes'] / 2**20:.0f} MiB"

    def _quit(self, client: ClientWorker) -> None:
        answer = client.call({"cmd": "quit"})
        self._validate(answer, "quit_answer")
        code = client.proc.wait(timeout=10)
        assert code == 0, f"client exited with {code}"

    def _stdin_eof(self, server: ServerWorker) -> None:
        assert server.proc.stdin is not None
        server.proc.stdin.close()
        try:
            server.proc.wait(timeout=10)
        except Exception:
            raise AssertionError("server still running 10 s after its stdin closed") from None

    @staticmethod
    def _until_calls_arrive(server: ServerWorker, wait_s: float = 1.0) -> None:
        """Returns once the server has counted calls of the run just sent (its stats' received messages), or
        after `wait_s` where its stats do not count them: the kill must come in the middle of the run."""
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            received = ((server.stats() if server.answers_stats else None) or {}).get("received")
            if received is None:
                time.sleep(max(0.0, deadline - time.monotonic()))
                return
            if received.get("messages", 0) >= KILL_AFTER_CALLS:
                return
            time.sleep(0.02)

    def _killed_server(self) -> str:
        server = self._server("kill")
        client = self._client("kill")
        try:
            client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}})
            assert client.proc.stdin is not None
            command = {"cmd": "run", "mode": "twoway", "payload_type": "octets", "payload_bytes": 1,
                       "calls": 5_000_000, "warmup": 0, "samples_file": str(self.log_dir / "killed.i64"),
                       "sync_timeout_ms": 5000, "id": "kill"}
            client.proc.stdin.write((json.dumps(command) + "\n").encode())
            client.proc.stdin.flush()
            self._until_calls_arrive(server)
            server.proc.send_signal(signal.SIGKILL)
            started = time.monotonic()
            answer = client.read_json(timeout=30)
            took = time.monotonic() - started
            self._validate(answer, "error_answer")
            assert answer["error_kind"] in ("transport", "remote"), f"error_kind {answer['error_kind']}"
            return f"answered in {took:.1f} s: {answer['error'][:60]}"
        finally:
            client.stop()
            server.stop()


def nagle_seen(segments: dict[object, dict[str, float]]) -> str:
    """tcp_nodelay = false changes what goes on the wire: a twoway request in more data segments (two
    writes, PROTOCOL.md) or small oneways in fewer (Nagle's algorithm coalesces them), against true."""
    on, off = segments.get(True, {}), segments.get(False, {})
    assert on and off, f"no segment counts for both values: {segments}"
    seen = []
    if "twoway" in on and "twoway" in off and off["twoway"] >= on["twoway"] + NAGLE_TWOWAY_EXTRA_SEGMENTS:
        seen.append(f"twoway {on['twoway']:.2f} -> {off['twoway']:.2f} segments per message")
    if "oneway" in on and "oneway" in off and off["oneway"] <= NAGLE_ONEWAY_FRACTION * on["oneway"]:
        seen.append(f"oneway {on['oneway']:.2f} -> {off['oneway']:.2f} segments per message")
    assert seen, (f"segments per message the same with tcp_nodelay true {on} and false {off}: "
                  "the option is accepted but not applied")
    return "; ".join(seen)


def is_same_or_descendant(pid: int, ancestor: int) -> bool:
    """Whether `pid` is `ancestor` or a process under it (a launcher script may start the real worker)."""
    for _ in range(16):
        if pid == ancestor:
            return True
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(stat[stat.rindex(")") + 2:].split()[1])
        if pid <= 1:
            return False
    return False


def format_checks(target: Target, checks: list[Check]) -> str:
    lines = [f"check-target {target.name}:"]
    for c in checks:
        took = f"  [{c.seconds:.1f} s]" if c.seconds >= SHOW_SECONDS_FROM else ""
        state = "FAIL" if not c.passed else "KNOWN" if c.known else "WARN" if c.warning else "PASS"
        lines.append(f"  {state}  {c.name}" + (f"  ({c.detail})" if c.detail else "") + took)
    failed = sum(not c.passed for c in checks)
    notes = [f"{n} {what}" for n, what in ((sum(c.warning for c in checks), "with a warning"),
                                            (sum(c.known for c in checks), "a known failure")) if n]
    lines.append(f"{len(checks) - failed} passed" + (f" ({', '.join(notes)})" if notes else "") + f", {failed} failed")
    return "\n".join(lines)
