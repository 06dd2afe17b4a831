"""The profile mode's profiled trial: one trial of a target with a sampling profiler attached to each of its two
workers, on each worker's own host (anatomy/profilers.py), its stacks kept per worker.

Like the anatomy mode's traced trial it is not a latency result: the profilers sample the workers. It runs the
campaign's rewarm and then enough timed calls to last about `profile_s` at the point's measured latency, so
every point gets about as many samples whatever its size. Its anatomy counters (each worker's CPU time per
call) are read as in any trial: what the profile's samples add up to can be checked against them.
"""

from __future__ import annotations

import platform
import shlex
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from orbench.anatomy.folded import Profile, folded_text
from orbench.anatomy.profilers import ProfilerError, ProfilerSession, ProfilerTools
from orbench.anatomy.snapshot import Shell
from orbench.campaign.settings import Settings
from orbench.errors import WorkerError
from orbench.hosts.ssh import Host, HostUnreachable
from orbench.paths import repo_root
from orbench.results.point import Point, PointGroup
from orbench.results.profile import ROLES, ProfileRecord, folded_path
from orbench.results.trial import Measurement
from orbench.running.measure import TrialPlan, measure_single
from orbench.running.session import TargetSession
from orbench.targets.descriptor import Target
from orbench.targets.languages import read_languages

# The profiled trial's timed calls: at most this many (a 1 B call of a fast target at 0.3 s is ~30,000).
MAX_PROFILED_CALLS = 200_000
# The stop script folds the stacks on the worker's host (perf script reads every sample): more than a short command.
STOP_TIMEOUT_S = 120.0
# Where the async-profiler library and py-spy come from on this machine (make java, make python).
ASYNC_PROFILER_DIR = "java/target/profiler"
PY_SPY = "harness/workers/python/build/venv/bin/py-spy"
_ARCH = {"x86_64": "linux-x64", "amd64": "linux-x64", "aarch64": "linux-arm64", "arm64": "linux-arm64"}


@dataclass(frozen=True)
class ProfileSettings:
    seconds: float                     # campaign key profile_s
    period_ns: int                     # campaign key profile_period_us, in ns
    payload_bytes: tuple[int, ...]     # campaign key profile_payload_bytes; empty: every size

    @classmethod
    def from_settings(cls, settings: Settings) -> ProfileSettings:
        return cls(settings.profile_s, int(round(settings.profile_period_us * 1000)),
                   settings.profile_payload_bytes)

    def covers(self, group: PointGroup) -> bool:
        """Whether the group's points get a profiled trial: one client, and a size the campaign profiles."""
        return group.clients == 1 and (not self.payload_bytes or group.payload_bytes in self.payload_bytes)


def profiled_calls(campaign_calls: int, latency_ns: float | None, seconds: float) -> int:
    """The profiled trial's timed calls: `seconds` of calls at the point's latency, at least the campaign's."""
    if not latency_ns or latency_ns <= 0:
        return campaign_calls
    return max(campaign_calls, min(MAX_PROFILED_CALLS, round(seconds * 1e9 / latency_ns)))


def role_profilers(target: Target) -> dict[str, str | None]:
    """The profiler of each worker, by its language (an interop target's client and server differ)."""
    languages = read_languages()
    sides = target.language.split("->")
    return {role: (languages[lang].profiler if lang in languages else None)
            for role, lang in zip(ROLES, (sides[0], sides[-1]), strict=True)}


class ToolShipper:
    """The profilers' own files on each worker's host: this checkout's on this machine, a copy (made once per host
    and run) in the host's scratch directory elsewhere."""

    def __init__(self) -> None:
        self._shipped: dict[tuple[str, str], str] = {}
        self._arch: dict[str, str] = {}
        self._lock = threading.Lock()

    def tools(self, host: Host, scratch: str, profiler: str) -> ProfilerTools:
        if profiler == "async-profiler":
            arch = self._host_arch(host)
            local = repo_root() / ASYNC_PROFILER_DIR / arch / "libasyncProfiler.so"
            return ProfilerTools(async_profiler_lib=self._on_host(host, scratch, local, f"{arch}-libasyncProfiler.so"))
        if profiler == "py-spy":
            return ProfilerTools(py_spy=self._on_host(host, scratch, repo_root() / PY_SPY, "py-spy"))
        return ProfilerTools()

    def _host_arch(self, host: Host) -> str:
        if host.spec.is_local:
            machine = platform.machine()
        else:
            with self._lock:
                if host.name not in self._arch:
                    self._arch[host.name] = host.run_shell("uname -m").stdout.decode().strip()
                machine = self._arch[host.name]
        return _ARCH.get(machine, f"linux-{machine}")

    def _on_host(self, host: Host, scratch: str, local: Path, name: str) -> str:
        if host.spec.is_local or not local.is_file():
            return str(local)   # a missing file: the start script says so, naming it
        with self._lock:
            key = (host.name, name)
            if key not in self._shipped:
                remote = f"{scratch}/orbench-profilers/{name}"
                q = shlex.quote(remote)
                host.run_shell(f"mkdir -p $(dirname {q}) && cat > {q}.tmp && chmod +x {q}.tmp && mv {q}.tmp {q}",
                               stdin=local.read_bytes(), timeout=300)
                self._shipped[key] = remote
            return self._shipped[key]


def _shell(host: Host, timeout: float) -> Shell:
    return lambda script: host.run_shell(script, check=False, timeout=timeout).stdout.decode(errors="replace")


@dataclass(frozen=True)
class ProfiledTrial:
    measurement: Measurement
    profiles: dict[str, Profile | str]   # by role: the profile, or why there is none


def measure_profiled(session: TargetSession, point: Point, plan: TrialPlan, settings: ProfileSettings,
                     shipper: ToolShipper) -> ProfiledTrial:
    """The trial with both workers profiled. A worker whose profiler cannot start leaves the other profiled and
    says why; a WorkerError of the trial itself goes to the caller once the profilers are stopped."""
    assert session.client is not None and session.server is not None
    runtime = session.runtime
    pids = {"client": session.hello.get("pid") or (None if session.client.via else session.client.pid),
            "server": session.server.ready.get("pid")}
    hosts = {"client": runtime.client_host, "server": runtime.server_host}
    profilers = role_profilers(session.target)
    profiles: dict[str, Profile | str] = {}
    # One profiler session per group of roles: both workers share one perf when it runs on one host for both
    # (one sampler on their CPUs, one start and one fold), else each worker has its own.
    groups: list[tuple[str, ...]] = []
    for role in ROLES:
        if profilers[role] is None:
            profiles[role] = f"the language of the {role} has no profiler (languages.toml, key profiler)"
        elif not pids[role]:
            profiles[role] = f"the {role}'s pid on its host is unknown"
        elif groups and profilers[role] == "perf" == profilers[groups[0][0]] and \
                hosts[role].name == hosts[groups[0][0]].name:
            groups[0] += (role,)
        else:
            groups.append((role,))
    attached: dict[tuple[str, ...], ProfilerSession] = {}

    def attach(roles: tuple[str, ...]) -> None:
        first = roles[0]
        host, profiler, scratch = hosts[first], profilers[first], runtime.scratch_dir(first)
        assert profiler is not None
        try:
            tools = shipper.tools(host, scratch, profiler)
            attached[roles] = ProfilerSession.attach(
                _shell(host, 60.0), profiler, tuple(int(pids[r]) for r in roles),
                f"{scratch}/orbench-profile-{'-'.join(roles)}-{int(pids[first])}.out", settings.period_ns, tools)
        except (ProfilerError, HostUnreachable) as exc:
            profiles.update({r: str(exc) for r in roles})

    def stop(roles: tuple[str, ...]) -> None:
        try:
            attached[roles].shell = _shell(hosts[roles[0]], STOP_TIMEOUT_S)
            by_pid = attached[roles].stop()
            profiles.update({r: by_pid[int(pids[r])] for r in roles})
        except (ProfilerError, HostUnreachable) as exc:
            profiles.update({r: str(exc) for r in roles})

    # The sessions at once: starting a profiler and folding its stacks take seconds on a busy host.
    _each(attach, groups)
    try:
        measurement = measure_single(session, point, plan)
    finally:
        _each(stop, list(attached))
    return ProfiledTrial(measurement, profiles)


def _each(work: Callable[[tuple[str, ...]], None], groups: list[tuple[str, ...]]) -> None:
    """`work` for each group of roles, each in its own thread; an unexpected error is raised again here."""
    errors: list[BaseException] = []

    def run(roles: tuple[str, ...]) -> None:
        try:
            work(roles)
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(roles,), daemon=True, name=f"profile-{'-'.join(roles)}")
               for roles in groups]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def profile_records(run_dir: Path, point: Point, trial: ProfiledTrial, hosts: dict[str, str]) -> list[ProfileRecord]:
    """Each worker's stacks written to profiles/ and its record."""
    m = trial.measurement
    calls = int(m.anatomy_calls or ((m.calls or 0) + (m.warmup or 0)))
    records = []
    for role in ROLES:
        profile = trial.profiles.get(role)
        # A trial that failed before its profilers started (failed_trial) has none: its error says why.
        if m.status != "ok" and (profile is None or isinstance(profile, Profile)):
            profile = f"the profiled trial {m.status}: {m.error}"
        elif profile is None:
            profile = "not profiled"
        if isinstance(profile, str):
            records.append(ProfileRecord(point, role, hosts[role], "", "", "", 0, calls, 0, None, profile))
            continue
        path = folded_path(run_dir, point, role)
        path.write_text(folded_text(profile.stacks))
        records.append(ProfileRecord(point, role, hosts[role], profile.profiler, profile.version, profile.event,
                                     profile.period_ns, calls, profile.samples, str(path.relative_to(run_dir))))
    return records


def failed_trial(exc: WorkerError) -> ProfiledTrial:
    return ProfiledTrial(Measurement(status="failed", error=str(exc)), {})
