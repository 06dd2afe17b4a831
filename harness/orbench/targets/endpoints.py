"""The server port in a ready line's endpoint, and the same endpoint with another port (a relay's).

Forms (PROTOCOL.md): `tcp://HOST:PORT` (socket baselines), `grpc://HOST:PORT`, a stringified Ice proxy
(`... -p PORT ...`) and a stringified CORBA IOR, whose IIOP profiles are CDR encapsulations: the port is a
ushort after the host string, in the profile and in any TAG_ALTERNATE_IIOP_ADDRESS component.
"""

from __future__ import annotations

import re
import struct

TAG_INTERNET_IOP = 0
TAG_ALTERNATE_IIOP_ADDRESS = 3
_URL = re.compile(r"^(tcp|grpc)://(\S+):(\d+)$")
_ICE_PORT = re.compile(r"(-p\s+)(\d+)")


class EndpointError(ValueError):
    """An endpoint whose server port cannot be found."""


def port_of(endpoint: str) -> int:
    if m := _URL.match(endpoint):
        return int(m.group(3))
    if endpoint.startswith("IOR:"):
        ports = [port for _, port in _ior_ports(bytearray.fromhex(endpoint[4:]))]
        if not ports:
            raise EndpointError(f"no IIOP profile in {endpoint[:60]}...")
        return ports[0]
    if m := _ICE_PORT.search(endpoint):
        return int(m.group(2))
    raise EndpointError(f"no port in endpoint {endpoint[:80]!r}")


def with_port(endpoint: str, port: int) -> str:
    """The endpoint with its server port (every occurrence of it) replaced by `port`."""
    old = port_of(endpoint)
    if m := _URL.match(endpoint):
        return f"{m.group(1)}://{m.group(2)}:{port}"
    if endpoint.startswith("IOR:"):
        data = bytearray.fromhex(endpoint[4:])
        for (offset, little), value in _ior_ports(data):
            if value == old:
                data[offset:offset + 2] = struct.pack("<H" if little else ">H", port)
        return "IOR:" + data.hex()
    return _ICE_PORT.sub(lambda m: m.group(1) + str(port) if int(m.group(2)) == old else m.group(0), endpoint)


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
