"""The socket baselines' wire format (PROTOCOL.md, "The socket baselines' wire format"): a 12-byte header
(magic OBSK, version 1, 0, flags 1 = little-endian, kind, u32 body length), replies starting with a 12-byte
preamble (u32 request id, u32 status, u32 0)."""

from __future__ import annotations

import mmap
import struct

HEADER = struct.Struct("<4sBBBBI")
PREAMBLE = struct.Struct("<III")
REQUEST_ID = struct.Struct("<I")   # the preamble's first field
HEADER_BYTES = HEADER.size          # 12
REPLY_BYTES = HEADER_BYTES + PREAMBLE.size   # 24: an empty reply, GIOP 1.2's reply header size
MAGIC = b"OBSK"
ONEWAY, TWOWAY, ECHO, SYNC, COUNTERS, RESET, SHUTDOWN = 1, 2, 3, 4, 5, 6, 7
REPLY = 0x80
SYNC_BODY = struct.Struct("<QI")
SYNC_REPLY = struct.Struct("<BQQ")
COUNTERS_REPLY = struct.Struct("<QQ")


def header(kind: int, length: int) -> bytes:
    return HEADER.pack(MAGIC, 1, 0, 1, kind, length)


def parse_endpoint(endpoint: str) -> tuple[str, int]:
    """tcp://HOST:PORT -> (HOST, PORT); ValueError otherwise."""
    if not endpoint.startswith("tcp://") or ":" not in endpoint[6:]:
        raise ValueError(f"endpoint {endpoint!r} is not tcp://HOST:PORT")
    host, _, port = endpoint[6:].rpartition(":")
    return host.strip("[]"), int(port)


def page_aligned(size: int) -> mmap.mmap:
    """A zero-filled buffer of `size` bytes that starts on a page boundary (an anonymous mapping), as the C
    baseline's PageBuffer: the kernel copies socket data with `rep movsb`, which runs many times slower when the
    destination lies 1 to 63 bytes ahead of the source within a page, and a bytes object or a bytearray starts
    at whatever offset the allocator gives it (cpp/csocket/socket_io.hpp says more)."""
    return mmap.mmap(-1, size)
