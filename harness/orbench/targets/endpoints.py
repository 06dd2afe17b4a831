"""The server port in a ready line's endpoint, and the same endpoint with another port (a relay's).

An endpoint's form is data: the socket baselines' `tcp://HOST:PORT` here, each middleware family's in
harness/targets/families.toml (families.py), as a regular expression whose group `port` is the port (every
match is the server's address: an Ice proxy may list several), or as a reader here by name, for an endpoint
that is not text: `ior`, a stringified CORBA IOR, whose IIOP profiles are CDR encapsulations with the port a
ushort after the host string, in the profile and in any TAG_ALTERNATE_IIOP_ADDRESS component.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass

TAG_INTERNET_IOP = 0
TAG_ALTERNATE_IIOP_ADDRESS = 3


class EndpointError(ValueError):
    """An endpoint whose server port cannot be found."""


@dataclass(frozen=True)
class EndpointForm:
    """What an endpoint looks like (`pattern`, matched whole) and how its port is read: `port_pattern`, a
    regular expression with a group `port`, or `port_reader`, a name in PORT_READERS."""

    pattern: str
    port_pattern: str | None = None
    port_reader: str | None = None

    def port_of(self, endpoint: str) -> int:
        if self.port_reader is not None:
            return PORT_READERS[self.port_reader][0](endpoint)
        assert self.port_pattern is not None
        m = re.search(self.port_pattern, endpoint)
        if m is None:
            raise EndpointError(f"no port in endpoint {endpoint[:80]!r} (no match of {self.port_pattern!r})")
        return int(m.group("port"))

    def with_port(self, endpoint: str, port: int) -> str:
        """The endpoint with its server port (every occurrence of it) replaced by `port`."""
        old = self.port_of(endpoint)
        if self.port_reader is not None:
            return PORT_READERS[self.port_reader][1](endpoint, old, port)
        assert self.port_pattern is not None

        def moved(m: re.Match[str]) -> str:
            if int(m.group("port")) != old:
                return m.group(0)
            start, end = m.start("port") - m.start(0), m.end("port") - m.start(0)
            return m.group(0)[:start] + str(port) + m.group(0)[end:]

        return re.sub(self.port_pattern, moved, endpoint)


# The socket baselines' endpoint (PROTOCOL.md, "Server worker"): the contract's own, not a family's.
SOCKET_FORM = EndpointForm(r"tcp://\S+:\d+", port_pattern=r"^tcp://\S+:(?P<port>\d+)$")


def _ior_port_of(endpoint: str) -> int:
    if not endpoint.startswith("IOR:"):
        raise EndpointError(f"not an IOR: {endpoint[:60]!r}")
    ports = [port for _, port in _ior_ports(bytearray.fromhex(endpoint[4:]))]
    if not ports:
        raise EndpointError(f"no IIOP profile in {endpoint[:60]}...")
    return ports[0]


def _ior_with_port(endpoint: str, old: int, port: int) -> str:
    data = bytearray.fromhex(endpoint[4:])
    for (offset, little), value in _ior_ports(data):
        if value == old:
            data[offset:offset + 2] = struct.pack("<H" if little else ">H", port)
    return "IOR:" + data.hex()


class _Cdr:
    """Reads a CDR encapsulation: alignment counts from its first byte (the byte-order flag)."""

    def __init__(self, data: bytearray, start: int, end: int):
        self.data, self.base, self.end = data, start, end
        self.little = data[start] == 1
        self.pos = start + 1

    def align(self, n: int) -> None:
        self.pos += (-(self.pos - self.base)) % n

    def ulong(self) -> int:
        self.align(4)
        if self.pos + 4 > self.end:
            raise EndpointError("IOR ends inside a field")
        value = struct.unpack_from("<I" if self.little else ">I", self.data, self.pos)[0]
        self.pos += 4
        return value

    def skip_sequence(self) -> tuple[int, int]:
        """A string or sequence<octet>: (start, length) of its bytes."""
        n = self.ulong()
        start = self.pos
        self.pos += n
        return start, n

    def port_at(self) -> tuple[tuple[int, bool], int]:
        self.align(2)
        if self.pos + 2 > self.end:
            raise EndpointError("IOR ends inside a port")
        value = struct.unpack_from("<H" if self.little else ">H", self.data, self.pos)[0]
        where = (self.pos, self.little)
        self.pos += 2
        return where, value


def _ior_ports(data: bytearray) -> list[tuple[tuple[int, bool], int]]:
    """((offset, little-endian), port) of every IIOP address in an IOR."""
    out = []
    ior = _Cdr(data, 0, len(data))
    ior.skip_sequence()  # type_id
    for _ in range(ior.ulong()):
        tag = ior.ulong()
        start, length = ior.skip_sequence()
        if tag != TAG_INTERNET_IOP:
            continue
        profile = _Cdr(data, start, start + length)
        minor = data[profile.pos + 1]
        profile.pos += 2  # IIOP version major, minor
        profile.skip_sequence()  # host
        out.append(profile.port_at())
        if minor == 0:
            continue
        profile.skip_sequence()  # object key
        for _ in range(profile.ulong()):
            ctag = profile.ulong()
            cstart, clength = profile.skip_sequence()
            if ctag == TAG_ALTERNATE_IIOP_ADDRESS:
                component = _Cdr(data, cstart, cstart + clength)
                component.skip_sequence()
                out.append(component.port_at())
    return out


# Readers of endpoints that are not text, by the name a family's port_reader gives: (port_of, with_port).
PORT_READERS: dict[str, tuple[Callable[[str], int], Callable[[str, int, int], str]]] = {
    "ior": (_ior_port_of, _ior_with_port),
}
