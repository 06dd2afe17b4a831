"""The fidelity experiment (`orbench fidelity`, `make bench-fidelity`): is the harness itself invisible? Each row sets one of orbench's
workers, run by the harness as in any campaign, against a reference that makes the same calls with nothing of
orbench's around it, with the same CPU placement, alternating: after each orbench trial at a size, one reference
run at that size. Each pair gives a ratio (orbench p50 / reference p50); a row reports their median, its
distribution-free 95% interval (stats/intervals.median_interval) and their range.

A pair is fresh processes on both sides: every orbench trial is a launch of its own (new server and client
workers), the reference's server is restarted with each launch and its client started for each run. On a small
VM a ping-pong's p50 moves with the process and its connection (the same plain C client, launched eight times
in a row against one server, read 5.9 to 10.9 us at 1 B, each run steady within itself), so pairs that kept one
orbench process against many reference processes compared one draw with many.

- `sockperf`: orbench's C socket baseline (`c-socket`) in echo mode, its p50 halved, against sockperf's TCP
  ping-pong, which reports half the round trip (RTT/2). On the wire, orbench sends P + 12 bytes (OBSK header and
  payload) and gets P + 24 back (header, 12-byte preamble, payload); sockperf sends P + 18 and gets the same P + 18
  back (its own header inside): the same 2P + 36 bytes per round trip.
- `omniorb-loop`: orbench's omniORB worker, twoway `send(octets)` of P bytes, against `orbench-omniorb-loop`
  (cpp/fidelity/): a minimal omniORB client making the same stub call, one pair of clock reads per call, to a
  servant that does nothing; the same GIOP bytes both ways. `omniorb-loop-oneway`: the same with oneway
  `push(octets)`, client time per call and the receiver's messages/s.
- `c-pingpong` (twoway) and `c-pingpong-oneway`: orbench's C socket baseline against `orbench-c-pingpong`
  (cpp/fidelity/c_pingpong.c), a plain C client and server of a few dozen lines moving the same bytes (a 12-byte
  header and the payload in one send(); a 24-byte reply). Oneway compares the client's time per call and the
  receiver's throughput (messages from the first timed call to a final round trip).
- `java-pingpong`, `java-pingpong-oneway`: the same for the Java socket baseline against JavaPingpong, the same
  program on plain java.net.Socket (the JVM on PATH, the worker's heap and collector flags).
- `python-pingpong`, `python-pingpong-oneway`: the same for the Python socket baseline against
  harness/workers/python/fidelity_pingpong.py, the same program on the socket module (the workers' interpreter).

Each row is a campaign of its own (one target, one mode) in a directory of the fidelity run. Warm-up: sockperf
leaves its first 400 ms out of its statistics, so orbench's trials (and the omniORB loop's runs) get 20000
untimed calls by default, 0.3-0.6 s: right after another program has had the CPU, the first 100-odd ms of a
ping-pong can run at twice its steady latency. Every process runs in the harness's own session, like the
workers (targets/workers.py: under Linux autogroup scheduling a session of its own is a scheduler group of its own).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from orbench.campaign.spec import read_campaign
from orbench.errors import UserError
from orbench.hosts.placement import Placement, resolve
from orbench.hosts.readiness import unavailable_reason
from orbench.paths import repo_root
from orbench.results.store import RunStore, write_json_atomic
from orbench.results.trial import Trial
from orbench.running.awake import AwakeCPUs
from orbench.running.runner import Runner
from orbench.stats.intervals import median_interval
from orbench.stats.stats import latency_summary, read_samples
from orbench.targets.descriptor import get_target

GOAL_RATIO = 1.03  # orbench / reference at most this, at every size
# sockperf's message: the mean of orbench's request (P + 12) and echo reply (P + 24), so both move the same bytes.
SOCKPERF_EXTRA_BYTES = 18
SIZES = [1, 16, 128, 1024, 4096, 16384, 32168, 65536]
# sockperf's TCP ping-pong refuses messages near 64 KiB on this build: its row leaves larger sizes out.
SOCKPERF_MAX_BYTES = 32768
LOOP_EXECUTABLE = "cpp/build/orbench-omniorb-loop"
PINGPONG_EXECUTABLE = "cpp/build/orbench-c-pingpong"
JAVA_PINGPONG_JAR = "java/target/orbench-workers.jar"
JAVA_PINGPONG_CLASS = "org.orbench.fidelity.JavaPingpong"
PYTHON = "harness/workers/python/build/venv/bin/python"  # the Python workers' interpreter (`make python`)
PYTHON_PINGPONG = "harness/workers/python/fidelity_pingpong.py"
READY_TIMEOUT_S = 30.0
_P50 = re.compile(r"percentile 50\.000 =\s*([\d.]+)")
_OBS = re.compile(r"Total (\d+) observations")

CAMPAIGN = """
name = "fidelity-{name}"
description = "orbench fidelity: the row against {name}"
targets = {targets}
modes = {modes}
payload_bytes = {sizes}
placements = ["{placement}"]
launches = {pairs}
trials = 1
calls = {calls}
warmup = {warmup}
jvm_warmup = {warmup}
"""


@dataclass(frozen=True)
class ReferenceRun:
    p50_ns: float      # on the scale of the orbench value it is compared with (sockperf: RTT/2)
    observations: int
    loadavg_1m: float
    throughput_msgs_per_s: float | None = None  # oneway: the receiver's


class Reference(Protocol):
    """A program making the same calls as one orbench target and mode (ROWS), measured after each of its trials."""

    name: str
    halve_orbench: bool  # compare orbench's p50 / 2 (a round trip against a reference's RTT/2)
    describe: str

    def start(self) -> None: ...
    def measure(self, payload_bytes: int, trial: int) -> ReferenceRun: ...
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


class Sockperf:
    """sockperf's TCP ping-pong: one server for the whole run, one client run of `seconds` per pair."""

    name = "sockperf"
    halve_orbench = True
    describe = ("orbench c-socket echo p50 / 2 (sends P+12 B, gets P+24 B back) vs sockperf TCP ping-pong p50 of "
                "RTT/2 (sends and gets back P+18 B)")

    def __init__(self, placement: Placement, host: str, seconds: float, logs: Path):
        self.placement, self.host, self.seconds = placement, host, seconds
        self.log = logs / "sockperf.log"
        self.port = 0
        self.server: subprocess.Popen | None = None

    def start(self) -> None:
        if shutil.which("sockperf") is None:
            raise UserError("sockperf not found (apt-get install sockperf, or: make deps)")
        self.port = _free_port(self.host)
        with open(self.log, "ab") as out:
            self.server = subprocess.Popen(
                self.placement.prefix("server") + ["sockperf", "server", "--tcp", "-i", self.host, "-p", str(self.port)],
                stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT)
        _wait_listening(self.host, self.port, self.server, "sockperf server", self.log)

    def measure(self, payload_bytes: int, trial: int) -> ReferenceRun:
        msg = payload_bytes + SOCKPERF_EXTRA_BYTES
        argv = self.placement.prefix("client") + ["sockperf", "ping-pong", "--tcp", "-i", self.host, "-p",
                                                  str(self.port), "-m", str(msg), "-t", f"{self.seconds:g}"]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=self.seconds + 60)
        text = proc.stdout + proc.stderr
        with open(self.log, "a") as out:
            out.write(f"$ {' '.join(argv)}\n{text}")
        m, n = _P50.search(text), _OBS.search(text)
        if proc.returncode != 0 or not m:
            raise UserError(f"sockperf ping-pong -m {msg} failed (exit {proc.returncode}); its output is in {self.log}")
        return ReferenceRun(float(m.group(1)) * 1e3, int(n.group(1)) if n else 0, os.getloadavg()[0])

    def stop(self) -> None:
        _stop(self.server)


class OmniorbLoop:
    """orbench-omniorb-loop: its server restarted with each orbench launch, one client run of `calls` calls per
    pair."""

    halve_orbench = False

    def __init__(self, name: str, mode: str, placement: Placement, host: str, calls: int, warmup: int, logs: Path,
                 samples: Path):
        self.name, self.mode = name, mode
        operation = "oneway push(octets)" if mode == "oneway" else "twoway send(octets)"
        self.describe = (f"orbench omniorb {operation} p50 vs orbench-omniorb-loop (cpp/fidelity/omniorb_loop.cpp): "
                         "the same stub call in a bare loop, one clock read pair per call, to a servant that does "
                         "nothing" + ("; receiver throughput as orbench / reference" if mode == "oneway" else ""))
        self.placement, self.host, self.calls, self.warmup = placement, host, calls, warmup
        self.executable = repo_root() / LOOP_EXECUTABLE
        self.log = logs / f"{name}.log"
        self.samples = samples
        self.ior = ""
        self.server: subprocess.Popen | None = None

    def start(self) -> None:
        if not self.executable.is_file():
            raise UserError(f"{self.executable} is missing (built with omniORB by `make cpp`)")
        with open(self.log, "ab") as err:
            self.server = subprocess.Popen(self.placement.prefix("server") + [str(self.executable), "server", self.host],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True)
        assert self.server.stdout is not None
        self.ior = self.server.stdout.readline().strip()
        if not self.ior.startswith("IOR:"):
            _stop(self.server)
            raise UserError(f"orbench-omniorb-loop server printed no IOR; its stderr is in {self.log}")

    def measure(self, payload_bytes: int, trial: int) -> ReferenceRun:
        self.samples.mkdir(parents=True, exist_ok=True)
        path = self.samples / f"{self.name}-{payload_bytes}B-t{trial}.i64"
        argv = self.placement.prefix("client") + [str(self.executable), "client", self.ior, self.mode,
                                                  str(payload_bytes), str(self.calls), str(self.warmup), str(path)]
        return _run_client(argv, path, self.calls + self.warmup, self.log, self.name)

    def stop(self) -> None:
        _stop(self.server)


def _run_client(argv: list[str], samples_path: Path, calls: int, log: Path, what: str) -> ReferenceRun:
    """One run of a reference's client: its samples file read, its oneway receiver rate (a
    `receiver_msgs_per_s N` line) taken from its output, which goes to the log."""
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120 + calls * 0.002)
    with open(log, "a") as out:
        out.write(f"$ {' '.join(argv)}\n{proc.stdout}{proc.stderr}")
    if proc.returncode != 0:
        raise UserError(f"{what} client failed (exit {proc.returncode}); its output is in {log}")
    m = re.search(r"receiver_msgs_per_s ([\d.]+)", proc.stdout)
    samples = read_samples(samples_path)
    return ReferenceRun(latency_summary(samples)["p50"], int(samples.size), os.getloadavg()[0],
                        float(m.group(1)) if m else None)


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


class Pingpong:
    """A plain ping-pong program (orbench-c-pingpong, JavaPingpong on java.net.Socket, fidelity_pingpong.py on
    Python's socket module): its server restarted with each orbench launch, one client run of `calls` calls per
    pair."""

    halve_orbench = False

    def __init__(self, name: str, mode: str, placement: Placement, host: str, calls: int, warmup: int, logs: Path,
                 samples: Path):
        self.name, self.mode = name, mode
        self.placement, self.host, self.calls, self.warmup = placement, host, calls, warmup
        self.language = name.split("-")[0]
        path, what, self.make_target = _PINGPONGS[self.language]
        self.describe = (f"orbench {ROWS[name][0]} {mode} p50 vs {what} client and server moving the same bytes"
                         + ("; receiver throughput as orbench / reference" if mode == "oneway" else ""))
        self.executable = repo_root() / path
        self.log = logs / f"{name}.log"
        self.samples = samples
        self.port = 0
        self.server: subprocess.Popen | None = None

    def _command(self) -> list[str]:
        if self.language == "java":
            return _java_pingpong()
        if self.language == "python":
            return [str(self.executable), str(repo_root() / PYTHON_PINGPONG)]
        return [str(self.executable)]

    def start(self) -> None:
        if not self.executable.is_file():
            raise UserError(f"{self.executable} is missing (built by `make {self.make_target}`)")
        self.port = _free_port(self.host)
        with open(self.log, "ab") as out:
            self.server = subprocess.Popen(
                self.placement.prefix("server") + self._command() + ["server", self.host, str(self.port)],
                stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT)
        _wait_listening(self.host, self.port, self.server, f"{self.name} server", self.log)

    def measure(self, payload_bytes: int, trial: int) -> ReferenceRun:
        self.samples.mkdir(parents=True, exist_ok=True)
        path = self.samples / f"{self.name}-{payload_bytes}B-t{trial}.i64"
        argv = self.placement.prefix("client") + self._command() + [
            "client", self.host, str(self.port), self.mode, str(payload_bytes), str(self.calls), str(self.warmup),
            str(path)]
        return _run_client(argv, path, self.calls + self.warmup, self.log, self.name)

    def stop(self) -> None:
        _stop(self.server)


def verdict(low: float | None, high: float | None) -> str:
    """Against the goal, from the ratio's 95% interval: `within` (all of it at or under GOAL_RATIO), `beyond` (all
    of it over), `unresolved` (it straddles the goal, or there are too few pairs for an interval)."""
    if low is None or high is None:
        return "unresolved"
    return "within" if high <= GOAL_RATIO else "beyond" if low > GOAL_RATIO else "unresolved"


def _row(ref: Reference, size: int, pairs: list[tuple[float, ReferenceRun]],
         throughputs: list[tuple[float, float]] | None = None) -> dict[str, Any]:
    """One size of one comparison: `pairs` is (orbench trial p50 on the reference's scale, reference run);
    `throughputs` (oneway) is (orbench trial's receiver msgs/s, the reference's)."""
    ratios = [o / r.p50_ns for o, r in pairs]
    interval = median_interval(ratios) if ratios else None
    ratio = interval.estimate if interval else None
    extra: dict[str, Any] = {}
    if throughputs:
        tput = [o / r for o, r in throughputs]
        t_interval = median_interval(tput)
        extra = {"orbench_throughput_msgs_per_s": float(np.median([o for o, _ in throughputs])),
                 "reference_throughput_msgs_per_s": float(np.median([r for _, r in throughputs])),
                 "throughput_ratio": t_interval.estimate, "throughput_ratio_ci": [t_interval.low, t_interval.high],
                 "throughput_ratio_range": [min(tput), max(tput)]}
    return extra | {
        "payload_bytes": size, "pairs": len(pairs),
        "orbench_p50_ns": float(np.median([o for o, _ in pairs])) if pairs else None,
        "reference_p50_ns": float(np.median([r.p50_ns for _, r in pairs])) if pairs else None,
        "orbench_trials_p50_ns": [o for o, _ in pairs],
        "reference_runs_p50_ns": [r.p50_ns for _, r in pairs],
        "reference_observations": sum(r.observations for _, r in pairs),
        "ratio": ratio,
        "ratio_ci": [interval.low, interval.high] if interval else None,
        "ratio_range": [min(ratios), max(ratios)] if ratios else None,
        "verdict": verdict(interval.low, interval.high) if interval else "unresolved",
        "loadavg_1m": [r.loadavg_1m for _, r in pairs],
    }


# Each row: the reference's name -> the orbench target and mode it is compared with.
ROWS = {"sockperf": ("c-socket", "echo"), "c-pingpong": ("c-socket", "twoway"),
        "c-pingpong-oneway": ("c-socket", "oneway"), "java-pingpong": ("java-socket", "twoway"),
        "java-pingpong-oneway": ("java-socket", "oneway"), "python-pingpong": ("python-socket", "twoway"),
        "python-pingpong-oneway": ("python-socket", "oneway"), "omniorb-loop": ("omniorb", "twoway"),
        "omniorb-loop-oneway": ("omniorb", "oneway")}


def run_fidelity(sizes: list[int] = SIZES, placement: str | list[str] = "same-core", pairs: int = 20,
                 calls: int = 10000, warmup: int = 20000, sockperf_seconds: float = 1.0, root: Path | None = None,
                 rows: tuple[str, ...] = tuple(ROWS), awake_cpus: bool = False) -> tuple[RunStore, dict[str, Any]]:
    """Runs the rows (names of references) one after the other, at each placement, into one fidelity run:
    results/fidelity/<id>/ holds fidelity.json, the references' logs and samples, and one campaign run per row
    and placement under <row>[-<placement>]/ (a floor must hold wherever the campaigns measure: at split-core a
    call also wakes the other CPU, which the plain programs pay too). With `awake_cpus` both sides run with the
    pinned CPUs kept from halting (running/awake.py), as a campaign with that key does."""
    placements = [placement] if isinstance(placement, str) else list(placement)
    for name in placements:
        resolve(name)
    missing: dict[str, str] = {}
    for name in rows:
        if name not in ROWS:
            raise UserError(f"unknown fidelity row {name!r}; the rows are {', '.join(ROWS)}")
        why = unavailable_reason(get_target(ROWS[name][0]))
        if why:
            missing[name] = f"target {ROWS[name][0]} unavailable: {why}"
    runnable = [name for name in rows if name not in missing]
    if not runnable:
        raise UserError("no fidelity row can run here: " + "; ".join(f"{k}: {v}" for k, v in missing.items()))

    store = RunStore.create("fidelity", root)
    awake = AwakeCPUs(set().union(*(resolve(pl).worker_cpus() for pl in placements)) if awake_cpus else ())
    with awake:
        comparisons = [{**_run_row(name, store, resolve(pl), pl, sizes, pairs, calls, warmup, sockperf_seconds,
                                   suffix=f"-{pl}" if len(placements) > 1 else ""), "placement": pl}
                       for pl in placements for name in runnable]
    result = {"placement": ", ".join(placements), "placements": placements, "goal_ratio": GOAL_RATIO,
              **({"awake_cpus": awake.as_dict()} if awake_cpus else {}),
              "calls": calls, "warmup": warmup, "pairs": pairs,
              "sockperf_seconds": sockperf_seconds, "comparisons": comparisons, "missing": missing, "note": __doc__}
    write_json_atomic(store.path / "fidelity.json", result)
    store.mark_latest()
    return store, result


def _run_row(name: str, store: RunStore, pl: Placement, placement: str, sizes: list[int], pairs: int, calls: int,
             warmup: int, sockperf_seconds: float, suffix: str = "") -> dict[str, Any]:
    """One row: a campaign of its one target and mode (its baseline not added: nothing is subtracted here), one
    trial per launch, each trial followed by a reference run at its size; the reference's server restarts with
    every launch."""
    target_name, mode = ROWS[name]
    if name == "sockperf":
        sizes = [s for s in sizes if s <= SOCKPERF_MAX_BYTES]
    path = store.path / f"{name}{suffix}.toml"
    path.write_text(CAMPAIGN.format(name=name, targets=[target_name], modes=[mode], sizes=sizes, placement=placement,
                                    pairs=pairs, calls=calls, warmup=warmup))
    campaign = read_campaign(path, targets={target_name: replace(get_target(target_name), baseline=None)})
    host = campaign.host_pairs()[0].bind_address  # where the orbench server binds: the reference binds there too
    ref: Reference
    if name == "sockperf":
        ref = Sockperf(pl, host, sockperf_seconds, store.logs_dir)
    elif "pingpong" in name:
        ref = Pingpong(name, mode, pl, host, calls, warmup, store.logs_dir, store.samples_dir / f"{name}{suffix}")
    else:
        ref = OmniorbLoop(name, mode, pl, host, calls, warmup, store.logs_dir, store.samples_dir / f"{name}{suffix}")
    measured: dict[tuple[int, int], ReferenceRun] = {}
    server_launch = 0  # the orbench launch the reference's server was started for

    def after_trial(runner: Runner, trial: Trial) -> None:
        # The orbench workers sit idle (blocked in a read) while the reference runs.
        nonlocal server_launch
        if not trial.ok:
            return
        if trial.launch != server_launch:
            ref.stop()
            ref.start()
            server_launch = trial.launch
        size = trial.point.payload_bytes
        measured[(size, trial.launch)] = ref.measure(size, trial.launch)

    run = RunStore.create(f"{name}{suffix}", store.path)
    try:
        ref.start()
        Runner(campaign, run, on_trial_done=after_trial).run()
    finally:
        ref.stop()
    ok = [t for t in run.read_trials() if t.ok and t.p50_ns]
    p50 = {(t.point.payload_bytes, t.launch): float(t.p50_ns) for t in ok}
    tput = {(t.point.payload_bytes, t.launch): t.throughput_msgs_per_s for t in ok if t.throughput_msgs_per_s}
    per_size = []
    for size in sizes:
        keys = [(s, t) for s, t in sorted(measured) if s == size and (s, t) in p50]
        pairs = [(p50[k] / (2 if ref.halve_orbench else 1), measured[k]) for k in keys]
        throughputs = [(tput[k], measured[k].throughput_msgs_per_s) for k in keys
                       if k in tput and measured[k].throughput_msgs_per_s]
        per_size.append(_row(ref, size, pairs, throughputs))
    return {"reference": name, "target": target_name, "mode": mode, "halved": ref.halve_orbench,
            "what": ref.describe, "run": str(run.path.relative_to(store.path)), "rows": per_size}


def _interval_text(ci: list[float | None] | None) -> str:
    return "[-]" if not ci or ci[0] is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def format_result(result: dict[str, Any]) -> str:
    awake = result.get("awake_cpus")
    lines = [f"CPUs {', '.join(map(str, awake['cpus']))} kept awake: {awake['how']}", ""] if awake else []
    for comp in result["comparisons"]:
        where = f" ({comp['placement']})" if len(result.get("placements") or []) > 1 else ""
        lines.append(f"{comp['target']} {comp['mode']} vs {comp['reference']}{where}: {comp['what']}")
        scale = "p50 / 2" if comp["halved"] else "p50"
        lines.append(f"{'payload':>9} {'orbench ' + scale:>16} {'reference':>12} {'ratio':>6}  95% interval    "
                     f"pairs  load     vs {result['goal_ratio']}")
        for r in comp["rows"]:
            if r["ratio"] is None:
                lines.append(f"{r['payload_bytes']:>8}B  no paired measurement")
                continue
            load = r["loadavg_1m"]
            tput = (f"  receiver msgs/s orbench/reference {r['throughput_ratio']:.3f} "
                    f"{_interval_text(r.get('throughput_ratio_ci'))}" if r.get("throughput_ratio") is not None else "")
            lines.append(f"{r['payload_bytes']:>8}B {r['orbench_p50_ns'] / 1e3:>13.2f} us {r['reference_p50_ns'] / 1e3:>9.2f} us "
                         f"{r['ratio']:>6.3f}  {_interval_text(r.get('ratio_ci')):<15} {r['pairs']:>4}"
                         f"  {min(load):.1f}-{max(load):.1f}  {r.get('verdict', '')}{tput}")
        lines.append("")
    for name, why in result.get("missing", {}).items():
        lines.append(f"{name}: not measured: {why}")
    return "\n".join(lines).rstrip()
