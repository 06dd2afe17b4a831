"""Can a target run on this machine? What its descriptor requires (commands, a JDK version, pkg-config
packages, built files), checked here; a remote host is checked by deploy.check_target."""

from __future__ import annotations

import os
import shutil
import socket
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
    if target.requires_hostname and (why := hostname_unresolved()):
        return f"{why}, and {target.name}'s middleware looks it up when it starts: {HOSTNAME_FIX}"
    for rel in target.required_files:
        if not (root / rel).exists():
            return f"not built: {rel} is missing ({target.requires_hint or f'run: make {target.build}'})"
    return None


# How to make a host's own name resolve, for the middleware that needs it ([requires] hostname_resolves).
HOSTNAME_FIX = "add it to /etc/hosts (a line '127.0.1.1 NAME', or the host's address)"


def hostname_unresolved() -> str | None:
    """None when this host's own name resolves (as the system resolver, which Java's also asks, sees it); else
    which name does not."""
    name = socket.gethostname()
    try:
        socket.getaddrinfo(name, None)
    except OSError:
        return f"this host's name {name!r} does not resolve"
    return None
