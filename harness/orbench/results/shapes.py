"""Invocation shapes (harness/PROTOCOL.md, "Invocation shapes"): how a call is made or what it carries besides
the `in` argument of the static stub's call. One point dimension (point.py: `shape`); this module holds what
each shape is: its name, the modes it combines with, the payload types it takes and what its baseline is."""

from __future__ import annotations

import re
from dataclasses import dataclass

IN = "in"
# "ami-N": asynchronous calls with N replies outstanding; N from 1 to this.
MAX_OUTSTANDING = 256
_AMI = re.compile(r"^ami-([1-9][0-9]*)$")


@dataclass(frozen=True)
class ShapeKind:
    """What a kind of shape is. `modes`: the run modes it combines with; `payload_types`: those it takes (empty:
    every one); `carries`: what crosses each way, for PROTOCOL.md and the report; `against`: a shape it is also
    compared with, besides `in` (the summary's shape_costs)."""

    name: str
    modes: tuple[str, ...]
    payload_types: tuple[str, ...]
    carries: str
    against: str | None = None


KINDS: dict[str, ShapeKind] = {k.name: k for k in (
    ShapeKind("in", ("twoway", "oneway", "echo"), (), "the static stub's call: send/push/echo"),
    ShapeKind("out", ("twoway",), (), "a count in, the payload back as an out argument"),
    ShapeKind("return", ("twoway",), (), "a count in, the payload back as the return value"),
    ShapeKind("inout", ("twoway",), (), "the payload in, another payload of its size back in the same argument"),
    ShapeKind("exception", ("twoway",), (), "the payload in, a user exception back on every call"),
    ShapeKind("wstring", ("twoway", "echo"), ("strings",), "the strings payload as IDL wstrings"),
    ShapeKind("dii", ("twoway", "echo"), (), "send/echo made through the dynamic invocation interface"),
    ShapeKind("dsi", ("twoway", "echo"), (), "send/echo served by a dynamic skeleton servant"),
    ShapeKind("collocated", ("twoway", "echo"), (), "send/echo to a servant in the client's own process"),
    ShapeKind("ami", ("twoway", "echo"), (), "send/echo as asynchronous calls, N replies outstanding"),
    # Promise pipelining (Cap'n Proto): peer() returns a reference, and send is called on it before peer()'s
    # reply has come, both in one round trip; chained is the same two calls one after the other, two round
    # trips: the pair is what pipelining saves.
    ShapeKind("pipelined", ("twoway",), (), "peer() and send on its result, sent together: one round trip",
              against="chained"),
    ShapeKind("chained", ("twoway",), (), "peer(), its reply, then send on its result: two round trips"),
)}


def kind_of(shape: str) -> ShapeKind:
    """The kind of a shape name ("ami-8" is an "ami"); ValueError for a name that is none."""
    if _AMI.match(shape):
        return KINDS["ami"]
    if shape in KINDS and shape != "ami":
        return KINDS[shape]
    raise ValueError(f"unknown shape {shape!r} (known: {', '.join(known_names())})")


def known_names() -> list[str]:
    return [n if n != "ami" else "ami-N" for n in KINDS]


def outstanding(shape: str) -> int:
    """The replies an AMI shape keeps outstanding; 1 for every other shape (one call at a time)."""
    match = _AMI.match(shape)
    return int(match.group(1)) if match else 1


def check_shape(shape: str) -> None:
    """ValueError naming the problem when `shape` is not a shape name."""
    kind_of(shape)
    if outstanding(shape) > MAX_OUTSTANDING:
        raise ValueError(f"shape {shape!r}: at most {MAX_OUTSTANDING} outstanding replies")


def combines(shape: str, mode: str, payload_type: str) -> bool:
    """Whether a point of this shape, mode and payload type exists (a campaign makes only these)."""
    kind = kind_of(shape)
    return mode in kind.modes and (not kind.payload_types or payload_type in kind.payload_types)


def claims(claimed: tuple[str, ...], shape: str) -> bool:
    """Whether a target claiming `claimed` (descriptor [supports] shapes) runs `shape`: "ami" claims every
    ami-N."""
    return shape in claimed or (kind_of(shape).name == "ami" and "ami" in claimed)


def baseline_shape(shape: str, mode: str) -> tuple[str, str] | None:
    """(shape, mode) of the socket baseline's point an ORB point of this shape is paired with, or None when no
    socket call is like it. A socket baseline makes only the `in` call; it sends the same bytes each way where it
    can: inout's payload both ways is its echo; out and return carry the payload in the reply only, the reverse
    of its twoway, which crosses the same bytes; exception's reply is small, as its twoway's. A collocated call
    crosses no socket: no baseline."""
    kind = kind_of(shape).name
    if kind == "collocated":
        return None
    if kind == "inout":
        return IN, "echo"
    return IN, mode


def payload_types_of(shape: str, campaign_types: list[str], campaign_shapes: list[str]) -> list[str]:
    """The payload types a campaign runs `shape` at: its own payload types, except that wstring runs at strings
    (the only type it takes), with the in call at strings beside it as its reference, whether or not the
    campaign lists strings."""
    kind = kind_of(shape).name
    if kind == "wstring":
        return ["strings"]
    if kind == IN and "wstring" in campaign_shapes and "strings" not in campaign_types:
        return [*campaign_types, "strings"]
    return list(campaign_types)
