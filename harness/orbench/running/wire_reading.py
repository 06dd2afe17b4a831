"""The TCP data segments a trial's client sent per call, read around every trial (not only those that read the
anatomy) from the kernel's TCP_INFO of the client's sockets, over sock_diag (anatomy/sockdiag.py).

Why every trial: a oneway sender whose messages join data already queued on its connection sends fewer
segments than messages, and each send then costs it less of the loopback path, and whether it does changes from
trial to trial. At split-core oneway 128 B on a 2-vCPU VM, omniORB's trials of 500 calls read a p50 of 1.0-1.4 us
at 0.09-0.48 segments per message and 3.7-5.4 us at 0.43-1.0, while c-socket's read 3.7-5.5 us at 1.007 in
every trial; a campaign that reads the anatomy on one trial per point saw one state only. The summary's
invariants use this figure per trial to name coalescing where the faster side's trials differ
(summary/invariants.py).

The reading asks the kernel for the client's sockets one by one: a dump of every TCP socket walks the kernel's
whole connection table (~1.5 ms on a 2-vCPU VM with 24 GB, however few sockets), so it runs once per client and
when a socket is new. It sits beside the CPU usage reading, which already reads /proc before and after every
trial. A client on another host, or in another network namespace, is not read (None).
"""

from __future__ import annotations

from orbench.anatomy.delta import wire_delta
from orbench.anatomy.snapshot import process_socket_inodes
from orbench.anatomy.sockdiag import SocketId, socket_counters, socket_ids
from orbench.anatomy.tcpinfo import SocketCounters

# Per client pid, the socket inodes it had when its sockets were last looked for, and where each of its TCP
# sockets is found: a worker keeps its connection over a launch's trials (its other sockets, Unix or UDP, are
# never found, and not looked for again).
_FOUND: dict[int, tuple[set[int], dict[int, SocketId]]] = {}


def _client_sockets(pid: int) -> dict[int, SocketCounters] | None:
    inodes = process_socket_inodes(pid)
    known, found = _FOUND.get(pid, (set(), {}))
    if not inodes <= known:
        try:
            found = socket_ids(inodes)
        except OSError:
            return None
        _FOUND[pid] = (inodes, found)
    counters = {inode: socket_counters(found[inode]) for inode in inodes if inode in found}
    mine = {inode: c for inode, c in counters.items() if c is not None}
    return mine or None


class WireReading:
    """Started before a trial's `run` command(s); `per_call` after them: the segments its client sent per call.
    `pid`: the client's pid on this machine, or None (a remote client: nothing is read)."""

    def __init__(self, pid: int | None):
        self.pid = pid
        self.before = _client_sockets(pid) if pid else None

    def per_call(self, calls: int) -> float | None:
        """Data segments the client's sockets sent over `calls` calls (warm-up and timed, every thread's)."""
        if self.before is None or self.pid is None or calls <= 0:
            return None
        after = _client_sockets(self.pid)
        if after is None:
            return None
        return round(wire_delta(self.before, after).segments_out / calls, 4)
