"""One snapshot of a host: the counters of some processes, their TCP sockets and the namespace's TCP events,
read by one POSIX shell script run there (`sh -c` locally, over SSH on a remote host), so a local and a remote
worker are measured by the same commands.

The script prints sections `@NAME [PID]` followed by their text; parse_snapshot turns them back into counters.
It forks a handful of short commands per process (cat, grep, ls, sed, od; one ss), some tens of milliseconds in all,
and runs between trials, never during one. On this machine the harness reads the same files itself and the
sockets over sock_diag (sockdiag.py), starting no process: one started right before a trial slows it.
"""

from __future__ import annotations

import glob
import os
import struct
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from orbench.anatomy.netstat import parse_netstat
from orbench.anatomy.procfs import ProcessCounters, process_counters
from orbench.anatomy.sockdiag import tcp_sockets
from orbench.anatomy.syscount import MEMFD_NAME
from orbench.anatomy.syscount import SNAPSHOT_PART as SYSCOUNT_PART
from orbench.anatomy.tcpinfo import SocketCounters, parse_socket_inodes, parse_ss

# `2>/dev/null`: a thread that ends while the glob is read is simply not listed. The processes' CPU clocks
# (procfs.py) are read by perl (Debian's perl-base is always there; it starts in milliseconds), else by python3
# (tens to hundreds of milliseconds), whichever the host has; on this machine the harness reads them itself
# (CLOCKS empty). `use integer`: the clock id is a negative int; `+ 0`: a pid from @ARGV is a number, not a string.
SNAPSHOT_SCRIPT = r"""
if [ -n "$CLOCKS" ]; then
  echo "@cpuclock"
  if command -v perl >/dev/null 2>&1; then
    perl -MTime::HiRes=clock_gettime -e 'for my $p (@ARGV) { my $id; { use integer; $id = ((~($p + 0)) << 3) | 2; }
      my $t = clock_gettime($id); printf "%d %.0f\n", $p, $t * 1e9 if defined $t && $t > 0 }' $PIDS 2>/dev/null
  elif command -v python3 >/dev/null 2>&1; then
    python3 -c 'import sys, time
for p in sys.argv[1:]:
    try:
        print(p, time.clock_gettime_ns(((~int(p)) << 3) | 2))
    except OSError:
        pass' $PIDS 2>/dev/null
  fi
fi
for pid in $PIDS; do
  [ -r /proc/$pid/stat ] || continue
  echo "@stat $pid"; cat /proc/$pid/stat 2>/dev/null
  echo "@io $pid"; cat /proc/$pid/io 2>/dev/null
  echo "@schedstat $pid"; grep -H '' /proc/$pid/task/*/schedstat 2>/dev/null
  echo "@status $pid"; grep -H ctxt_switches /proc/$pid/task/*/status 2>/dev/null
  echo "@rss $pid"; grep VmRSS /proc/$pid/status 2>/dev/null
  fds=$(ls -l /proc/$pid/fd 2>/dev/null)
  echo "@fds $pid"; printf '%s\n' "$fds" | sed -n 's/.*-> \(socket:\[[0-9]*\]\)$/\1/p'
""" + SYSCOUNT_PART + r"""done
if [ -n "$SOCKETS" ]; then echo "@ss"; ss -tinHe 2>/dev/null; fi
echo "@netstat"; cat /proc/net/netstat /proc/net/snmp 2>/dev/null
"""

Shell = Callable[[str], str]


@dataclass(frozen=True)
class HostSnapshot:
    """What one script run read on one host."""

    taken_at: float                                # time.monotonic() on the harness when the output came back
    processes: dict[int, ProcessCounters]          # by pid; a process that was gone is absent
    sockets: dict[int, dict[int, SocketCounters]]  # by pid: its TCP sockets, by inode
    netstat: dict[str, int]                        # the namespace's counters ('TcpExt.TCPTimeouts' -> n)


def snapshot_script(pids: Iterable[int], sockets: bool = True, clocks: bool = True) -> str:
    pid_list = " ".join(str(int(p)) for p in pids)
    return (f"PIDS='{pid_list}'; SOCKETS='{'yes' if sockets else ''}'; CLOCKS='{'yes' if clocks else ''}'\n"
            + SNAPSHOT_SCRIPT)


def split_sections(text: str) -> dict[tuple[str, int | None], str]:
    """`@name [pid]` headers and the lines under them."""
    sections: dict[tuple[str, int | None], list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("@"):
            name, _, pid = line[1:].partition(" ")
            current = sections.setdefault((name, int(pid) if pid.strip().isdigit() else None), [])
        elif current is not None:
            current.append(line)
    return {key: "\n".join(lines) for key, lines in sections.items()}


def process_cpu_ns(pid: int) -> int | None:
    """A process's CPU clock read here (procfs.py): every thread's on-CPU time, ended ones included."""
    try:
        return time.clock_gettime_ns(((~pid) << 3) | 2)
    except OSError:
        return None


def parse_snapshot(text: str, taken_at: float = 0.0, clocks: dict[int, int] | None = None,
                   tcp: dict[int, SocketCounters] | None = None) -> HostSnapshot:
    """`clocks`: the processes' CPU clocks read by the harness (a local host), else those the script printed;
    `tcp`: the TCP sockets read by the harness (sockdiag.py), else those of the text's `ss` section."""
    sections = split_sections(text)
    pids = {pid for (_, pid) in sections if pid is not None}
    if clocks is None:
        clocks = {int(f[0]): int(f[1]) for f in (line.split() for line in
                                                 sections.get(("cpuclock", None), "").splitlines())
                  if len(f) == 2 and f[0].isdigit() and f[1].isdigit()}
    processes: dict[int, ProcessCounters] = {}
    for pid in pids:
        counters = process_counters(pid, {name: body for (name, p), body in sections.items() if p == pid},
                                    clocks.get(pid))
        if counters is not None:
            processes[pid] = counters
    if tcp is None:
        tcp = parse_ss(sections.get(("ss", None), ""))
    sockets = {pid: {i: tcp[i] for i in parse_socket_inodes(sections.get(("fds", pid), "")) if i in tcp}
               for pid in processes}
    return HostSnapshot(taken_at, processes, sockets, parse_netstat(sections.get(("netstat", None), "")))


def local_shell(script: str) -> str:
    """Runs a script on this machine, as Host.run_shell does for a local host."""
    return subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=60, check=False).stdout


def _read(path: str, binary: bool = False) -> str | bytes | None:
    try:
        with open(path, "rb" if binary else "r") as f:
            return f.read()
    except OSError:
        return None


def _grep_h(pid: int, name: str, keep: Callable[[str], bool]) -> str:
    """What `grep -H '' /proc/PID/task/*/NAME` (with keep() as the pattern) prints: path:line per kept line."""
    out = []
    for task in sorted(glob.glob(f"/proc/{pid}/task/*/{name}")):
        text = _read(task)
        if isinstance(text, str):
            out += [f"{task}:{line}" for line in text.splitlines() if keep(line)]
    return "\n".join(out)


def fd_links(pid: int) -> dict[str, str]:
    """A process's open files on this machine: what each /proc/PID/fd link points at, by fd (empty when the
    process is gone or its fds cannot be read)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return {}
    links: dict[str, str] = {}
    for fd in fds:
        try:
            links[fd] = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
    return links


def process_socket_inodes(pid: int) -> set[int]:
    """The inodes of a process's sockets on this machine (its `socket:[INODE]` fd links)."""
    return parse_socket_inodes("\n".join(fd_links(pid).values()))


def _syscount_words(pid: int, fds: dict[str, str]) -> str | None:
    """The counter region's words (as the script's `od -An -tu8` prints them), from the worker's memfd."""
    fd = next((n for n, target in fds.items() if target.startswith(f"/memfd:{MEMFD_NAME} ")), None)
    if fd is None:
        return None
    data = _read(f"/proc/{pid}/fd/{fd}", binary=True)
    if not isinstance(data, bytes) or len(data) < 64:
        return None
    header = struct.unpack("=8Q", data[:64])
    used = header[5]
    if not 1 <= used <= 65536 or len(data) < 64 + used * 64:
        return None
    return " ".join(str(w) for w in struct.unpack(f"={8 + used * 8}Q", data[:64 + used * 64]))


def local_snapshot_text(pids: Iterable[int], sockets: bool = True) -> str:
    """The snapshot script's output for processes on this machine, read by the harness itself: the same
    files, with `ss` (with `sockets`) the only command it starts. take_snapshot reads the sockets over
    sock_diag instead and starts nothing (sockdiag.py says why)."""
    parts: list[str] = []
    for pid in pids:
        stat = _read(f"/proc/{pid}/stat")
        if not isinstance(stat, str):
            continue
        parts += [f"@stat {pid}", stat.rstrip("\n"), f"@io {pid}", str(_read(f"/proc/{pid}/io") or "").rstrip("\n"),
                  f"@schedstat {pid}", _grep_h(pid, "schedstat", lambda _line: True),
                  f"@status {pid}", _grep_h(pid, "status", lambda line: "ctxt_switches" in line)]
        status = _read(f"/proc/{pid}/status")
        parts += [f"@rss {pid}", "\n".join(line for line in str(status or "").splitlines() if "VmRSS" in line)]
        fds = fd_links(pid)
        parts += [f"@fds {pid}", "\n".join(t for t in fds.values() if t.startswith("socket:["))]
        words = _syscount_words(pid, fds)
        if words is not None:
            parts += [f"@syscount {pid}", words]
    if sockets:
        ss = subprocess.run(["ss", "-tinHe"], capture_output=True, text=True, timeout=60, check=False).stdout
        parts += ["@ss", ss.rstrip("\n")]
    parts += ["@netstat", "".join(str(_read(p) or "") for p in ("/proc/net/netstat", "/proc/net/snmp")).rstrip("\n")]
    return "\n".join(parts) + "\n"


def take_snapshot(pids: Iterable[int], shell: Shell = local_shell, sockets: bool = True,
                  local: bool = True) -> HostSnapshot:
    """Reads the counters of `pids` (and, with `sockets`, their TCP sockets) and the namespace's TCP counters
    on the host `shell` runs scripts on; `local`: that host is this machine, read by the harness itself (the
    same files as the script, local_snapshot_text)."""
    pids = list(pids)
    if local:
        tcp = tcp_sockets() if sockets else None
        text = local_snapshot_text(pids, sockets and tcp is None)
        clocks = {pid: ns for pid in pids if (ns := process_cpu_ns(pid)) is not None}
        return parse_snapshot(text, time.monotonic(), clocks, tcp)
    return parse_snapshot(shell(snapshot_script(pids, sockets, clocks=True)), time.monotonic())
