"""The environment of a run, as a list of tiny collectors (one fact each), in the style of pyperf.

"Kernel versions matter more than the middleware" (seed 002): a number without its machine is not a result.
A collector that fails records why instead of the fact; it never stops a run.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from orbench.paths import repo_root
from orbench.targets import java_executable


def _run(argv: list[str], timeout: float = 20) -> str:
    out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    return (out.stdout + out.stderr).strip()


def collect_host() -> dict:
    return {"hostname": socket.gethostname(), "fqdn": socket.getfqdn()}


def collect_kernel() -> dict:
    u = platform.uname()
    return {"system": u.system, "release": u.release, "version": u.version, "machine": u.machine}


def collect_os() -> dict:
    path = Path("/etc/os-release")
    if not path.exists():
        return {}
    fields = dict(re.findall(r'^(\w+)="?([^"\n]*)"?$', path.read_text(), re.MULTILINE))
    return {"pretty_name": fields.get("PRETTY_NAME", "")}


def collect_cpu() -> dict:
    info: dict = {"logical_cpus": os.cpu_count(), "usable_cpus": sorted(os.sched_getaffinity(0))}
    text = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE)
    info["model"] = model.group(1).strip() if model else platform.processor()
    mhz = re.findall(r"^cpu MHz\s*:\s*([\d.]+)$", text, re.MULTILINE)
    if mhz:
        info["mhz"] = [float(m) for m in mhz]
    flags = re.search(r"^flags\s*:\s*(.+)$", text, re.MULTILINE)
    info["hypervisor"] = bool(flags and "hypervisor" in flags.group(1).split())
    return info


def collect_governor() -> dict:
    govs = sorted({p.read_text().strip() for p in Path("/sys/devices/system/cpu").glob("cpu*/cpufreq/scaling_governor")})
    return {"scaling_governor": govs or None}


def collect_memory() -> dict:
    text = Path("/proc/meminfo").read_text()
    total = re.search(r"MemTotal:\s+(\d+) kB", text)
    return {"total_mib": int(total.group(1)) // 1024 if total else None}


def collect_load() -> dict:
    return {"loadavg": list(os.getloadavg())}


def collect_python() -> dict:
    return {"version": sys.version.split()[0], "executable": sys.executable}


def collect_java(java: str | None = None) -> dict:
    """The JVM the Java targets run on: the campaign's `jdk` when it set one, else the default."""
    java = java or java_executable()
    if shutil.which(java) is None and not os.access(java, os.X_OK):
        return {"executable": java, "missing": True}
    return {"executable": java, "version": _run([java, "-version"]).splitlines()}


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


COLLECTORS: list[tuple[str, Callable[[], dict]]] = [
    ("host", collect_host),
    ("kernel", collect_kernel),
    ("os", collect_os),
    ("cpu", collect_cpu),
    ("governor", collect_governor),
    ("memory", collect_memory),
    ("load", collect_load),
    ("python", collect_python),
    ("java", collect_java),
    ("compiler", collect_compiler),
    ("cmake", collect_cmake),
    ("orb_packages", collect_orb_packages),
    ("git", collect_git),
    ("isolation", collect_isolation),
]


def collect_environment(java: str | None = None) -> dict:
    env: dict = {}
    for name, collector in COLLECTORS:
        try:
            env[name] = collect_java(java) if collector is collect_java else collector()
        except Exception as exc:  # noqa: BLE001 - an unknown fact is recorded, never fatal
            env[name] = {"error": f"{type(exc).__name__}: {exc}"}
    return env
