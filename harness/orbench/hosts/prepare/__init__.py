"""`orbench prepare`: the hosts of an Ansible inventory made ready for orbench's targets by the playbook
beside this file, run by ansible-playbook (not by orbench's own ssh code): Debian packages, a JVM, and the
workers with their jars, unpacked per host under <workdir>/prepared/<host> in a checkout's layout.

What each host changed (or would change, under --check) comes back from the callback in callback_plugins/.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from orbench.errors import UserError
from orbench.hosts.deploy import files_to_copy
from orbench.hosts.inventory import MISSING
from orbench.hosts.ssh import HostSpec
from orbench.paths import repo_root
from orbench.targets.descriptor import Target

HERE = Path(__file__).parent
PLAYBOOK = HERE / "playbook.yml"


def prepared_dir(spec: HostSpec) -> str:
    """Where the playbook unpacks the workers on a host (the playbook says the same in Jinja)."""
    return f"{spec.workdir.rstrip('/')}/prepared/{spec.name}"


def ansible_playbook() -> str:
    """The ansible-playbook of orbench's own environment first (the version the fleet extra pins)."""
    beside = Path(sys.executable).parent / "ansible-playbook"
    found = str(beside) if beside.exists() else shutil.which("ansible-playbook")
    if not found:
        raise UserError(f"orbench prepare: {MISSING}")
    return found


def build_archive(targets: list[Target], dest: Path) -> str:
    """A tar of every file the targets' workers read (as deploy copies them), byte for byte the same while
    the files are: sorted names, no owners. Returns its SHA-1."""
    files, missing = files_to_copy(targets)
    root = repo_root()
    if missing:
        raise UserError(f"cannot prepare hosts: not built here: {', '.join(missing)} (run: make build)")
    if not files:
        raise UserError("cannot prepare hosts: the targets name no files to copy")
    out = subprocess.run(["tar", "--sort=name", "--owner=0", "--group=0", "--numeric-owner", "--format=gnu",
                          "-C", str(root), "-cf", str(dest), "--", *sorted(files)], capture_output=True, text=True)
    if out.returncode != 0:
        raise UserError(f"cannot prepare hosts: tar failed: {out.stderr.strip()}")
    return hashlib.sha1(dest.read_bytes()).hexdigest()


@dataclass
class HostOutcome:
    changed: list[str] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)
    unreachable: str | None = None


@dataclass
class Outcome:
    returncode: int
    hosts: dict[str, HostOutcome]

    def lines(self, check: bool) -> list[str]:
        """One line per host: what changed (or would), or nothing to change, or why it failed."""
        verb = "would change" if check else "changed"
        out = []
        for name, h in sorted(self.hosts.items()):
            if h.unreachable:
                out.append(f"{name}: UNREACHABLE: {h.unreachable}")
            elif h.failed:
                out.append(f"{name}: FAILED: " + "; ".join(f"{f['task']}: {f['why']}" for f in h.failed))
            elif h.changed:
                out.append(f"{name}: {verb} {len(h.changed)}: {', '.join(h.changed)}")
            else:
                out.append(f"{name}: nothing to change")
        return out


def run_playbook(inventory: Path, targets: list[Target], limit: str | None = None, check: bool = False,
                 output: int | None = None) -> Outcome:
    """Run the playbook on the inventory's hosts (or the --limit pattern's). `output`: where ansible's own
    lines go (a file descriptor; None: this process's stdout)."""
    if not inventory.exists():
        raise UserError(f"{inventory}: cannot read the inventory: no such file or directory")
    playbook = ansible_playbook()
    with tempfile.TemporaryDirectory(prefix="orbench-prepare-") as tmp:
        archive = Path(tmp) / "workers.tar"
        sha1 = build_archive(targets, archive)
        extra = Path(tmp) / "vars.json"
        extra.write_text(json.dumps({"orbench_archive": str(archive), "orbench_archive_sha1": sha1}))
        report = Path(tmp) / "report.json"
        env = {**os.environ, "ANSIBLE_CALLBACK_PLUGINS": str(HERE / "callback_plugins"),
               "ANSIBLE_CALLBACKS_ENABLED": "orbench_changes", "ORBENCH_PREPARE_REPORT": str(report),
               "ANSIBLE_RETRY_FILES_ENABLED": "false",
               # One ssh operation per task instead of several: about a third faster on three hosts here
               # (Ansible's own default is off for sudoers with requiretty; set ANSIBLE_PIPELINING=False then)
               "ANSIBLE_PIPELINING": os.environ.get("ANSIBLE_PIPELINING", "True")}
        argv = [playbook, "-i", str(inventory), str(PLAYBOOK), "-e", f"@{extra}"]
        if limit:
            argv += ["--limit", limit]
        if check:
            argv += ["--check"]
        proc = subprocess.run(argv, env=env, stdout=output, stderr=subprocess.STDOUT if output is not None else None)
        if not report.exists():
            raise UserError(f"orbench prepare: ansible-playbook exited {proc.returncode} before any host ran "
                            "(its output above says why)")
        data = json.loads(report.read_text())
    hosts = {name: HostOutcome(h["changed"], h["failed"], h["unreachable"]) for name, h in data.items()}
    return Outcome(proc.returncode, hosts)


def host_problems(spec: HostSpec, targets: list[Target]) -> dict[str, list[str]]:
    """What the prepared host lacks for each target (empty list: it can run it), checked over ssh with the
    host's inventory settings, as a run's deployment checks are. Raises HostUnreachable."""
    from orbench.hosts.deploy import check_target
    from orbench.hosts.ssh import Host, SshSettings

    host = Host(spec, SshSettings())
    try:
        host.connect()
        directory = prepared_dir(spec)
        if host.run_shell(f"test -d {shlex.quote(directory)}", check=False).returncode != 0:
            why = f"not prepared: no {directory} (run: orbench prepare INVENTORY --limit {spec.name})"
            return {t.name: [why] for t in targets}
        return {t.name: check_target(host, t, directory, spec.java or "java", pinned=True) for t in targets}
    finally:
        host.disconnect()
