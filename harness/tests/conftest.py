"""Shared test helpers: real targets only; a target that is not built or installed is skipped with the reason."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from orbench.campaign.spec import read_campaign
from orbench.errors import UserError
from orbench.hosts.netns import Lab
from orbench.hosts.readiness import unavailable_reason
from orbench.targets.descriptor import read_targets

FIXTURES = Path(__file__).parent / "fixtures"
# The JVM workers the tests start compile with the JIT's first tier only: a test checks what a worker does, not how
# fast, and the top tier compiling a short run's code was a third of a JVM check-target's CPU (jacorb: 27 s ->
# 19 s). Every JVM says so on its stderr ("Picked up JAVA_TOOL_OPTIONS"); a caller's own setting is kept.
os.environ.setdefault("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1")
# How the tests are shared among pytest-xdist's processes, longest first.
pytest_plugins = ["tests.scheduling"]


def on_fitting_jdk(target):
    """The target on the newest installed JDK it needs (java-ffm: 22+), when the default JVM is too old."""
    from orbench.hosts.jdk import newest_jdk

    if target.required_java is None:
        return target
    jdk = newest_jdk(target.required_java)
    return target.with_java(jdk.java) if jdk else target


def missing(why: str) -> None:
    """Something a test needs is not built: a failure in CI, whose set-up builds everything the project's own
    files install, and a skip on a machine that has not built it yet."""
    if "CI" in os.environ:
        pytest.fail(f"missing in CI: {why}")
    pytest.skip(f"missing: {why}")


def require_targets(*names: str) -> None:
    targets = read_targets()
    for name in names:
        why = unavailable_reason(on_fitting_jdk(targets[name]))
        if why:
            # TAO needs an ORB from outside the registries, which CI does not build.
            if name == "tao":
                pytest.skip(f"target {name} unavailable: {why}")
            missing(f"target {name} unavailable: {why}")


@pytest.fixture
def write_campaign(tmp_path):
    def write(text: str, name: str = "c.toml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write


def campaign_error(write_campaign, text: str) -> str:
    """The message of the UserError that loading this campaign text raises; it must name the file."""
    path = write_campaign(text)
    with pytest.raises(UserError) as exc:
        read_campaign(path)
    message = str(exc.value)
    assert str(path) in message, "the message must name the file"
    return message


@pytest.fixture
def results_root(tmp_path, monkeypatch):
    root = tmp_path / "results"
    monkeypatch.setenv("ORBENCH_RESULTS", str(root))
    return root


def run_cli(*args: str):
    """The real console entry point in a subprocess: exit status, stdout, stderr."""
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "orbench", *args], capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """Two network-namespace hosts with real sshd (hosts/netns.py), one lab per test module; a module that
    needs another shape (a fleet) defines its own `lab` or fixture."""
    lab = Lab.create(tmp_path_factory.mktemp("netns") / "lab")
    try:
        yield lab
    finally:
        lab.close()
