"""What check-target sees on the wire and in the system calls, from the anatomy counters (anatomy/).

- Data segments a process's TCP sockets sent (TCP_INFO, through `ss`), between two snapshots: with
  TCP_NODELAY a message written at once is one segment; `tcp_nodelay = false` must show (PROTOCOL.md, Connect
  options), either as two segments per request (header, then the body after the delayed ACK) or as small
  oneways that Nagle's algorithm coalesces into fewer segments than messages.
- The read- and write-family system calls of a worker during a run (`strace -c`, anatomy mode): a socket
  baseline writes each message once and reads whatever is there into one buffer (PROTOCOL.md, The socket
  baselines' wire format).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from orbench.anatomy.snapshot import local_shell, take_snapshot
from orbench.anatomy.strace import StraceSession, SyscallCount

WRITE_CALLS = ("write", "writev", "send", "sendto", "sendmsg", "pwrite64")
READ_CALLS = ("read", "readv", "recv", "recvfrom", "recvmsg", "pread64")


def segments_out(pid: int) -> int:
    """Data segments sent so far by every TCP socket of a local process."""
    sockets = take_snapshot([pid]).sockets.get(pid, {})
    assert sockets, f"no TCP socket of process {pid} seen by `ss -tinHe` (iproute2 installed?)"
    return sum(s.data_segs_out for s in sockets.values())


def segments_during(pid: int, action: Callable[[], object]) -> int:
    before = segments_out(pid)
    action()
    return segments_out(pid) - before


@dataclass(frozen=True)
class CallCounts:
    """Successful read- and write-family system calls of one process during a run."""

    reads: int
    writes: int


def _successful(counts: dict[str, SyscallCount], names: tuple[str, ...]) -> int:
    # A non-blocking read that finds nothing (EAGAIN) and polls is not a read of a message.
    return sum(counts[n].calls - counts[n].errors for n in names if n in counts)


def syscalls_during(pids: list[int], action: Callable[[], object]) -> dict[int, CallCounts]:
    """strace attached to each local process while `action` runs. Attached and stopped in parallel: a stop
    waits for its strace to be gone, about a second here."""
    paths = []
    for pid in pids:
        fd, path = tempfile.mkstemp(prefix=f"orbench-strace-{pid}-")
        os.close(fd)
        paths.append(path)
    with ThreadPoolExecutor(len(pids)) as pool:
        attached = [pool.submit(StraceSession.attach, local_shell, pid, path) for pid, path in zip(pids, paths)]
        sessions = [f.result() for f in attached if f.exception() is None]
        try:
            if len(sessions) < len(pids):
                raise next(f.exception() for f in attached if f.exception() is not None)
            action()
        finally:
            counts = dict(zip((s.pid for s in sessions), pool.map(StraceSession.stop, sessions)))
    return {pid: CallCounts(_successful(c, READ_CALLS), _successful(c, WRITE_CALLS)) for pid, c in counts.items()}
