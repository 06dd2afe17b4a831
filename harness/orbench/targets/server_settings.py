"""What a target's server is started with for a campaign's threading setting and number of objects
(harness/PROTOCOL.md, "Load servers"), in the middleware's own words, or why the target cannot do it.

A campaign names a setting as a descriptor's [threading] table does ("per-connection"), a sized one with its
size ("pool-16"), or "default" (the server as shipped: no arguments). The socket baselines and the known-answer
servers have one fixed model and no object keys: they run unchanged at every setting and every number of
objects (the floor an ORB's work is measured from is the same whatever the ORB is configured to do), and say
which model that is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from orbench.targets.descriptor import Target, ThreadingSetting

# Kinds with one fixed server model that run unchanged at every threading setting and number of objects.
FIXED_MODEL_KINDS = ("socket", "known-answer")
_SIZED = re.compile(r"(.+)-([0-9]+)")


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


def find_setting(target: Target, name: str) -> tuple[ThreadingSetting, int | None] | None:
    """The descriptor's table a campaign name means, and its size for a sized one; None when it has none."""
    by_name = {s.name: s for s in target.threading}
    if name in by_name and not by_name[name].sized:
        return by_name[name], None
    match = _SIZED.fullmatch(name)
    if match and match.group(1) in by_name and by_name[match.group(1)].sized:
        return by_name[match.group(1)], int(match.group(2))
    return None


def offered(target: Target) -> str:
    """The names a campaign may use for the target's settings, for error messages."""
    names = [f"{s.name}-SIZE" if s.sized else s.name for s in target.threading]
    return ", ".join(["default", *names])


def server_setting(target: Target, threading: str, objects: int) -> ServerSetting:
    """Raises Unsupported when the target has no such setting, or no objects and `objects` > 1."""
    fixed = target.kind in FIXED_MODEL_KINDS
    if threading == "default" or fixed:
        shipped = find_setting(target, target.threading_default) if target.threading_default else None
        words = shipped[0].words if shipped else "as shipped"
        if fixed and threading != "default":
            words = f"{words} (its one model, whatever the setting)"
        args: tuple[str, ...] = ()
    else:
        found = find_setting(target, threading)
        if found is None:
            raise Unsupported(f"{target.name} has no threading setting {threading!r} (it offers {offered(target)})")
        setting, size = found
        fill = {"size": str(size)} if size is not None else {}
        words, args = setting.words.format(**fill), tuple(a.format(**fill) for a in setting.args)
    if objects > 1 and not fixed:
        if not target.objects:
            raise Unsupported(f"{target.name} serves no objects to choose from"
                              + (" (gRPC has services, not objects)" if target.family == "grpc" else ""))
        args += ("--objects", str(objects))
    return ServerSetting(threading, words, args, objects)
