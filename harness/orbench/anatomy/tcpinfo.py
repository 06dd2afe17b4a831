"""The counters of TCP sockets from the kernel's TCP_INFO, as `ss -tinHe` prints them (iproute2).

A process's sockets are found by inode: the snapshot script lists the `socket:[INODE]` links of /proc/PID/fd,
and `ss -e` prints each socket's `ino:`; no `ss -p`, which would scan every process on the host.

Bytes: `bytes_sent` (tcpi_bytes_sent) counts every byte handed to IP, retransmissions included, and
`bytes_retrans` (printed only when not zero) the retransmitted ones, so their difference is the bytes the
application wrote that went out, whether the peer has acknowledged them yet or not (bytes_acked would lag by a
delayed ACK); `bytes_received` counts the bytes received in order. All count from the connection's start. Segments:
`data_segs_out` / `data_segs_in` count segments that carried data (one per write of a small message with
TCP_NODELAY; a large write is cut at the MSS). `retrans:A/B`: B is the connection's retransmitted segments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ADDRESS = re.compile(r"^(\[[0-9a-fA-F:.%\w]*\]|[0-9a-fA-F:.%\w*-]+):(\d+|\*)$")
_FIELD = re.compile(r"\b(bytes_sent|bytes_retrans|bytes_received|data_segs_out|data_segs_in):(\d+)")
_RETRANS = re.compile(r"\bretrans:(\d+)/(\d+)")
_INODE = re.compile(r"\bino:(\d+)")


@dataclass(frozen=True)
class SocketCounters:
    inode: int
    local: str
    peer: str
    bytes_out: int = 0          # bytes_sent - bytes_retrans
    bytes_received: int = 0
    data_segs_out: int = 0
    data_segs_in: int = 0
    retrans: int = 0


def parse_ss(text: str) -> dict[int, SocketCounters]:
    """Sockets by inode from `ss -tinHe` output: a line per socket (addresses, `ino:`), then its TCP_INFO line
    (indented). A socket without TCP_INFO (none is expected for TCP) gets zero counters."""
    sockets: dict[int, SocketCounters] = {}
    head: tuple[int, str, str] | None = None

    def finish(info: str) -> None:
        if head is None:
            return
        fields = {k: int(v) for k, v in _FIELD.findall(info)}
        retrans = _RETRANS.search(info)
        sockets[head[0]] = SocketCounters(
            head[0], head[1], head[2], fields.get("bytes_sent", 0) - fields.get("bytes_retrans", 0),
            fields.get("bytes_received", 0),
            fields.get("data_segs_out", 0), fields.get("data_segs_in", 0), int(retrans.group(2)) if retrans else 0)

    for line in text.splitlines():
        if not line.strip():
            continue
        if line[0].isspace():
            finish(line)
            head = None
            continue
        finish("")  # a socket line right after another: the previous one had no info line
        inode = _INODE.search(line)
        addresses = [t for t in line.split() if _ADDRESS.match(t)]
        head = (int(inode.group(1)), addresses[0], addresses[1]) if inode and len(addresses) >= 2 else None
    finish("")
    return sockets


def parse_socket_inodes(text: str) -> set[int]:
    """Inodes from the `socket:[INODE]` targets of a process's fd links, one per line (or in `ls -l` output)."""
    return {int(m) for m in re.findall(r"socket:\[(\d+)\]", text)}
