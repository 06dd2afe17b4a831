"""The TCP sockets of this machine's network namespace with their TCP_INFO counters, read by the harness itself
over the kernel's sock_diag netlink interface (the interface `ss` uses), without starting a process.

Why not `ss`: a process (or a thread) started by the harness just before a trial slows the trial after it. With
a split-core oneway flood (c-socket 16 B, trials of 1000 calls against a plain C client's), `sh -c true` run
right before each trial made it 1.08-1.12 times the plain client's p50 against 1.03-1.07 without, and the server's
CPU took twice the function-call interrupts (the IPIs of remote wake-ups) per trial, 212-316 against 95-140; with
100 ms between the process and the trial, 36-64 (tests/measure_task_start.py, three runs). The anatomy reads its counters right
before a trial, so locally it now starts nothing; a remote host still runs the snapshot script (snapshot.py).

The counters are those tcpinfo.parse_ss reads from `ss -tinHe`, from the same struct tcp_info (linux/tcp.h).
"""

from __future__ import annotations

import ipaddress
import os
import socket
import struct

from orbench.anatomy.tcpinfo import SocketCounters

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
INET_DIAG_INFO = 2
_NLMSGHDR = struct.Struct("=IHHII")
# struct inet_diag_req_v2: family, protocol, extensions, pad, states, then a zeroed inet_diag_sockid (48 bytes).
_REQUEST = struct.Struct("=BBBxI48x")
_DIAG_MSG_BYTES = 72   # struct inet_diag_msg
_INODE_OFFSET = 68     # its idiag_inode
# struct tcp_info offsets (linux/tcp.h): a field past the end of what the kernel sent is read as 0, as ss does.
_TCP_INFO = {"total_retrans": (100, "=I"), "bytes_received": (128, "=Q"), "data_segs_in": (152, "=I"),
             "data_segs_out": (156, "=I"), "bytes_sent": (200, "=Q"), "bytes_retrans": (208, "=Q")}


def _align(n: int) -> int:
    return (n + 3) & ~3


def _address(family: int, raw: bytes, port: int) -> str:
    if family == socket.AF_INET:
        return f"{ipaddress.IPv4Address(raw[:4])}:{port}"
    return f"[{ipaddress.IPv6Address(raw[:16])}]:{port}"


def _field(info: bytes, name: str) -> int:
    offset, fmt = _TCP_INFO[name]
    size = struct.calcsize(fmt)
    return struct.unpack_from(fmt, info, offset)[0] if len(info) >= offset + size else 0


def parse_diag_message(payload: bytes) -> SocketCounters | None:
    """One inet_diag_msg and its attributes (the bytes after the netlink header) as SocketCounters; None
    without a tcp_info attribute."""
    if len(payload) < _DIAG_MSG_BYTES:
        return None
    family = payload[0]
    sport, dport = struct.unpack_from("!HH", payload, 4)
    inode = struct.unpack_from("=I", payload, _INODE_OFFSET)[0]
    offset = _DIAG_MSG_BYTES
    while offset + 4 <= len(payload):
        length, kind = struct.unpack_from("=HH", payload, offset)
        if length < 4:
            break
        if kind == INET_DIAG_INFO:
            info = payload[offset + 4:offset + length]
            return SocketCounters(inode, _address(family, payload[8:24], sport), _address(family, payload[24:40], dport),
                                  _field(info, "bytes_sent") - _field(info, "bytes_retrans"),
                                  _field(info, "bytes_received"), _field(info, "data_segs_out"),
                                  _field(info, "data_segs_in"), _field(info, "total_retrans"))
        offset += _align(length)
    return None


def _messages(family: int, sockid: bytes = b"") -> list[bytes]:
    """The inet_diag_msg payloads sock_diag answers: every TCP socket of `family` (a dump), or with `sockid` (an
    inet_diag_sockid, 48 bytes, as a dump gave it) that one socket, found by the kernel in its hash table
    instead of a walk over all of it (a dump cost ~1.5 ms on a 2-vCPU VM, with one socket)."""
    flags = NLM_F_REQUEST | (0 if sockid else NLM_F_DUMP)
    body = _REQUEST.pack(family, socket.IPPROTO_TCP, 1 << (INET_DIAG_INFO - 1), 0xFFFFFFFF)
    if sockid:
        body = body[:_REQUEST.size - len(sockid)] + sockid
    out: list[bytes] = []
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW | socket.SOCK_CLOEXEC, NETLINK_SOCK_DIAG) as nl:
        nl.send(_NLMSGHDR.pack(_NLMSGHDR.size + len(body), SOCK_DIAG_BY_FAMILY, flags, 1, 0) + body)
        while True:
            data = nl.recv(1 << 16)
            if not data:
                return out
            offset = 0
            while offset + _NLMSGHDR.size <= len(data):
                length, kind, _flags, _seq, _pid = _NLMSGHDR.unpack_from(data, offset)
                if kind == NLMSG_DONE:
                    return out
                if kind == NLMSG_ERROR:
                    error = struct.unpack_from("=i", data, offset + _NLMSGHDR.size)[0]
                    raise OSError(-error, os.strerror(-error))
                out.append(data[offset + _NLMSGHDR.size:offset + length])
                if length < _NLMSGHDR.size:
                    return out
                offset += _align(length)
            if sockid:  # one socket asked for: one answer, no NLMSG_DONE
                return out


def _dump(family: int) -> dict[int, SocketCounters]:
    sockets: dict[int, SocketCounters] = {}
    for payload in _messages(family):
        counters = parse_diag_message(payload)
        if counters is not None and counters.inode:  # a TIME_WAIT socket has no inode
            sockets[counters.inode] = counters
    return sockets


def tcp_sockets() -> dict[int, SocketCounters] | None:
    """Every TCP socket of this namespace, IPv4 and IPv6, by inode; None when sock_diag cannot be read here
    (then the caller runs `ss`)."""
    try:
        return _dump(socket.AF_INET) | _dump(socket.AF_INET6)
    except OSError:
        return None


# Where sock_diag finds one socket: its family and inet_diag_sockid (ports, addresses, interface, cookie).
SocketId = tuple[int, bytes]


def socket_ids(inodes: set[int]) -> dict[int, SocketId]:
    """The sockets of `inodes` as sock_diag finds them one by one (socket_counters), from one dump per family;
    a socket not found (closed, another namespace) is left out."""
    ids: dict[int, SocketId] = {}
    for family in (socket.AF_INET, socket.AF_INET6):
        for payload in _messages(family):
            if len(payload) >= _DIAG_MSG_BYTES:
                inode = struct.unpack_from("=I", payload, _INODE_OFFSET)[0]
                if inode in inodes:
                    ids[inode] = (family, payload[4:52])
    return ids


def socket_counters(found: SocketId) -> SocketCounters | None:
    """One socket's counters, asked for by its id (socket_ids); None when it is gone."""
    try:
        payloads = _messages(found[0], found[1])
    except OSError:
        return None
    counters = parse_diag_message(payloads[0]) if payloads else None
    return counters if counters is not None and counters.inode else None
