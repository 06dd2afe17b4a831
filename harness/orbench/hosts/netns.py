"""Hosts made of network namespaces, to run campaigns across "machines" on one machine (the tests of remote
host pairs, and the WAN measurement, measure_wan.py): each host is a namespace with its own address and a real OpenSSH
sshd (generated host and user keys), all on one bridge (a "switch" namespace) that this process reaches through
a veth of its own. Traffic stays on these veths: nothing leaves the machine.

    this process (root namespace) 10.200.K.254 ── veth ──┐
    host 1 (netns) 10.200.K.1, sshd ──────────── veth ──┤ br0 in the switch namespace
    host 2 (netns) 10.200.K.2, sshd ──────────── veth ──┘

K is picked free on this machine, so parallel test runs do not collide. The namespaces share the machine's
filesystem and pid space (only the network is separate); `ip netns pids` tells which processes are whose.
`Lab.close()` removes everything, whatever state the test left.

With `wan={"delay_ms": 1, "loss": 0.005, "rate_mbit": 100}` the hosts are joined instead by TUN devices and a
userspace link (wanlink.py) that delays, drops and rate-limits packets: the WAN emulation for kernels
without `tc netem`. Each host's device is still called eth0.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SSHD = "/usr/sbin/sshd"


def sh(*argv: str, check: bool = True) -> subprocess.CompletedProcess:
    out = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if check and out.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {out.stderr.strip() or out.stdout.strip()}")
    return out


def why_no_lab() -> str | None:
    """None when this machine can make namespace hosts; else why not (the tests skip with it)."""
    if os.geteuid() != 0:
        return "needs root (ip netns, veth, sshd)"
    for tool in ("ip", "ssh", "ssh-keygen", "tc"):
        if shutil.which(tool) is None:
            return f"{tool} not found (run: make deps)"
    if not os.access(SSHD, os.X_OK):
        return f"{SSHD} not found (openssh-server; run: make deps)"
    probe = f"obprobe{os.getpid()}"
    out = sh("ip", "netns", "add", probe, check=False)
    if out.returncode != 0:
        return f"network namespaces not allowed here: {out.stderr.strip()}"
    sh("ip", "netns", "del", probe, check=False)
    return None


def netem_missing() -> str | None:
    """None when tc netem works here; else why not."""
    probe = f"obnetem{os.getpid()}"
    sh("ip", "netns", "add", probe)
    try:
        out = sh("ip", "netns", "exec", probe, "tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms",
                 check=False)
        return None if out.returncode == 0 else f"tc netem not available in this kernel: {out.stderr.strip()}"
    finally:
        sh("ip", "netns", "del", probe, check=False)


def _free_subnet() -> int:
    used = sh("ip", "-4", "-o", "addr").stdout + sh("ip", "-4", "route").stdout
    start = os.getpid() % 200 + 20
    for k in list(range(start, 250)) + list(range(20, start)):
        if f"10.200.{k}." not in used:
            return k
    raise RuntimeError("no free 10.200.K.0/24 subnet")


@dataclass
class NsHost:
    name: str        # label in campaigns
    netns: str
    address: str
    switch_port: str  # its veth end on the bridge: set it down to cut the host off
    sshd: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"ssh://root@{self.address}:22"

    def pids(self) -> list[int]:
        out = sh("ip", "netns", "pids", self.netns, check=False)
        return [int(p) for p in out.stdout.split()]

    def worker_pids(self) -> list[int]:
        """orbench workers running in this host's namespace (sshd and its sessions are not workers)."""
        found = []
        for pid in self.pids():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if "orbench-" in cmd or "org.orbench" in cmd:
                found.append(pid)
        return found

    def listening_ports(self) -> list[str]:
        """Listening TCP sockets other than sshd's port 22, as 'addr:port'."""
        out = sh("ip", "netns", "exec", self.netns, "ss", "-Hltn", check=False).stdout
        socks = [line.split()[3] for line in out.splitlines() if len(line.split()) > 3]
        return [s for s in socks if not s.endswith(":22")]

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        return sh("ip", "netns", "exec", self.netns, *argv, check=check)


@dataclass
class Lab:
    tmp: Path
    k: int = 0
    switch: str = ""
    root_veth: str = ""
    hosts: list[NsHost] = field(default_factory=list)
    namespaces: list[str] = field(default_factory=list)
    wan: dict[str, Any] | None = None
    tunlink: subprocess.Popen | None = None

    # -- setup ----------------------------------------------------------------------------------------------
    @classmethod
    def create(cls, tmp: Path, names: tuple[str, ...] = ("alpha", "beta"), wan: dict[str, Any] | None = None) -> Lab:
        lab = cls(tmp, wan=wan)
        try:
            lab._build_tun(names) if wan is not None else lab._build(names)
        except BaseException:
            lab.close()
            raise
        return lab

    def _build(self, names: tuple[str, ...]) -> None:
        self.k = k = _free_subnet()
        tag = f"ob{k}x{os.getpid() % 1000}"
        self.switch = f"{tag}sw"
        sh("ip", "netns", "add", self.switch)
        self.namespaces.append(self.switch)
        sh("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", self.switch, "link", "set", "br0", "up")
        # This process's own port on the switch.
        self.root_veth = f"ob{k}r"
        sh("ip", "link", "add", self.root_veth, "type", "veth", "peer", "name", f"ob{k}rs")
        sh("ip", "link", "set", f"ob{k}rs", "netns", self.switch)
        sh("ip", "-n", self.switch, "link", "set", f"ob{k}rs", "master", "br0", "up")
        sh("ip", "addr", "add", f"10.200.{k}.254/24", "dev", self.root_veth)
        sh("ip", "link", "set", self.root_veth, "up")
        self._keys()
        for i, name in enumerate(names, start=1):
            netns = f"{tag}h{i}"
            sh("ip", "netns", "add", netns)
            self.namespaces.append(netns)
            port = f"ob{k}s{i}"
            sh("ip", "link", "add", f"ob{k}h{i}", "type", "veth", "peer", "name", port)
            sh("ip", "link", "set", port, "netns", self.switch)
            sh("ip", "-n", self.switch, "link", "set", port, "master", "br0", "up")
            sh("ip", "link", "set", f"ob{k}h{i}", "netns", netns)
            sh("ip", "-n", netns, "link", "set", f"ob{k}h{i}", "name", "eth0")
            sh("ip", "-n", netns, "addr", "add", f"10.200.{k}.{i}/24", "dev", "eth0")
            sh("ip", "-n", netns, "link", "set", "eth0", "up")
            sh("ip", "-n", netns, "link", "set", "lo", "up")
            host = NsHost(name, netns, f"10.200.{k}.{i}", port)
            self.hosts.append(host)
            self._start_sshd(host)
        for host in self.hosts:
            self._wait_for_sshd(host)

    def _build_tun(self, names: tuple[str, ...]) -> None:
        assert self.wan is not None
        self.k = k = _free_subnet()
        tag = f"ob{k}x{os.getpid() % 1000}"
        self.root_veth = ""
        links = [{"netns": "", "ifname": f"ob{k}t", "address": f"10.200.{k}.254"}]
        for i, name in enumerate(names, start=1):
            netns = f"{tag}h{i}"
            sh("ip", "netns", "add", netns)
            self.namespaces.append(netns)
            links.append({"netns": netns, "ifname": "eth0", "address": f"10.200.{k}.{i}"})
            self.hosts.append(NsHost(name, netns, f"10.200.{k}.{i}", ""))
        self.tmp.mkdir(parents=True, exist_ok=True)
        config = self.tmp / "tunlink.json"
        config.write_text(json.dumps({**self.wan, "links": links}))
        self.tunlink = subprocess.Popen([sys.executable, "-m", "orbench.hosts.wanlink", str(config)],
                                        stdout=subprocess.PIPE,
                                        stderr=open(self.tmp / "tunlink.log", "wb"), start_new_session=True)
        assert self.tunlink.stdout is not None
        if self.tunlink.stdout.readline().strip() != b"ready":
            raise RuntimeError(f"tunlink did not start: {(self.tmp / 'tunlink.log').read_text()}")
        for entry in links:
            ns = ["-n", entry["netns"]] if entry["netns"] else []
            sh("ip", *ns, "addr", "add", f"{entry['address']}/24", "dev", entry["ifname"])
            sh("ip", *ns, "link", "set", entry["ifname"], "up")
            if entry["netns"]:
                sh("ip", *ns, "link", "set", "lo", "up")
        self._keys()
        for host in self.hosts:
            self._start_sshd(host)
        for host in self.hosts:
            self._wait_for_sshd(host)

    def _keys(self) -> None:
        self.tmp.mkdir(parents=True, exist_ok=True)
        self.identity = self.tmp / "id_ed25519"
        sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "orbench-test", "-f", str(self.identity))
        (self.tmp / "authorized_keys").write_text(Path(f"{self.identity}.pub").read_text())
        self.known_hosts = self.tmp / "known_hosts"
        self.known_hosts.write_text("")
        self.home = self.tmp / "home"  # the hosts' sessions' HOME (sshd_config's SetEnv, below)
        self.home.mkdir()

    def _start_sshd(self, host: NsHost) -> None:
        d = self.tmp / host.name
        d.mkdir()
        key = d / "ssh_host_ed25519_key"
        sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key))
        with open(self.known_hosts, "a") as f:
            f.write(f"{host.address} {Path(f'{key}.pub').read_text().split(' ', 2)[0]} "
                    f"{Path(f'{key}.pub').read_text().split(' ', 2)[1]}\n")
        config = d / "sshd_config"
        config.write_text(f"""ListenAddress {host.address}:22
HostKey {key}
PidFile {d}/sshd.pid
AuthorizedKeysFile {self.tmp}/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
UsePAM no
StrictModes no
# As recommended for benchmark hosts (harness/campaigns/README.md): a dead client is noticed within seconds.
ClientAliveInterval 2
ClientAliveCountMax 3
MaxSessions 30
Subsystem sftp internal-sftp
# Sessions start in a home of the lab's own: bash, the login shell, runs ~/.bashrc before every command sent over
# SSH, and the test machine's own (pyenv's set-up on a developer's machine: 0.12 s) is no part of a host's work.
SetEnv HOME={self.home}
""")
        Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege-separation directory
        log = open(d / "sshd.log", "wb")
        host.sshd = subprocess.Popen(["ip", "netns", "exec", host.netns, SSHD, "-D", "-e", "-f", str(config)],
                                     stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        log.close()

    def _wait_for_sshd(self, host: NsHost) -> None:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            assert host.sshd is not None
            if host.sshd.poll() is not None:
                raise RuntimeError(f"sshd on {host.name} exited: {(self.tmp / host.name / 'sshd.log').read_text()}")
            try:
                socket.create_connection((host.address, 22), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"sshd on {host.name} ({host.address}) does not answer")

    # -- faults ---------------------------------------------------------------------------------------------
    def cut(self, host: NsHost) -> None:
        if self.wan is not None:
            sh("ip", "-n", host.netns, "link", "set", "eth0", "down")
        else:
            sh("ip", "-n", self.switch, "link", "set", host.switch_port, "down")

    def mend(self, host: NsHost) -> None:
        if self.wan is not None:
            sh("ip", "-n", host.netns, "link", "set", "eth0", "up")
        else:
            sh("ip", "-n", self.switch, "link", "set", host.switch_port, "up")

    def netem(self, spec: str) -> None:
        """Emulate a WAN: netem on every host's egress, so host to host is one netem each way."""
        for host in self.hosts:
            host.run("tc", "qdisc", "replace", "dev", "eth0", "root", "netem", *spec.split())

    def campaign_ssh(self) -> str:
        """The [ssh] table of a campaign for these hosts."""
        return (f'[ssh]\nknown_hosts = "{self.known_hosts}"\nidentity_file = "{self.identity}"\n'
                'config_file = "/dev/null"\nconnect_timeout_s = 3\nalive_interval_s = 1\nalive_count = 3\n')

    def campaign_hosts(self, workdir: Path, **extra: dict[str, str]) -> str:
        text = ""
        for h in self.hosts:
            text += f'[hosts.{h.name}]\nurl = "{h.url}"\naddress = "{h.address}"\nworkdir = "{workdir}"\n'
            for key, value in extra.get(h.name, {}).items():
                text += f'{key} = "{value}"\n'
        return text

    # -- teardown -------------------------------------------------------------------------------------------
    def close(self) -> None:
        for host in self.hosts:
            for pid in host.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if host.sshd is not None:
                if host.sshd.poll() is None:
                    host.sshd.kill()
                host.sshd.wait(timeout=10)
        if self.tunlink is not None:
            self.tunlink.kill()
            self.tunlink.wait(timeout=10)
        for netns in reversed(self.namespaces):
            sh("ip", "netns", "del", netns, check=False)
        if self.root_veth:
            sh("ip", "link", "del", self.root_veth, check=False)
