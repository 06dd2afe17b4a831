"""The environment of a run, as a list of tiny collectors (one fact each), in the style of pyperf.

"Kernel versions matter more than the middleware" (Kevin Buesing, "High Performance Java Software", Objective
Interface Systems): a number without its machine is not a result.
A collector that fails records why instead of the fact; it never stops a run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from orbench.hosts.facts import collect_local_host
from orbench.paths import repo_root
from orbench.targets.descriptor import java_executable


def _run(argv: list[str], timeout: float = 20) -> str:
    out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    return (out.stdout + out.stderr).strip()
















def collect_python() -> dict:
    return {"version": sys.version.split()[0], "executable": sys.executable}




def collect_compiler() -> dict:
    cxx = os.environ.get("CXX", "c++")
    return {"cxx": cxx, "version": _run([cxx, "--version"]).splitlines()[0]} if shutil.which(cxx) else {}


def collect_cmake() -> dict:
    return {"version": _run(["cmake", "--version"]).splitlines()[0]} if shutil.which("cmake") else {}


def collect_orb_packages() -> dict:
    """ORB versions as installed; the workers also report the version they were built or run with."""
    found: dict = {}
    if shutil.which("pkg-config"):
        for pkg in ("omniORB4",):
            out = subprocess.run(["pkg-config", "--modversion", pkg], capture_output=True, text=True)
            found[pkg] = out.stdout.strip() if out.returncode == 0 else None
    return found


def collect_git() -> dict:
    root = repo_root()
    if not (root / ".git").exists() or shutil.which("git") is None:
        return {"commit": None}
    commit = _run(["git", "-C", str(root), "rev-parse", "HEAD"])
    dirty = bool(_run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"]))
    return {"commit": commit if re.fullmatch(r"[0-9a-f]{40}", commit) else None, "dirty": dirty}


def collect_isolation() -> dict:
    """What the run did not get: isolated CPUs, a quiet machine."""
    cmdline = Path("/proc/cmdline").read_text().strip() if Path("/proc/cmdline").exists() else ""
    iso = Path("/sys/devices/system/cpu/isolated")
    return {"isolated_cpus": iso.read_text().strip() if iso.exists() else None,
            "kernel_cmdline": cmdline, "taskset": shutil.which("taskset") is not None}


# Facts about the machine itself (kernel, CPU, load, memory, TCP settings, the JVM) come from the one shell
# script that describes every host, local or remote (facts.py), so two hosts compare field by field; the
# collectors here add what only the harness's own machine has: its toolchains and the project's commit.
COLLECTORS: list[tuple[str, Callable[[], dict]]] = [
    ("python", collect_python),
    ("compiler", collect_compiler),
    ("cmake", collect_cmake),
    ("orb_packages", collect_orb_packages),
    ("git", collect_git),
    ("isolation", collect_isolation),
]


def collect_environment(java: str | None = None) -> dict:
    """`host`: the machine's facts (hostenv's keys); then one entry per toolchain collector."""
    env: dict = {}
    try:
        env["host"] = collect_local_host(java or java_executable())
    except Exception as exc:  # noqa: BLE001 - an unknown fact is recorded, never fatal
        env["host"] = {"error": f"{type(exc).__name__}: {exc}"}
    for name, collector in COLLECTORS:
        try:
            env[name] = collector()
        except Exception as exc:  # noqa: BLE001 - an unknown fact is recorded, never fatal
            env[name] = {"error": f"{type(exc).__name__}: {exc}"}
    return env
