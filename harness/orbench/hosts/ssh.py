"""Hosts a campaign runs workers on: `local`, or a machine reached with the OpenSSH client.

SSH is used the way a careful admin would use it by hand: key authentication only (BatchMode=yes, so ssh
never prompts for a password and fails instead), strict host-key checking against a known_hosts file the
campaign or the user names, a connect timeout, and keepalives so a dead link ends the ssh process within
seconds instead of hanging. Nothing here stores or asks for a secret.

Short commands (environment, deployment checks, fetching a samples file, killing a worker) go through one
multiplexed master connection per host, so they cost a channel, not a key exchange. Workers get their own
connection each: the death of one ssh process is then the death of exactly one worker.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

LOCAL = "local"
# How long ssh may take to reach a host. Short: an unreachable host must fail the campaign in seconds.
DEFAULT_CONNECT_TIMEOUT_S = 10
# ssh's keepalive: a silent peer ends the connection after INTERVAL x COUNT seconds. 2 x 3 = 6 s keeps the
# "a dead link is noticed within seconds" promise without tripping on a busy machine's pauses.
DEFAULT_ALIVE_INTERVAL_S = 2
DEFAULT_ALIVE_COUNT = 3
# Short commands (env, checks, kill) answer in well under this on any reachable host.
SHORT_COMMAND_TIMEOUT_S = 60.0
SSH_EXIT_CONNECTION = 255  # ssh's own failure (cannot connect, lost connection), as opposed to the command's


class HostUnreachable(Exception):
    """ssh could not reach the host (or lost it); the message says what ssh said."""


@dataclass(frozen=True)
class SshSettings:
    """The campaign's [ssh] table, paths already resolved against the campaign file's directory."""

    known_hosts: str | None = None      # None: ssh's default (~/.ssh/known_hosts)
    identity_file: str | None = None    # None: ssh's default keys and agent
    config_file: str | None = None      # None: ~/.ssh/config; "/dev/null" ignores it
    connect_timeout_s: int = DEFAULT_CONNECT_TIMEOUT_S
    alive_interval_s: int = DEFAULT_ALIVE_INTERVAL_S
    alive_count: int = DEFAULT_ALIVE_COUNT

    def options(self) -> list[str]:
        opts = []
        if self.config_file:
            opts += ["-F", self.config_file]
        opts += ["-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
                 "-o", "PasswordAuthentication=no", "-o", "KbdInteractiveAuthentication=no",
                 "-o", f"ConnectTimeout={self.connect_timeout_s}",
                 "-o", f"ServerAliveInterval={self.alive_interval_s}",
                 "-o", f"ServerAliveCountMax={self.alive_count}",
                 "-o", "LogLevel=ERROR"]
        if self.known_hosts:
            opts += ["-o", f"UserKnownHostsFile={self.known_hosts}", "-o", "GlobalKnownHostsFile=/dev/null"]
        if self.identity_file:
            opts += ["-i", self.identity_file, "-o", "IdentitiesOnly=yes"]
        return opts

    def as_dict(self) -> dict:
        return {"known_hosts": self.known_hosts, "identity_file": self.identity_file,
                "config_file": self.config_file, "connect_timeout_s": self.connect_timeout_s,
                "alive_interval_s": self.alive_interval_s, "alive_count": self.alive_count}


@dataclass(frozen=True)
class HostSpec:
    """A host as the campaign names it."""

    name: str                   # label in results: a [hosts] key, or "local"
    url: str                    # "local" or ssh://user@host:port
    address: str                # what servers on this host bind and advertise
    java: str | None = None     # the JVM on this host; None: "java" on its PATH (local: the harness's JVM)
    workdir: str = "/tmp/orbench"  # per-campaign directories are made under it (remote hosts)
    identity_file: str | None = None   # this host's key (a path), over the campaign's [ssh] identity_file
    ssh_args: tuple[str, ...] = ()     # more ssh options for this host, after orbench's own (which so win)
    # Where the host came from when an Ansible inventory named it: the source and the variables orbench used
    # (key paths, never keys), recorded in the manifest.
    inventory: dict | None = field(default=None, compare=False, hash=False)

    @property
    def is_local(self) -> bool:
        return self.url == LOCAL

    @property
    def user(self) -> str | None:
        return urlsplit(self.url).username

    @property
    def hostname(self) -> str:
        return urlsplit(self.url).hostname or ""

    @property
    def port(self) -> int:
        return urlsplit(self.url).port or 22

    @property
    def destination(self) -> str:
        return f"{self.user}@{self.hostname}" if self.user else self.hostname

    def as_dict(self) -> dict:
        out = {"name": self.name, "url": self.url, "address": self.address, "java": self.java,
               "workdir": None if self.is_local else self.workdir}
        if self.identity_file or self.ssh_args:
            out.update(identity_file=self.identity_file, ssh_args=list(self.ssh_args))
        if self.inventory is not None:
            out["inventory"] = self.inventory
        return out


_URL = re.compile(r"^ssh://(?:(?P<user>[A-Za-z0-9._-]+)@)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)"
                  r"(?::(?P<port>[0-9]{1,5}))?/?$")


def check_url(url: str) -> str | None:
    """None when url is `local` or a well-formed ssh://[user@]host[:port]; else what is wrong with it."""
    if url == LOCAL:
        return None
    if "://" not in url:
        return "not a host URL: use 'local' or ssh://user@host:port"
    if not url.startswith("ssh://"):
        return f"unsupported scheme {url.split('://')[0]!r}: only ssh:// (or 'local')"
    if "@" in url.split("://", 1)[1] and ":" in url.split("://", 1)[1].split("@")[0]:
        return "a password in the URL is refused: orbench uses key authentication only"
    m = _URL.match(url)
    if not m:
        return "not of the form ssh://user@host:port"
    if m.group("port") and not 1 <= int(m.group("port")) <= 65535:
        return f"port {m.group('port')} out of range"
    return None


class Host:
    """A live host: runs commands there, copies files there and back. `local` runs them here."""

    def __init__(self, spec: HostSpec, ssh: SshSettings, control_dir: Path | None = None):
        self.spec = spec
        self.ssh = ssh
        self._control_dir = control_dir
        self._master: subprocess.Popen | None = None
        self._master_log: Path | None = None
        # Why this host was given up during a run: later short commands fail at once instead of each waiting
        # for ssh's ConnectTimeout again. A new Host (e.g. `orbench cleanup`) tries afresh.
        self.down: str | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    def __repr__(self) -> str:
        return f"host {self.spec.name} ({self.spec.url})"

    # -- ssh command lines -------------------------------------------------------------------------------------
    def ssh_options(self) -> list[str]:
        """The campaign's ssh options with this host's key, then this host's own ssh arguments."""
        ssh = self.ssh if not self.spec.identity_file else replace(self.ssh, identity_file=self.spec.identity_file)
        return [*ssh.options(), *self.spec.ssh_args]

    def _base(self, multiplexed: bool) -> list[str]:
        argv = ["ssh", *self.ssh_options(), "-p", str(self.spec.port), "-T"]
        if multiplexed and self._master is not None and self._master.poll() is None:
            argv += ["-o", f"ControlPath={self._control_path()}", "-o", "ControlMaster=no"]
        return argv

    def wrap(self, remote_argv: list[str], multiplexed: bool = False) -> list[str]:
        """argv that runs remote_argv on this host, its stdin/stdout being the local process's."""
        if self.spec.is_local:
            return list(remote_argv)
        return [*self._base(multiplexed), self.spec.destination, "--", shlex.join(remote_argv)]

    def wrap_shell(self, script: str, multiplexed: bool = True) -> list[str]:
        """argv that runs a POSIX shell script on this host."""
        return self.wrap(["sh", "-c", script], multiplexed)

    def _control_path(self) -> str:
        assert self._control_dir is not None
        return str(self._control_dir / f"{self.spec.name}.ctl")

    # -- connection ------------------------------------------------------------------------------------------
    def connect(self) -> None:
        """Open the multiplexed master connection; raises HostUnreachable with ssh's reason."""
        if self.spec.is_local or (self._master is not None and self._master.poll() is None):
            return
        if self._control_dir is None:
            self._control_dir = Path(tempfile.mkdtemp(prefix="orbench-ssh-"))
        self._master_log = self._control_dir / f"{self.spec.name}.master.log"
        # The master's own session reads its stdin until EOF: if the harness dies (even by SIGKILL), the pipe
        # closes, the session ends and the master with it (ControlPersist=no), so no ssh outlives the run.
        argv = [*self._base(False), "-M", "-o", f"ControlPath={self._control_path()}",
                "-o", "ControlPersist=no", self.spec.destination, "--", "cat >/dev/null"]
        log = open(self._master_log, "wb")
        self._master = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=log, stderr=log,
                                        start_new_session=True)
        log.close()
        # The master is usable once its control socket answers `-O check`.
        deadline = self.ssh.connect_timeout_s + 10
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            if self._master.poll() is not None:
                why = self._master_log.read_text(errors="replace").strip() or f"ssh exited {self._master.returncode}"
                self._master = None
                raise HostUnreachable(f"{self}: cannot connect: {why}")
            check = subprocess.run(["ssh", "-o", f"ControlPath={self._control_path()}", "-O", "check",
                                    self.spec.destination], capture_output=True, timeout=10)
            if check.returncode == 0:
                return
            time.sleep(0.1)
        self.disconnect()
        raise HostUnreachable(f"{self}: no SSH connection within {deadline} s")

    def disconnect(self) -> None:
        if self._master is None:
            return
        if self._master.poll() is None:
            if self._master.stdin is not None:
                self._master.stdin.close()
            try:
                self._master.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        if self._master.poll() is None:
            self._master.terminate()
            try:
                self._master.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._master.kill()
                self._master.wait()
        self._master = None

    # -- short commands --------------------------------------------------------------------------------------
    def run_shell(self, script: str, timeout: float = SHORT_COMMAND_TIMEOUT_S, stdin: bytes | None = None,
                  check: bool = True) -> subprocess.CompletedProcess:
        """Run a short shell script there. Raises HostUnreachable when ssh itself fails (exit 255)."""
        if self.down:
            raise HostUnreachable(self.down)
        argv = ["sh", "-c", script] if self.spec.is_local else self.wrap_shell(script)
        try:
            out = subprocess.run(argv, input=stdin, capture_output=True, timeout=timeout,
                                 stdin=None if stdin is not None else subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise HostUnreachable(f"{self}: command did not finish within {timeout:.0f} s") from None
        if not self.spec.is_local and out.returncode == SSH_EXIT_CONNECTION:
            why = out.stderr.decode(errors="replace").strip()
            raise HostUnreachable(f"{self}: ssh failed: {why or 'exit status 255'}")
        if check and out.returncode != 0:
            raise RuntimeError(f"{self}: `{script[:120]}` exited {out.returncode}: "
                               f"{out.stderr.decode(errors='replace').strip()[:500]}")
        return out

    def fetch(self, remote_path: str, local_path: Path, remove: bool = True) -> None:
        """Copy one file back from this host (cat over the same SSH options), optionally removing it there."""
        script = f"cat {shlex.quote(remote_path)}" + (f" && rm -f {shlex.quote(remote_path)}" if remove else "")
        out = self.run_shell(script, check=False)
        if out.returncode != 0:
            raise RuntimeError(f"{self}: cannot read {remote_path}: {out.stderr.decode(errors='replace').strip()}")
        local_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = local_path.with_suffix(local_path.suffix + ".part")
        tmp.write_bytes(out.stdout)
        os.replace(tmp, local_path)


@dataclass
class HostPair:
    """Where one point's workers run: the server on `server`, the client on `client`. A spread (campaign key
    spread_clients) has several client hosts, `clients`: client worker k of a point runs on clients[k mod H],
    and `client` is clients[0], where a point's one client (or its clients as threads) runs."""

    server: HostSpec
    client: HostSpec
    label: str = field(default="")
    clients: tuple[HostSpec, ...] = ()

    def __post_init__(self) -> None:
        if not self.clients:
            self.clients = (self.client,)
        if self.clients[0] != self.client:
            raise ValueError(f"host pair {self.server.name}: its first client host must be {self.client.name}")
        if not self.label:
            # A spread keeps its hosts' names even on this machine alone: its clients' hosts tell them apart.
            self.label = LOCAL if all(s.is_local for s in self.hosts) and not self.spread \
                else f"{self.server.name}--{'+'.join(c.name for c in self.clients)}"

    @property
    def spread(self) -> bool:
        """Whether the pair's client workers are spread over several hosts."""
        return len(self.clients) > 1

    @property
    def hosts(self) -> tuple[HostSpec, ...]:
        """The server host, then every client host."""
        return (self.server, *self.clients)

    def client_of(self, k: int) -> HostSpec:
        """The host client worker k of a point runs on."""
        return self.clients[k % len(self.clients)]

    @property
    def bind_address(self) -> str:
        return self.server.address

    def as_dict(self) -> dict:
        out = {"label": self.label, "server": self.server.name, "client": self.client.name,
               "bind_address": self.bind_address}
        if self.spread:
            out["clients"] = [c.name for c in self.clients]
            out["client_rule"] = "client worker k runs on clients[k mod len(clients)]; clients as threads on clients[0]"
        return out
