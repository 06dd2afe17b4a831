"""What check-target sees on the wire and in the system calls, from the anatomy counters (anatomy/).

- Data segments a process's TCP sockets sent (TCP_INFO, through `ss`), between two snapshots: with
  TCP_NODELAY a message written at once is one segment; `tcp_nodelay = false` must show (PROTOCOL.md, Connect
  options), either as two segments per request (header, then the body after the delayed ACK) or as small
  oneways that Nagle's algorithm coalesces into fewer segments than messages.
- The read- and write-family system calls of a worker during a run, the send and recv families included: a
  socket baseline writes each message once and reads whatever is there into one buffer (PROTOCOL.md, How a
  socket baseline reads and writes). Counted by the kernel (/proc/PID/io) and the send/recv counter preloaded
  into the workers (anatomy/syscount.py), two snapshots and no tracer; where the counter is not built, by
  `strace -c` attached to the workers (the anatomy mode's tool, anatomy/strace.py).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from orbench.anatomy.delta import process_delta
from orbench.anatomy.snapshot import local_shell, take_snapshot
from orbench.anatomy.strace import StraceSession, SyscallCount

WRITE_CALLS = ("write", "writev", "send", "sendto", "sendmsg", "sendmmsg", "pwrite64")
READ_CALLS = ("read", "readv", "recv", "recvfrom", "recvmsg", "recvmmsg", "pread64")


def segments_out(pid: int) -> int:
    """Data segments sent so far by every TCP socket of a local process."""
    sockets = take_snapshot([pid]).sockets.get(pid, {})
    assert sockets, f"no TCP socket of process {pid} seen over sock_diag (or `ss -tinHe`, iproute2, where sock_diag cannot be read)"
    return sum(s.data_segs_out for s in sockets.values())


def segments_during(pid: int, action: Callable[[], object]) -> int:
    before = segments_out(pid)
    action()
    return segments_out(pid) - before


@dataclass(frozen=True)
class CallCounts:
    """Read- and write-family system calls of one process during a run (the recv and send families
    included), and how they were counted."""

    reads: int
    writes: int
    source: str     # "counted" (the kernel's and the preloaded counter's: every call) or "strace" (successful ones)


def counted_calls(pids: list[int], action: Callable[[], object]) -> dict[int, CallCounts] | None:
    """`action` run between two snapshots of local processes that all have the send/recv counter; None (and
    `action` not run) when one of them lacks it. Every call counts, a failed one too, as the kernel counts
    syscr and syscw."""
    before = take_snapshot(pids, sockets=False).processes
    if any(p not in before or before[p].send_calls is None or before[p].recv_calls is None
           or before[p].read_calls is None or before[p].write_calls is None for p in pids):
        return None
    action()
    after = take_snapshot(pids, sockets=False).processes
    out = {}
    for pid in pids:
        if pid not in after:
            raise AssertionError(f"process {pid} ended during the run")
        d = process_delta(before[pid], after[pid])
        out[pid] = CallCounts((d.read_calls or 0) + (d.recv_calls or 0), (d.write_calls or 0) + (d.send_calls or 0),
                              "counted")
    return out


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
    return {pid: CallCounts(_successful(c, READ_CALLS), _successful(c, WRITE_CALLS), "strace")
            for pid, c in counts.items()}
