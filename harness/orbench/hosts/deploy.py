"""Deployment to remote hosts: copy what each target needs into a per-campaign directory there, and check
that the host has what the target needs to run (a JVM, the ORB's shared libraries, taskset).

What a target needs is read off its descriptor's argv: every `{root}/...` path (and every class-path entry of
one, `dir/*` meaning the directory) is copied, relative paths kept, nothing else. So a C++ target ships its two
binaries and a Java target its jar and the lib/ directories its class path names.
"""

from __future__ import annotations

import shlex
import subprocess

from orbench.anatomy.syscount import LIBRARY as SYSCOUNT_LIBRARY
from orbench.errors import UserError
from orbench.hosts.readiness import HOSTNAME_FIX
from orbench.hosts.ssh import Host
from orbench.paths import repo_root
from orbench.targets.descriptor import Target

ROOT_MARK = "{root}/"


def target_files(target: Target) -> list[str]:
    """Paths relative to the repo root that the target's workers read: binaries, jars, lib directories."""
    found: list[str] = []
    for arg in (*target.server_argv, *target.client_argv):
        for piece in arg.split(":"):
            if not piece.startswith(ROOT_MARK):
                continue
            rel = piece[len(ROOT_MARK):]
            if rel.endswith("/*"):
                rel = rel[:-2]
            if rel and rel not in found:
                found.append(rel)
    return found


def remote_dir(host: Host, campaign: str, run_id: str) -> str:
    """The per-campaign directory on a host. The host's name is part of it so that test hosts sharing one
    filesystem (network namespaces) still get a directory each, with their own pid files."""
    return f"{host.spec.workdir.rstrip('/')}/{campaign}/{run_id}/{host.spec.name}"


def files_to_copy(targets: list[Target]) -> tuple[list[str], list[str]]:
    """Every file the targets' workers read, each once, relative to the repository; and those not built here."""
    files: list[str] = []
    for t in targets:
        files += [f for f in target_files(t) if f not in files]
    root = repo_root()
    return files, [f for f in files if not (root / f).exists()]


def deploy(host: Host, targets: list[Target], directory: str) -> list[str]:
    """Copy the targets' files into `directory` on the host (tar over the host's SSH options), and the send/recv
    counter every worker is started with when it is built here (anatomy/syscount.py; without it the anatomy
    leaves those counts out). Returns what was copied. Raises HostUnreachable, or RuntimeError naming what
    failed."""
    files, missing = files_to_copy(targets)
    root = repo_root()
    if missing:
        raise RuntimeError(f"cannot deploy to {host}: not built here: {', '.join(missing)} (run: make build)")
    if (root / SYSCOUNT_LIBRARY).is_file() and SYSCOUNT_LIBRARY not in files:
        files.append(SYSCOUNT_LIBRARY)
    q = shlex.quote(directory)
    tar = subprocess.Popen(["tar", "-C", str(root), "-cf", "-", "--", *files], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    assert tar.stdout is not None
    data = tar.stdout.read()
    if tar.wait() != 0:
        raise RuntimeError(f"tar of {files} failed: {tar.stderr.read().decode(errors='replace')}")  # type: ignore[union-attr]
    host.run_shell(f"mkdir -p {q}/samples {q}/run && tar -C {q} -xf -", stdin=data, timeout=300)
    return files


# Checks run on the host, one line per problem. $D is the campaign directory, $JAVA the JVM to use.
_CHECK_FILES = r"""
for f in $FILES; do
  [ -e "$D/$f" ] || { echo "missing $f in $D (deployment incomplete)"; continue; }
  if [ -f "$D/$f" ] && [ -x "$D/$f" ]; then
    if ! command -v ldd >/dev/null 2>&1; then echo "ldd not found: cannot check the shared libraries of $f";
    else
      nf="$(ldd "$D/$f" 2>&1 | sed -n 's/^[[:space:]]*\([^ ]*\) => not found.*/\1/p' | tr '\n' ' ')"
      [ -n "$nf" ] && echo "$f needs shared libraries this host lacks: $nf(Debian: apt-get install omniorb / libomniorb4-2 for omniORB)"
    fi
  fi
done
"""
_CHECK_JAVA = r"""
j="$(command -v "$JAVA" 2>/dev/null)"
if [ -z "$j" ]; then echo "no JDK: java command '$JAVA' not found (install a JDK 17+, or set the host's java key)";
elif ! "$j" -version >/dev/null 2>&1; then echo "java '$j' does not run: $("$j" -version 2>&1 | head -n1)"; fi
"""
_CHECK_HOSTNAME = r"""
n="$(hostname)"; getent hosts "$n" >/dev/null 2>&1 || echo "this host's name '$n' does not resolve, and $TARGET's middleware looks it up when it starts: $FIX"
"""
_CHECK_TASKSET = r"""
command -v taskset >/dev/null 2>&1 || echo "taskset not found (needed for pinning; Debian: apt-get install util-linux), or use placement 'unpinned'"
"""


def check_target(host: Host, target: Target, directory: str, java: str, pinned: bool) -> list[str]:
    """What the host lacks to run the target, as sentences (empty: it can run). Raises HostUnreachable."""
    script = f"D={shlex.quote(directory)}; JAVA={shlex.quote(java)}; " \
             f"FILES={shlex.quote(' '.join(target_files(target)))}\n" + _CHECK_FILES
    if target.is_jvm:
        script += _CHECK_JAVA
    if target.requires_hostname:
        script += f"TARGET={shlex.quote(target.name)}; FIX={shlex.quote(HOSTNAME_FIX)}\n" + _CHECK_HOSTNAME
    if pinned:
        script += _CHECK_TASKSET
    out = host.run_shell(script, check=False)
    return [line for line in out.stdout.decode(errors="replace").splitlines() if line.strip()]


def sweep_script(directory: str, only: str | None = None) -> str:
    """Shell that ends every worker started from `directory` on a host (pid files in run/), verifying each
    pid's working directory first so that a pid reused by another program is never killed."""
    q = shlex.quote(directory)
    pattern = shlex.quote(only + ".pid") if only else "*.pid"
    return f"""
D={q}; [ -d "$D/run" ] || exit 0; cd "$D" || exit 0; D="$(pwd -P)"; n=0
for f in "$D"/run/{pattern}; do
  [ -f "$f" ] || continue; p="$(cat "$f")"
  if [ -n "$p" ] && [ "$(readlink /proc/$p/cwd 2>/dev/null)" = "$D" ]; then
    kill -TERM "$p" 2>/dev/null; i=0
    while [ $i -lt 20 ] && kill -0 "$p" 2>/dev/null; do sleep 0.1; i=$((i+1)); done
    kill -KILL "$p" 2>/dev/null && n=$((n+1))
  fi
  rm -f "$f"
done
echo "$n"
"""


def sweep(host: Host, directory: str, only: str | None = None) -> int:
    """Kill leftover workers of this campaign on the host; the number that needed SIGKILL."""
    out = host.run_shell(sweep_script(directory, only), check=False, timeout=30)
    text = out.stdout.decode(errors="replace").strip().splitlines()
    return int(text[-1]) if text and text[-1].isdigit() else 0


def describe_problems(problems: dict[str, list[str]]) -> str:
    lines = ["hosts are not ready; nothing ran:"]
    for where, items in problems.items():
        lines += [f"  {where}: {p}" for p in items]
    return "\n".join(lines)


def raise_if_problems(problems: dict[str, list[str]]) -> None:
    if problems:
        raise UserError(describe_problems(problems))

