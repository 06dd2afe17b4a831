"""Workers on a campaign's hosts: every host prepared once (connected, deployed, checked, its environment
collected), then per host pair and placement the command lines that start a server on one host and a client
on the other, the path the client writes its samples to, and the clean-up.

A worker on a remote host is a local `ssh` process whose stdin/stdout are the worker's: workers.py handles it
like any other child process, and the worker contract is unchanged. Its death (kill -9 on the host, a dead
link) ends the ssh process, which the runner already watches. The remote side writes its pid to
<campaign dir>/run/<tag>.pid before it execs the worker, so the harness can always end it by pid, even when
the channel is gone (deploy.sweep).

Every worker, local or remote, is started with the send/recv counter preloaded (LD_PRELOAD) when it was built
(and, for a remote host, deployed): anatomy/syscount.py.

Samples: a remote client writes them into <campaign dir>/samples/ on its host; the harness copies each file
back into the local results store when its trial ends and deletes it there. Trials.csv and the summary are
then computed from local files only, as on localhost.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import shutil
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

from orbench.anatomy.syscount import LIBRARY as SYSCOUNT_LIBRARY
from orbench.anatomy.syscount import local_library, preload_value, preloaded_env
from orbench.errors import UserError
from orbench.hosts.deploy import check_target, deploy, describe_problems, remote_dir, sweep
from orbench.hosts.facts import collect_host_environment
from orbench.hosts.placement import Placement, available_cpus, resolve_on
from orbench.hosts.ssh import Host, HostPair, HostSpec, HostUnreachable, SshSettings
from orbench.paths import repo_root
from orbench.targets.descriptor import Target, java_executable


class HostSet:
    """Every host of a campaign, by name."""

    def __init__(self, pairs: list[HostPair], ssh: SshSettings, campaign: str, run_id: str):
        self.pairs = pairs
        self.control_dir = Path(tempfile.mkdtemp(prefix="orbench-ssh-"))
        specs: dict[str, HostSpec] = {}
        for p in pairs:
            for spec in p.hosts:
                specs.setdefault(spec.name, spec)
        self.hosts = {name: Host(spec, ssh, self.control_dir) for name, spec in specs.items()}
        self.dirs = {name: remote_dir(h, campaign, run_id) for name, h in self.hosts.items() if not h.spec.is_local}
        self.environments: dict[str, dict] = {}
        self.deployed: dict[str, list[str]] = {}
        self.down: dict[str, str] = {}   # host name -> why it was given up during the run
        self.never_reached: set[str] = set()  # unreachable at the start: nothing of the campaign runs there

    @property
    def remote(self) -> list[Host]:
        return [h for h in self.hosts.values() if not h.spec.is_local]

    def syscount_library(self, spec: HostSpec) -> str | None:
        """The send/recv counter's path on that host; None when it is not there (not built, or not deployed)."""
        if spec.is_local:
            return local_library(repo_root())
        if SYSCOUNT_LIBRARY not in self.deployed.get(spec.name, []):
            return None
        return f"{self.dirs[spec.name]}/{SYSCOUNT_LIBRARY}"

    def java_on(self, spec: HostSpec) -> str:
        return spec.java or (java_executable() if spec.is_local else "java")

    def prepare(self, targets: list[Target], pinned: bool, note: Callable[[str], None]) -> None:
        """Connect, deploy, check every remote host; collect every host's environment. Raises UserError
        listing, per host and target, what is missing; nothing has run then."""
        problems: dict[str, list[str]] = {}
        for host in self.remote:
            note(f"connecting to {host}")
            try:
                host.connect()
                self.deployed[host.name] = deploy(host, targets, self.dirs[host.name])
                note(f"deployed {len(self.deployed[host.name])} paths to {host.name}:{self.dirs[host.name]}")
                for t in targets:
                    missing = check_target(host, t, self.dirs[host.name], self.java_on(host.spec), pinned)
                    if missing:
                        problems[f"{host}, target {t.name}"] = missing
            except HostUnreachable as exc:
                # Only the pairs that need it are skipped (Runner), unless none is left.
                self.down[host.name] = f"unreachable: {exc}"
                self.never_reached.add(host.name)
                note(f"{host} is unreachable: its host pairs will be skipped")
            except RuntimeError as exc:
                problems[str(host)] = [str(exc)]
        if problems:
            self.close()
            raise UserError(describe_problems(problems))
        if not self.alive_pairs():
            self.close()
            raise UserError(describe_problems({str(self.hosts[name]): [why] for name, why in self.down.items()}))
        for pair in self.alive_pairs():
            sides = [(pair.server, pair.client.address), *((c, pair.server.address) for c in pair.clients)]
            for spec, peer in sides:
                if spec.name in self.environments:
                    continue
                try:
                    env = collect_host_environment(self.hosts[spec.name], peer, self.java_on(spec))
                except HostUnreachable as exc:
                    raise UserError(str(exc)) from None
                env["peer_address"] = peer
                env["campaign_dir"] = self.dirs.get(spec.name)
                self.environments[spec.name] = env

    def alive_pairs(self) -> list[HostPair]:
        """The pairs none of whose hosts was unreachable when the campaign started."""
        return [p for p in self.pairs if self.unreachable(p) is None]

    def unreachable(self, pair: HostPair) -> str | None:
        """Why `pair` cannot run (a host of it was unreachable at the start), or None."""
        for spec in pair.hosts:
            if spec.name in self.down:
                return f"unreachable host {spec.name}: {self.down[spec.name]}"
        return None

    def cpus(self, spec: HostSpec) -> list[int]:
        if spec.is_local:
            return available_cpus()
        cpus = self.environments.get(spec.name, {}).get("usable_cpus")
        if not cpus:
            raise UserError(f"{self.hosts[spec.name]}: could not read its usable CPUs (/proc/self/status)")
        return cpus

    def collect_gc_logs(self, logs_dir: Path) -> list[str]:
        """Copy the GC logs the remote JVMs wrote (beside their pid files) into the run's logs/, where the
        report finds the local ones. Returns warnings for hosts it could not read them from."""
        warnings = []
        for host in self.remote:
            if host.name in self.never_reached or host.down:
                continue
            run = shlex.quote(f"{self.dirs[host.name]}/run")
            try:
                out = host.run_shell(f"cd {run} 2>/dev/null || exit 0; ls *-gc-*.log >/dev/null 2>&1 || exit 0; "
                                     "tar cf - *-gc-*.log", check=False, timeout=120)
            except HostUnreachable as exc:
                warnings.append(f"{host}: its JVMs' GC logs could not be copied back: {exc}")
                continue
            if out.returncode != 0 or not out.stdout:
                continue
            with tarfile.open(fileobj=io.BytesIO(out.stdout)) as tar:
                for member in tar.getmembers():
                    if member.isfile() and "/" not in member.name:
                        data = tar.extractfile(member)
                        if data is not None:
                            (logs_dir / member.name).write_bytes(data.read())
        return warnings

    def sweep_all(self) -> list[str]:
        """End every worker this campaign started on every remote host. Returns warnings for hosts it could
        not reach (their workers may still run; `orbench cleanup RUN` retries)."""
        warnings = []
        for host in self.remote:
            if host.name in self.never_reached:
                continue
            try:
                killed = sweep(host, self.dirs[host.name])
                if killed:
                    warnings.append(f"{host}: {killed} worker(s) had to be killed at the end of the campaign")
            except (HostUnreachable, RuntimeError) as exc:
                warnings.append(f"{host}: could not make sure its workers stopped ({exc}); once it is back, "
                                "run: orbench cleanup RUN_DIR")
        return warnings

    def close(self) -> None:
        for host in self.hosts.values():
            host.disconnect()
        shutil.rmtree(self.control_dir, ignore_errors=True)


class PairRuntime:
    """How one host pair runs a target's workers under one placement. Client worker k runs on the pair's client
    host k mod H (HostPair.client_of): one host but for a spread (campaign key spread_clients)."""

    def __init__(self, pair: HostPair, hosts: HostSet, placement: Placement):
        self.pair = pair
        self.hosts = hosts
        self.placement = placement
        self.server_host = hosts.hosts[pair.server.name]
        self.client_hosts = [hosts.hosts[spec.name] for spec in pair.clients]
        self.client_host = self.client_hosts[0]
        # Each client host pins its clients by the placement's rule on its own CPUs (hosts of a spread may differ).
        self.client_placements = [placement if k == 0 or placement.client_cpus is None
                                  else resolve_on(placement.name, hosts.cpus(pair.server), hosts.cpus(spec))
                                  for k, spec in enumerate(pair.clients)]

    @property
    def is_local(self) -> bool:
        return all(spec.is_local for spec in self.pair.hosts)

    def client_host_of(self, k: int) -> Host:
        """The host client worker k runs on."""
        return self.client_hosts[k % len(self.client_hosts)]

    def client_placement_of(self, k: int) -> Placement:
        return self.client_placements[k % len(self.client_placements)]

    def _host(self, role: str, k: int = 0) -> Host:
        return self.server_host if role == "server" else self.client_host_of(k)

    def _tag(self, target: Target, role: str, k: int = 0) -> str:
        # Client k > 0 has a pid file of its own: several clients of a point may share a host.
        name = f"{role}{k}" if role == "client" and k else role
        return re.sub(r"[^A-Za-z0-9_.-]", "_", f"{self.pair.label}-{self.placement.name}-{target.name}-{name}")

    def _command(self, target: Target, role: str, argv: tuple[str, ...], k: int = 0, **values: str) -> list[str]:
        on = self._host(role, k)
        prefix = (self.placement if role == "server" else self.client_placement_of(k)).prefix(role)
        if on.spec.is_local:
            # A [hosts] entry's java wins; else the campaign's `jdk` (target.java), else the default JVM.
            java = on.spec.java or target.java or java_executable()
            return prefix + target.expand(argv, share=True, java=java, **values)
        directory = self.hosts.dirs[on.name]
        if values.get("gc_log", os.devnull) != os.devnull:
            # A remote JVM writes its GC log on its own host, beside its pid file; collect_gc_logs copies it back.
            values["gc_log"] = f"{directory}/run/{os.path.basename(values['gc_log'])}"
        worker = prefix + target.expand(argv, root=directory, java=self.hosts.java_on(on.spec), **values)
        pid_file = f"{directory}/run/{self._tag(target, role, k)}.pid"
        # The counter before the host's own preloads, if it has any.
        library = self.hosts.syscount_library(on.spec)
        preload = (f"export LD_PRELOAD={shlex.quote(library)}\"${{LD_PRELOAD:+:$LD_PRELOAD}}\" && "
                   if library is not None and preload_value(library) is not None else "")
        # $$ is this shell's pid, which exec hands to the worker: the pid file names the worker itself.
        script = (f"echo $$ > {shlex.quote(pid_file)} && cd {shlex.quote(directory)} && {preload}"
                  f"exec {shlex.join(worker)}")
        return on.wrap(["sh", "-c", script])

    def worker_env(self, role: str, k: int = 0) -> dict[str, str] | None:
        """The environment of a local worker: the harness's, with the send/recv counter preloaded when it is
        built (None: the harness's own, unchanged). A remote worker's command line sets it there."""
        host = self._host(role, k)
        if not host.spec.is_local:
            return None
        return preloaded_env(self.hosts.syscount_library(host.spec), os.environ)

    def server_command(self, target: Target, gc_log: str = os.devnull) -> list[str]:
        return self._command(target, "server", target.server_argv, host=self.pair.bind_address, port="0",
                             gc_log=gc_log)

    def client_command(self, target: Target, gc_log: str = os.devnull, k: int = 0) -> list[str]:
        """Client worker k's command line, on its host (client_host_of)."""
        return self._command(target, "client", target.client_argv, k, gc_log=gc_log)

    def via(self, role: str, k: int = 0) -> str | None:
        host = self._host(role, k)
        return None if host.spec.is_local else str(host)

    def reaper(self, target: Target, role: str, k: int = 0) -> Callable[[], None] | None:
        """Called after the local ssh process of a remote worker has ended: make sure the worker has too."""
        host = self._host(role, k)
        if host.spec.is_local:
            return None
        directory, tag = self.hosts.dirs[host.name], self._tag(target, role, k)

        def reap() -> None:
            try:
                sweep(host, directory, only=tag)
            except (HostUnreachable, RuntimeError):
                pass  # the end-of-campaign sweep reports hosts it cannot reach

        return reap

    def scratch_dir(self, role: str, k: int = 0) -> str:
        """A directory on the worker's host for short-lived files (the anatomy mode's strace summaries)."""
        host = self._host(role, k)
        return tempfile.gettempdir() if host.spec.is_local else f"{self.hosts.dirs[host.name]}/run"

    def client_samples_path(self, local_path: Path, store_root: Path, k: int = 0) -> str:
        """Where client worker k writes its samples: the store itself when local, else its host's samples/."""
        host = self.client_host_of(k)
        if host.spec.is_local:
            return str(local_path)
        flat = str(local_path.relative_to(store_root)).replace("/", "__")
        return f"{self.hosts.dirs[host.name]}/samples/{flat}"

    def collect_samples(self, local_path: Path, store_root: Path, k: int = 0) -> None:
        """Bring client k's samples file from its host into the local results store (no-op for a local one)."""
        host = self.client_host_of(k)
        if host.spec.is_local:
            return
        host.fetch(self.client_samples_path(local_path, store_root, k), local_path)

    def usage_hosts(self, clients: int = 1) -> dict[str, tuple[Host, set[int]]]:
        """The hosts of the server and of the first `clients` client workers, by name, each with the CPUs its
        workers are pinned to there (both workers' CPUs when one host runs both), for the trial's load figures."""
        out: dict[str, tuple[Host, set[int]]] = {}
        workers = [(self.server_host, self.placement.cpus("server"))]
        workers += [(self.client_host_of(k), self.client_placement_of(k).cpus("client"))
                    for k in range(min(clients, len(self.client_hosts)))]
        for host, cpus in workers:
            _, pinned = out.get(host.name, (host, set()))
            out[host.name] = (host, pinned | cpus)
        return out

    def check_reachable(self) -> None:
        """Raises HostUnreachable for the first host of the pair that does not answer."""
        for host in (self.server_host, *self.client_hosts):
            if not host.spec.is_local:
                try:
                    host.run_shell("true", timeout=host.ssh.connect_timeout_s + 10)
                except HostUnreachable as exc:
                    host.down = str(exc)
                    raise
