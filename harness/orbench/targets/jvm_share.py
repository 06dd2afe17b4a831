"""Class-data sharing for the JVM workers: a worker's classes mapped from an archive made for its exact command.

A JacORB worker spends most of its start loading and verifying classes: on a 2-vCPU AMD EPYC VM (JDK 17,
pinned to one CPU) its server took 0.59-0.72 s to its ready line and its client 0.54-0.63 s to answer hello;
with their classes from a dynamic CDS archive (JDK 13+: -XX:ArchiveClassesAtExit, then
-XX:SharedArchiveFile) 0.30-0.36 s and 0.35-0.38 s. A launch of quick starts four JVMs; the fast test suite
made 31 archives, one per JVM command it starts.
Only the start changes: the classes are the same bytes, so the JIT and the measured calls see no difference
(docs: harness/campaigns/README.md, "Where the time goes", checks it by `orbench compare`).

The archive is made once per command (java executable, flags, class path and its jars as they are on disk), by
an unmeasured start of the worker that answers one `hello` and ends at the end of its stdin; the JVM writes its
loaded classes at exit. Each worker start after that names the archive. A JVM that cannot make one (no dynamic
archives before JDK 13) leaves the command as it was. The JVM checks an archive against its class path and
build itself and, if it does not fit, warns and loads classes the usual way: the flags below send its warnings
to the worker's stderr (its log), never stdout, where the harness reads the worker contract.

ORBENCH_CDS=off turns it off (the commands are then as their descriptors say)."""

from __future__ import annotations

import glob
import hashlib
import os
import subprocess
from pathlib import Path

from orbench.paths import repo_root

SHARE_ENV = "ORBENCH_CDS"
# The JVM's unified logging writes warnings to stdout by default; the worker contract owns stdout.
WARNINGS_TO_STDERR = ("-Xlog:disable", "-Xlog:all=warning:stderr")
# A JacORB server's or client's start with its archive dump took 0.62-0.72 s on that VM; a bound far above.
PRIME_TIMEOUT_S = 60.0
CLASS_PATH_FLAGS = ("-cp", "-classpath", "--class-path")
_failed: set[Path] = set()   # commands whose archive could not be made, not tried again by this process


def archive_dir() -> Path:
    return repo_root() / "java" / "target" / "cds"


def shared(argv: list[str], volatile: str | None = None) -> list[str]:
    """`argv` (a JVM worker's command line, argv[0] the java executable) with the flags that map its classes
    from its archive, made first if there is none; `argv` as it was when sharing is off or no archive can be
    made. `volatile`: a value in argv that changes from start to start and does not bear on the classes (the
    GC log's file), left out of the archive's key and replaced by the null device in the start that makes it."""
    if os.environ.get(SHARE_ENV, "").lower() in ("off", "0", "no", "false") or len(argv) < 2:
        return argv
    stable = [a if volatile is None or volatile == os.devnull else a.replace(volatile, os.devnull) for a in argv]
    archive = archive_dir() / f"{_key(stable)}.jsa"
    if not archive.is_file() and not _make(archive, stable):
        return argv
    return [argv[0], *WARNINGS_TO_STDERR, f"-XX:SharedArchiveFile={archive}", *argv[1:]]


def _key(argv: list[str]) -> str:
    """What an archive fits: the java executable as installed, the command's words and every jar or class
    directory of its class path as it is on disk (a rebuilt jar gets a new archive)."""
    h = hashlib.sha256()
    java = Path(argv[0])
    for word in (str(java.resolve()), *_stamp(java.resolve()), *argv[1:]):
        h.update(word.encode() + b"\0")
    for entry in _class_path(argv):
        for path in sorted(glob.glob(entry)) if entry.endswith("*") else [entry]:
            h.update(f"{path}\0{':'.join(_stamp(Path(path)))}\0".encode())
    return h.hexdigest()[:20]


def _stamp(path: Path) -> tuple[str, ...]:
    try:
        st = path.stat()
    except OSError:
        return ("missing",)
    return (str(st.st_size), str(st.st_mtime_ns))


def _class_path(argv: list[str]) -> list[str]:
    for flag, value in zip(argv, argv[1:]):
        if flag in CLASS_PATH_FLAGS:
            return [e for e in value.split(os.pathsep) if e]
    return []


def _make(archive: Path, argv: list[str]) -> bool:
    """Start the worker once, unmeasured, with the archive written at its exit; True when it was."""
    if archive in _failed:
        return False
    partial = archive.with_name(f"{archive.stem}.{os.getpid()}.part")
    try:
        archive.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([argv[0], *WARNINGS_TO_STDERR, f"-XX:ArchiveClassesAtExit={partial}", *argv[1:]],
                       input=b'{"cmd": "hello", "id": 0}\n', stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=PRIME_TIMEOUT_S, check=False)
        if partial.is_file() and partial.stat().st_size > 0:
            os.replace(partial, archive)   # several processes may make one at once: each whole, the last stays
            return True
    except (OSError, subprocess.SubprocessError):
        pass
    partial.unlink(missing_ok=True)
    _failed.add(archive)
    return False
