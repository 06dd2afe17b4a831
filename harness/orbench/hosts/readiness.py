"""Can a target run on this machine? What its descriptor requires (commands, a JDK version, pkg-config
packages, built files), checked here; a remote host is checked by deploy.check_target."""

from __future__ import annotations

import os
import shutil
import subprocess

from orbench.hosts.jdk import probe
from orbench.paths import repo_root
from orbench.targets.descriptor import Target


def unavailable_reason(target: Target) -> str | None:
    """None when the target can run here; else what is missing and how to get it."""
    root = repo_root()
    for cmd in target.required_commands:
        exe = target.expand((cmd,))[0]
        if not (shutil.which(exe) or (os.path.isabs(exe) and os.access(exe, os.X_OK))):
            return f"command {exe!r} not found"
    if target.required_java is not None:
        java = target.expand(("{java}",))[0]
        jdk = probe(java)
        if jdk is None or jdk.feature < target.required_java:
            have = f"JDK {jdk.feature}" if jdk else "no working JVM"
            return (f"needs JDK {target.required_java}+, {java} is {have}: "
                    f"run with jdk = \"25\" (campaign key) or --jdk 25, or any JDK {target.required_java}+")
    for pkg in target.required_pkg_config:
        if shutil.which("pkg-config") is None:
            return "pkg-config not found (apt-get install pkg-config)"
        if subprocess.run(["pkg-config", "--exists", pkg], capture_output=True).returncode != 0:
            return f"pkg-config package {pkg!r} not installed (run: make deps)"
    for rel in target.required_files:
        if not (root / rel).exists():
            return f"not built: {rel} is missing ({target.requires_hint or f'run: make {target.build}'})"
    return None
