"""The reference programs of `orbench fidelity` (running/fidelity.py): what each row's orbench worker is compared
with, started for each orbench launch and taking turns with its slices (a slices.Companion): sockperf, the plain
ping-pong programs in C, Java and Python, and the bare omniORB loop. How the experiment runs them and judges the
ratios is in running/fidelity.py."""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from orbench.errors import UserError
from orbench.hosts.placement import Placement
from orbench.paths import repo_root
from orbench.stats.stats import latency_summary, read_samples

# sockperf's message: the mean of orbench's request (P + 12) and echo reply (P + 24), so both move the same bytes.
SOCKPERF_EXTRA_BYTES = 18
# sockperf's largest message, the UDP payload limit it keeps for TCP too (sockperf 3.7 closed the connection at
# 65,508 B and beyond), so the largest payload its row can match is 65,489 B: its row measures a size just over
# that (64 KiB, 47 B over) there, both sides, and leaves larger sizes out.
SOCKPERF_MAX_MESSAGE = 65507
SOCKPERF_MAX_BYTES = SOCKPERF_MAX_MESSAGE - SOCKPERF_EXTRA_BYTES
# How far over SOCKPERF_MAX_BYTES a size may be and still be measured at it: 0.1% of the size.
SOCKPERF_NEAR_SHARE = 0.001
LOOP_EXECUTABLE = "cpp/build/orbench-omniorb-loop"
PINGPONG_EXECUTABLE = "cpp/build/orbench-c-pingpong"
JAVA_PINGPONG_JAR = "java/target/orbench-workers.jar"
JAVA_PINGPONG_CLASS = "org.orbench.fidelity.JavaPingpong"
PYTHON = "harness/workers/python/build/venv/bin/python"  # the Python workers' interpreter (`make python`)
PYTHON_PINGPONG = "harness/workers/python/fidelity_pingpong.py"
READY_TIMEOUT_S = 30.0
# A sockperf client sleeps 2 s after it connects, then runs its test, leaving its first 400 ms out of its figures.
# The clients of a launch start together (their 2 s overlap), and each runs free for SOCKPERF_FREE_S from its own
# test's start, as its warm-up, then stays stopped until its turns: no client runs inside its figures but in its
# turns. (Stopped together after the last one's start, the first sizes' clients ran 50-100 ms inside their figures
# alongside the others, on one CPU at same-core, and read 12.4-15.2 us at 1-128 B where free they read 2.5 us.)
SOCKPERF_START_TIMEOUT_S = 10.0
SOCKPERF_FREE_S = 0.25  # under 400 ms by more than the time it takes to see a client's test start
SOCKPERF_LEFT_OUT_S = 0.45  # the first turn after the 400 ms: a turn inside them would count for nothing
# It also leaves out its last 50 ms before it ends: when a launch ends, its clients run on this long (less than
# those 50 ms) before they are interrupted, so that every turn counts.
SOCKPERF_CLOSING_S = 0.04
# A client's test time (-t). sockperf fills memory for a sample per call at any rate over all of it, about 10 MB a
# second (a 60 s client held 576 MB): 7 sizes at 25 s hold about 1.7 GB. A launch of the row, clients' start
# included, took 10-11 s on a 2-vCPU VM. A client whose time runs out keeps its figures so far and takes no more
# turns.
SOCKPERF_CLIENT_S = 25
# A turn before orbench's side has a time per call at the size: about a slice at 1 B.
SOCKPERF_FIRST_TURN_S = 0.01
_P50 = re.compile(r"percentile 50\.000 =\s*([\d.]+)")
_OBS = re.compile(r"Total (\d+) observations")


@dataclass(frozen=True)
class ReferenceRun:
    p50_ns: float      # on the scale of the orbench value it is compared with (sockperf: RTT/2)
    observations: int
    loadavg_1m: float
    throughput_msgs_per_s: float | None = None  # oneway: the receiver's
    mean_ns: float | None = None  # the mean time per call (sliced references)


class Turns(Protocol):
    """A reference's turns in one orbench trial (a slices.Companion) and what they measured, once known."""

    def run_slice(self, index: int, calls: int, rewarm: int) -> None: ...
    def result(self) -> ReferenceRun | None: ...


class Reference(Protocol):
    """A program making the same calls as one orbench target and mode (ROWS), taking turns with it inside each of
    its trials; started again for every orbench launch (stop() ends what a launch measured)."""

    name: str
    halve_orbench: bool  # compare orbench's p50 / 2 (a round trip against a reference's RTT/2)
    describe: str

    def at_sizes(self, sizes: list[int]) -> list[int]:
        """The sizes of the row's next campaign run: those of `sizes` it makes (set before start())."""
        ...
    def start(self) -> None: ...
    def turns(self, payload_bytes: int, launch: int, trial: int, warmup: int) -> Turns: ...
    def orbench_trial(self, payload_bytes: int, mean_ns: float) -> None:
        """The orbench side's time per call in its trial that just ended at this size."""
        ...
    def stop(self) -> None: ...


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _wait_listening(host: str, port: int, proc: subprocess.Popen, what: str, log: Path) -> None:
    end = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise UserError(f"{what} exited with status {proc.returncode} before listening; its output is in {log}")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise UserError(f"{what} is not listening on {host}:{port} after {READY_TIMEOUT_S:.0f} s; its output is in {log}")


def _stop(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    if proc.stdin:
        proc.stdin.close()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class SockperfClient:
    """One `sockperf ping-pong` client for one size in one launch. sockperf runs for a time, not a number of calls,
    and cannot wait between them: so, once its test has begun, it runs free for SOCKPERF_FREE_S (its own warm-up,
    which it leaves out of its figures; _run_warmups), then stays stopped (SIGSTOP) except for its turns (SIGCONT
    for as long as orbench's slice took, then SIGSTOP), and is interrupted when its launch ends (SIGINT), when it
    prints its figures over every turn. The call a stop catches in flight reads the whole stop: one call in a
    turn's hundreds, which a p50 does not see."""

    def __init__(self, argv: list[str], log: Path):
        self.argv, self.log = argv, log
        self.proc: subprocess.Popen | None = None
        self.head = ""  # its output up to the start of its test
        self.result: ReferenceRun | None = None

    def launch(self) -> None:
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)

    def read_head(self) -> bool:
        """Reads what it has printed (from the pipe itself, which a buffered reader could have emptied into its
        buffer); whether its test has begun (its "Starting test" line)."""
        assert self.proc is not None and self.proc.stdout is not None
        self.head += os.read(self.proc.stdout.fileno(), 65536).decode(errors="replace")
        return "Starting test" in self.head

    def stop(self) -> None:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGSTOP)

    def close(self) -> None:
        """Runs on (SIGCONT) towards its end, which interrupt() makes."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)

    def interrupt(self) -> None:
        """Ends its test (SIGINT: sockperf prints its figures and exits)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            self.proc.send_signal(signal.SIGCONT)

    def turn(self, seconds: float) -> None:
        """Runs for `seconds`; nothing once it has ended (its test time ran out: its figures so far stand)."""
        assert self.proc is not None
        if self.result is not None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGCONT)
        time.sleep(seconds)
        self.stop()

    def finish(self) -> ReferenceRun | None:
        """Its figures over every turn (interrupted if it still runs); None without any."""
        if self.result is not None or self.proc is None:
            return self.result
        self.interrupt()
        try:
            text, _ = self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            text, _ = self.proc.communicate()
        text = self.head + (text or "")
        with open(self.log, "a") as out:
            out.write(f"$ {' '.join(self.argv)}\n{text}")
        m, n = _P50.search(text), _OBS.search(text)
        if m:
            self.result = ReferenceRun(float(m.group(1)) * 1e3, int(n.group(1)) if n else 0, os.getloadavg()[0])
        return self.result


def _run_warmups(clients: list[SockperfClient]) -> None:
    """Each client's warm-up: SOCKPERF_FREE_S from its test's start, then stopped; returns once the figures of
    every one have begun (SOCKPERF_LEFT_OUT_S after its start), so that its first turn counts."""
    deadline = time.monotonic() + SOCKPERF_START_TIMEOUT_S
    began: dict[int, float] = {}
    stopped: set[int] = set()
    while len(stopped) < len(clients):
        now = time.monotonic()
        for i, at in began.items():
            if i not in stopped and now >= at + SOCKPERF_FREE_S:
                clients[i].stop()
                stopped.add(i)
        for i, client in enumerate(clients):
            if i not in began and (client.proc is None or client.proc.poll() is not None or now > deadline):
                client.finish()
                raise UserError(f"sockperf ping-pong did not start its test; its output is in {client.log}")
        waiting = {c.proc.stdout.fileno(): i for i, c in enumerate(clients)
                   if i not in began and c.proc is not None and c.proc.stdout is not None}
        wake = min([at + SOCKPERF_FREE_S for i, at in began.items() if i not in stopped], default=now + 0.2)
        if not waiting:
            time.sleep(max(0.0, wake - now))
            continue
        for fd in select.select(list(waiting), [], [], max(0.0, min(wake, now + 0.2) - now))[0]:
            if clients[waiting[fd]].read_head():
                began[waiting[fd]] = time.monotonic()
    time.sleep(max(0.0, max(began.values(), default=0.0) + SOCKPERF_LEFT_OUT_S - time.monotonic()))


@dataclass
class SockperfTurns:
    """sockperf as a slices.Companion: its turns in one orbench trial, each as long as `call_ns` calls of the
    orbench side's last trial at the size take (or SOCKPERF_FIRST_TURN_S before there is one). Its result is its
    client's, over every trial of the size in the launch, once the launch has ended."""

    client: SockperfClient
    call_ns: float | None

    def run_slice(self, index: int, calls: int, rewarm: int) -> None:
        self.client.turn(SOCKPERF_FIRST_TURN_S if self.call_ns is None else calls * self.call_ns / 1e9)

    def result(self) -> ReferenceRun | None:
        return self.client.result


class Sockperf:
    """sockperf's TCP ping-pong: per launch, a server and a client for each size (a sockperf server answers one
    client at a time), all started with the launch's first turn (a client's start takes 2 s, which they then
    share), taking turns with orbench's slices (SockperfClient)."""

    name = "sockperf"
    halve_orbench = True
    describe = ("orbench c-socket echo p50 / 2 (sends P+12 B, gets P+24 B back) vs sockperf TCP ping-pong p50 of "
                "RTT/2 (sends and gets back P+18 B), one sockperf client per size and launch, stopped except for its "
                f"turns between orbench's slices; 64 KiB at {SOCKPERF_MAX_BYTES} B, both sides (sockperf's largest "
                f"message is {SOCKPERF_MAX_MESSAGE} B)")

    def __init__(self, placement: Placement, host: str, logs: Path):
        self.placement, self.host = placement, host
        self.log = logs / "sockperf.log"
        self.sizes: list[int] = []  # the sizes of the row's campaign run: a server and a client each per launch
        self.servers: list[subprocess.Popen] = []
        self.clients: dict[int, SockperfClient] = {}
        self.call_ns: dict[int, float] = {}  # per size: the orbench side's time per call in its last trial

    def at_sizes(self, sizes: list[int]) -> list[int]:
        near = [SOCKPERF_MAX_BYTES if SOCKPERF_MAX_BYTES < size <= SOCKPERF_MAX_BYTES * (1 + SOCKPERF_NEAR_SHARE)
                else size for size in sizes]
        self.sizes = list(dict.fromkeys(size for size in near if size <= SOCKPERF_MAX_BYTES))
        return list(self.sizes)

    def orbench_trial(self, payload_bytes: int, mean_ns: float) -> None:
        # Its turns last as long as orbench's slices: the time per call of orbench's last trial at the size.
        self.call_ns[payload_bytes] = mean_ns

    def start(self) -> None:
        if shutil.which("sockperf") is None:
            raise UserError("sockperf not found (apt-get install sockperf, or: make deps)")

    def _start_clients(self) -> None:
        for size in self.sizes:
            port = _free_port(self.host)
            with open(self.log, "ab") as out:
                self.servers.append(subprocess.Popen(
                    self.placement.prefix("server") + ["sockperf", "server", "--tcp", "-i", self.host, "-p", str(port)],
                    stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT))
            _wait_listening(self.host, port, self.servers[-1], "sockperf server", self.log)
            self.clients[size] = SockperfClient(self.placement.prefix("client") + [
                "sockperf", "ping-pong", "--tcp", "-i", self.host, "-p", str(port),
                "-m", str(size + SOCKPERF_EXTRA_BYTES), "-t", str(SOCKPERF_CLIENT_S)], self.log)
            self.clients[size].launch()
        _run_warmups(list(self.clients.values()))

    def turns(self, payload_bytes: int, launch: int, trial: int, warmup: int) -> SockperfTurns:
        if not self.clients:
            self._start_clients()
        return SockperfTurns(self.clients[payload_bytes], self.call_ns.get(payload_bytes))

    def stop(self) -> None:
        try:
            for client in self.clients.values():
                client.close()
            time.sleep(SOCKPERF_CLOSING_S)
            for client in self.clients.values():
                client.interrupt()
            for client in self.clients.values():
                client.finish()
        finally:
            for client in self.clients.values():
                if client.proc is not None and client.proc.poll() is None:  # stopped: only SIGKILL ends it now
                    client.proc.kill()
                    client.proc.wait()
            for server in self.servers:  # it does not end on stdin's end: _stop would wait 5 s for each
                if server.poll() is None:
                    server.terminate()
                _stop(server)
            self.clients, self.servers = {}, []


class SliceClient:
    """A reference's client in its `slices` mode: one process and connection for a launch, one run per line it is
    sent ("PAYLOAD_BYTES CALLS WARMUP SAMPLES_FILE"), answered with "done" once the run's samples are written."""

    def __init__(self, argv: list[str], what: str, log: Path, samples: Path):
        self.argv, self.what, self.log, self.samples = argv, what, log, samples
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.samples.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as err:
            # Unbuffered bytes: select() sees the pipe, not what a reader's buffer already holds.
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                         bufsize=0)

    def run(self, payload_bytes: int, calls: int, warmup: int, name: str) -> ReferenceRun:
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        path = self.samples / name
        out = b""
        try:
            self.proc.stdin.write(f"{payload_bytes} {calls} {warmup} {path}\n".encode())
            deadline = time.monotonic() + 120 + (calls + warmup) * 0.002
            while time.monotonic() < deadline:
                ready, _, _ = select.select([self.proc.stdout], [], [], 1.0)
                if not ready:
                    continue
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    break  # the client is gone
                out += chunk
                if out.endswith(b"done\n"):
                    return self._result(path, out.decode(errors="replace"))
        except OSError:
            pass
        with open(self.log, "a") as log:
            log.write(f"$ {' '.join(self.argv)} <<< {payload_bytes} {calls} {warmup}\n{out.decode(errors='replace')}")
        status = self.proc.poll()
        raise UserError(f"{self.what} client {'exited with status ' + str(status) if status is not None else 'hung'}"
                        f" in a run of {calls} calls at {payload_bytes} B; its output is in {self.log}")

    @staticmethod
    def _result(path: Path, out: str) -> ReferenceRun:
        m = re.search(r"receiver_msgs_per_s ([\d.]+)", out)
        samples = read_samples(path)
        return ReferenceRun(latency_summary(samples)["p50"], int(samples.size), os.getloadavg()[0],
                            float(m.group(1)) if m else None, float(samples.mean()) if samples.size else None)

    def stop(self) -> None:
        _stop(self.proc)
        self.proc = None


class _Sliced:
    """What the sliced references share: a server and a SliceClient, both restarted with each orbench launch."""

    name: str
    calls: int
    server: subprocess.Popen | None = None
    client: SliceClient | None = None

    def at_sizes(self, sizes: list[int]) -> list[int]:
        return list(sizes)  # its client makes every size, one run command each

    def orbench_trial(self, payload_bytes: int, mean_ns: float) -> None:
        pass  # its slices are calls, as many as orbench's: no time to match

    def measure(self, payload_bytes: int, launch: int, trial: int, warmup: int) -> ReferenceRun:
        assert self.client is not None
        return self.client.run(payload_bytes, self.calls, warmup, f"{self.name}-{payload_bytes}B-l{launch}-t{trial}.i64")

    def turns(self, payload_bytes: int, launch: int, trial: int, warmup: int) -> ReferenceTurns:
        """Its turns in one orbench trial of the runner's sliced design, its first slice after `warmup` calls."""
        return ReferenceTurns(self, payload_bytes, f"{self.name}-{payload_bytes}B-l{launch}-t{trial}", warmup)

    def stop(self) -> None:
        if self.client is not None:
            self.client.stop()
        _stop(self.server)


@dataclass
class ReferenceTurns:
    """A sliced reference as a slices.Companion: its slices inside one orbench trial, alternating with the
    target's in the runner's ABBA order (the same code that alternates a middleware with its baseline), and
    what they measured together, as one ReferenceRun: the p50 and mean of all its slices' calls, the receiver's
    rate over their total time."""

    reference: _Sliced
    payload_bytes: int
    name: str
    warmup: int
    runs: list[ReferenceRun] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def run_slice(self, index: int, calls: int, rewarm: int) -> None:
        assert self.reference.client is not None
        name = f"{self.name}-s{index}.i64"
        self.runs.append(self.reference.client.run(self.payload_bytes, calls, self.warmup if index == 0 else rewarm,
                                                   name))
        self.files.append(self.reference.client.samples / name)

    def result(self) -> ReferenceRun | None:
        if not self.runs:
            return None
        samples = np.concatenate([read_samples(path) for path in self.files])
        rates = [(r.observations, r.throughput_msgs_per_s) for r in self.runs if r.throughput_msgs_per_s]
        rate = (sum(n for n, _ in rates) / sum(n / v for n, v in rates)) if len(rates) == len(self.runs) else None
        return ReferenceRun(latency_summary(samples)["p50"], int(samples.size), self.runs[-1].loadavg_1m, rate,
                            float(samples.mean()))


class OmniorbLoop(_Sliced):
    """orbench-omniorb-loop: its server and slice client restarted with each orbench launch, taking turns with
    the orbench worker inside each trial."""

    halve_orbench = False

    def __init__(self, name: str, mode: str, placement: Placement, host: str, calls: int, logs: Path,
                 samples: Path):
        self.name, self.mode = name, mode
        operation = "oneway push(octets)" if mode == "oneway" else "twoway send(octets)"
        self.describe = (f"orbench omniorb {operation} p50 vs orbench-omniorb-loop (cpp/fidelity/omniorb_loop.cpp): "
                         "the same stub call in a bare loop, one clock read pair per call, to a servant that does "
                         "nothing" + ("; receiver throughput as orbench / reference" if mode == "oneway" else ""))
        self.placement, self.host, self.calls = placement, host, calls
        self.executable = repo_root() / LOOP_EXECUTABLE
        self.log = logs / f"{name}.log"
        self.samples = samples

    def start(self) -> None:
        if not self.executable.is_file():
            raise UserError(f"{self.executable} is missing (built with omniORB by `make cpp`)")
        with open(self.log, "ab") as err:
            self.server = subprocess.Popen(self.placement.prefix("server") + [str(self.executable), "server", self.host],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True)
        assert self.server.stdout is not None
        ior = self.server.stdout.readline().strip()
        if not ior.startswith("IOR:"):
            _stop(self.server)
            raise UserError(f"orbench-omniorb-loop server printed no IOR; its stderr is in {self.log}")
        self.client = SliceClient(self.placement.prefix("client") + [str(self.executable), "slices", ior, self.mode],
                                  self.name, self.log, self.samples)
        self.client.start()

def _java_pingpong() -> list[str]:
    """The Java reference's command: the JVM on PATH with the java-socket worker's heap and collector flags."""
    java = shutil.which("java")
    if java is None:
        raise UserError("java not found on PATH (the Java ping-pong reference needs it)")
    return [java, "-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch", "-XX:+UseG1GC", "-cp",
            str(repo_root() / JAVA_PINGPONG_JAR), JAVA_PINGPONG_CLASS]


# Each plain ping-pong: the file it runs from, how it is described, and the make target that builds it.
_PINGPONGS = {
    "c": (PINGPONG_EXECUTABLE, "orbench-c-pingpong (cpp/fidelity/c_pingpong.c): plain C", "cpp"),
    "java": (JAVA_PINGPONG_JAR, "JavaPingpong (java/src/main/java/org/orbench/fidelity/): plain java.net.Socket",
             "java"),
    "python": (PYTHON, f"{PYTHON_PINGPONG}: plain Python socket module", "python"),
}


def pingpong_command(language: str) -> list[str]:
    """The command of a plain ping-pong (a key of _PINGPONGS), before its `server` or `slices` arguments."""
    if language == "java":
        return _java_pingpong()
    executable = str(repo_root() / _PINGPONGS[language][0])
    return [executable, str(repo_root() / PYTHON_PINGPONG)] if language == "python" else [executable]


class Pingpong(_Sliced):
    """A plain ping-pong program (orbench-c-pingpong, JavaPingpong on java.net.Socket, fidelity_pingpong.py on
    Python's socket module): its server and slice client restarted with each orbench launch, taking turns with
    the orbench worker inside each trial."""

    halve_orbench = False

    def __init__(self, name: str, mode: str, placement: Placement, host: str, calls: int, logs: Path,
                 samples: Path):
        self.name, self.mode = name, mode
        self.placement, self.host, self.calls = placement, host, calls
        self.language = name.split("-")[0]
        path, what, self.make_target = _PINGPONGS[self.language]
        self.describe = (f"orbench {ROWS[name][0]} {mode} p50 vs {what} client and server moving the same bytes"
                         + ("; receiver throughput as orbench / reference" if mode == "oneway" else ""))
        self.executable = repo_root() / path
        self.log = logs / f"{name}.log"
        self.samples = samples

    def _command(self) -> list[str]:
        return pingpong_command(self.language)

    def start(self) -> None:
        if not self.executable.is_file():
            raise UserError(f"{self.executable} is missing (built by `make {self.make_target}`)")
        port = _free_port(self.host)
        with open(self.log, "ab") as out:
            self.server = subprocess.Popen(
                self.placement.prefix("server") + self._command() + ["server", self.host, str(port)],
                stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT)
        _wait_listening(self.host, port, self.server, f"{self.name} server", self.log)
        self.client = SliceClient(self.placement.prefix("client") + self._command()
                                  + ["slices", self.host, str(port), self.mode], self.name, self.log, self.samples)
        self.client.start()


# Each row: the reference's name -> the orbench target and mode it is compared with.
ROWS = {"sockperf": ("c-socket", "echo"), "c-pingpong": ("c-socket", "twoway"),
        "c-pingpong-oneway": ("c-socket", "oneway"), "java-pingpong": ("java-socket", "twoway"),
        "java-pingpong-oneway": ("java-socket", "oneway"), "python-pingpong": ("python-socket", "twoway"),
        "python-pingpong-oneway": ("python-socket", "oneway"), "omniorb-loop": ("omniorb", "twoway"),
        "omniorb-loop-oneway": ("omniorb", "oneway")}
