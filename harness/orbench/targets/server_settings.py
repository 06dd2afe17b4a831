"""What a target's server is started with for a campaign's threading setting and number of objects
(harness/PROTOCOL.md, "Load servers"), in the middleware's own words, or why the target cannot do it.

A campaign names a setting as a descriptor's [threading] table does ("per-connection"), a sized one with its
size ("pool-16"), or "default" (the server as shipped: no arguments). The socket baselines and the known-answer
servers have one fixed model and no object keys: they run unchanged at every setting and every number of
objects (the floor an ORB's work is measured from is the same whatever the ORB is configured to do), and say
which model that is.
"""

from __future__ import annotations

from dataclasses import dataclass

from orbench.errors import UserError
from orbench.targets.descriptor import Target

# Kinds with one fixed server model that run unchanged at every threading setting and number of objects.
FIXED_MODEL_KINDS = ("socket", "known-answer")


class Unsupported(Exception):
    """The target cannot run this server setting; the message says why, in a line."""


@dataclass(frozen=True)
class ServerSetting:
    """The server arguments of one (threading, objects) and what they mean."""

    threading: str          # the campaign's name: "default", "pool-16"
    words: str              # the middleware's own words for it, for the manifest
    args: tuple[str, ...]   # appended to the server argv
    objects: int = 1

    def as_dict(self) -> dict:
        return {"threading": self.threading, "words": self.words, "args": list(self.args), "objects": self.objects}


def server_setting(target: Target, threading: str, objects: int) -> ServerSetting:
    """Raises Unsupported when the target has no such setting, or no objects and `objects` > 1."""
    fixed = target.kind in FIXED_MODEL_KINDS
    if threading == "default" or fixed:
        shipped = target.threading_choice(target.threading_default) if target.threading_default else None
        words = shipped.words if shipped else "as shipped"
        if fixed and threading != "default":
            words = f"{words} (its one model, whatever the setting)"
        args: tuple[str, ...] = ()
    else:
        try:
            choice = target.threading_choice(threading)
        except UserError:
            offered = ", ".join(["default", *target.threading_names(0)]).replace("-0", "-SIZE")
            raise Unsupported(f"{target.name} has no threading setting {threading!r} (it offers {offered})") from None
        words, args = choice.words, choice.args
    if objects > 1 and not fixed:
        if not target.objects:
            raise Unsupported(f"{target.name} serves no objects to choose from"
                              + (" (gRPC has services, not objects)" if target.family == "grpc" else ""))
        args += ("--objects", str(objects))
    return ServerSetting(threading, words, args, objects)
