"""Payload types and their elements (PROTOCOL.md, "Payload types"): element i is the same in every language."""

from __future__ import annotations

PAYLOAD_TYPES = ("octets", "records", "longs", "doubles", "strings")
UNIT_BYTES = {"octets": 1, "records": 16, "longs": 4, "doubles": 8, "strings": 16}
STRING_CHARS = 16


def element_count(payload_type: str, payload_bytes: int) -> int:
    """N bytes are N / unit elements, rounded down (1 B of records is an empty sequence)."""
    return payload_bytes // UNIT_BYTES[payload_type]


def counted_bytes(payload_type: str, payload_bytes: int) -> int:
    """What the server counts for such a payload: whole elements times the unit."""
    return element_count(payload_type, payload_bytes) * UNIT_BYTES[payload_type]


def octets(n: int) -> bytes:
    return bytes(i & 0xFF for i in range(n))


def record(i: int) -> tuple[int, float, int, int, int]:
    """(id, value, flags, kind, level), each wrapped to its IDL type's width as C++ and Java do."""
    return (_signed(i, 32), i * 0.5, _signed(i, 16), i & 0xFF, (i >> 8) & 0xFF)


def long_value(i: int) -> int:
    return _signed(i * 2654435761, 32)


def double_value(i: int) -> float:
    return i * 0.5 + 0.25


def string_value(i: int) -> str:
    return "".join(chr(ord("a") + (i + j) % 26) for j in range(STRING_CHARS))


def elements(payload_type: str, payload_bytes: int, first: int = 0) -> bytes | list:
    """The payload's elements as plain Python values (octets as bytes); a binding turns them into its types.
    `first` 1: elements 1.., the reply of the shapes out, return and inout (PROTOCOL.md, "Invocation shapes")."""
    n = element_count(payload_type, payload_bytes)
    if payload_type == "octets":
        return bytes((first + i) & 0xFF for i in range(n))
    make = {"records": record, "longs": long_value, "doubles": double_value, "strings": string_value}[payload_type]
    return [make(first + i) for i in range(n)]


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value
