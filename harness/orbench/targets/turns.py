"""The harness's side of clients taking turns inside one `run` each (PROTOCOL.md, "Turns"): which client takes
which turn of a rotation of slices, each client's `turns` field, and the named pipes the turns pass through.
The sliced runner (running/slices.py) and check-target (turn_checks.py) both go through here.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

# One turn: the client that takes it (its index in the rotation) and the slices it runs, in order.
Turn = tuple[int, list[int]]


def turn_plan(members: int, orders: list[list[int]], sizes: list[int]) -> list[Turn]:
    """The slices in the order they run (`orders`: per slice, the order of the members; an index at or above
    `members` is no client and takes no turn), consecutive slices of one member merged into one turn. ABBA with
    two members: A | B B | A A | B ..."""
    turns: list[Turn] = []
    for k, order in enumerate(orders):
        for i in order:
            if i >= members or not sizes[k]:
                continue
            if turns and turns[-1][0] == i:
                turns[-1][1].append(k)
            else:
                turns.append((i, [k]))
    return turns


class TurnPipes:
    """A named pipe per client, in a directory of its own, held open read-write by the harness while the turns
    run: a pipe keeps a byte only while someone has it open, and a client may give the turn before the next one
    has opened its pipe. Use as a context manager; the pipes go with it."""

    def __init__(self, clients: int):
        self._dir = tempfile.mkdtemp(prefix="orbench-turns-")
        self.paths = [os.path.join(self._dir, str(i)) for i in range(clients)]
        self._held: list[int] = []
        for path in self.paths:
            os.mkfifo(path, 0o600)
            self._held.append(os.open(path, os.O_RDWR | os.O_NONBLOCK))

    def turns_field(self, plan: list[Turn], client: int, sizes: list[int], rewarm: int,
                    timeout_ms: int) -> dict[str, Any]:
        """Client `client`'s `turns` field: its turns' calls, and per turn the pipe of whoever goes next."""
        mine = [j for j, (who, _) in enumerate(plan) if who == client]
        return {"wait": self.paths[client],
                "give": [self.paths[plan[j + 1][0]] if j + 1 < len(plan) else "" for j in mine],
                "calls": [sum(sizes[k] for k in plan[j][1]) for j in mine],
                "rewarm": rewarm, "first": plan[0][0] == client, "timeout_ms": timeout_ms}

    def give(self, clients: list[int], turns: int = 1) -> None:
        """`turns` turns to each of `clients`: the end byte a client whose last turn handed on waits for, or,
        after a failure, every turn the others could still wait for."""
        for i in clients:
            os.write(self._held[i], b"t" * turns)

    def __enter__(self) -> TurnPipes:
        return self

    def __exit__(self, *exc: object) -> None:
        for fd in self._held:
            os.close(fd)
        shutil.rmtree(self._dir, ignore_errors=True)
