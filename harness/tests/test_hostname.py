"""Java ORBs on a host whose own name does not resolve (common in containers and minimal lab images): a real UTS
namespace whose host name is under .invalid (RFC 2606: it never resolves). Yoko's server starts there (its
acceptor binds --bind {host}); GlassFish and Yoko's client cannot, and orbench says so before anything runs,
locally (orbench targets) and on a remote host (the deployment check)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys

import pytest
from orbench.hosts import deploy
from orbench.hosts.readiness import HOSTNAME_FIX
from orbench.targets.descriptor import read_targets
from orbench.targets.workers import ServerWorker

from tests.conftest import require_targets

UNRESOLVED = "orbench-test.invalid"


def in_unresolved_host(argv: list[str]) -> list[str]:
    """argv run in a UTS namespace of its own, whose host name does not resolve."""
    return ["unshare", "--uts", "sh", "-c", f'hostname {UNRESOLVED} && exec "$0" "$@"', *argv]


@pytest.fixture(scope="module", autouse=True)
def uts_namespaces():
    if shutil.which("unshare") is None:
        pytest.skip("unshare not found (util-linux)")
    probe = subprocess.run(in_unresolved_host(["hostname"]), capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a UTS namespace here (needs root): {probe.stderr.strip()}")
    assert probe.stdout.strip() == UNRESOLVED


def test_orbench_targets_says_which_java_orbs_cannot_start_and_why():
    out = subprocess.run(in_unresolved_host([sys.executable, "-m", "orbench", "targets"]), capture_output=True,
                         text=True, timeout=120).stdout
    lines = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    for name in ("glassfish", "glassfish-bigfrag", "yoko"):
        assert f"this host's name '{UNRESOLVED}' does not resolve" in lines[name], lines[name]
        assert HOSTNAME_FIX in lines[name]
    for name in ("jacorb", "c-socket"):  # they need no name: not held back
        assert f"'{UNRESOLVED}'" not in lines[name], lines[name]


def test_a_remote_host_whose_name_does_not_resolve_is_told_before_the_campaign():
    """The deployment check's shell, as it runs on a remote host (here: in the namespace)."""
    script = f"TARGET=yoko; FIX={shlex.quote(HOSTNAME_FIX)}\n" + deploy._CHECK_HOSTNAME
    out = subprocess.run(in_unresolved_host(["sh", "-c", script]), capture_output=True, text=True).stdout
    assert f"this host's name '{UNRESOLVED}' does not resolve, and yoko's middleware" in out and HOSTNAME_FIX in out
    assert subprocess.run(["sh", "-c", script], capture_output=True, text=True).stdout == ""


def test_yoko_s_server_starts_where_the_host_name_does_not_resolve(tmp_path):
    """--bind {host} in its endpoint: its acceptor binds the given address and never asks for the host's name."""
    require_targets("yoko")
    target = read_targets()["yoko"]
    server = ServerWorker("yoko", in_unresolved_host(target.server_command("127.0.0.1")), tmp_path / "server.log")
    try:
        assert server.endpoint.startswith("IOR:") and server.ready["worker"]["orb"] == "Apache Yoko"
    finally:
        server.stop()
