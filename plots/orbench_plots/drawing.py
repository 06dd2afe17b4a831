"""Figures laid out and written in forked children while the report goes on building the next ones.

Laying out and rasterising a figure is most of a report's time (a quick run's 16 figures: 5.9 s in savefig and
3.8 s in tight_layout of 12 s under a profiler, 2-vCPU VM), and each figure is independent once built. A child
forked after the figure is built has it already in memory (nothing to pickle) and only draws and writes it.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

# The drawing children alive at once: one per CPU, the parent building the next figure beside them.
MAX_CHILDREN = max(1, os.cpu_count() or 1)


class DrawingFailed(RuntimeError):
    """A child could not write its figure (its traceback went to stderr)."""


class _Children:
    def __init__(self, limit: int):
        self.limit = limit
        self.running: dict[int, Path] = {}
        self.failed: list[Path] = []

    def submit(self, draw: Callable[[], None], path: Path) -> None:
        while len(self.running) >= self.limit:
            self._reap_one()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: draw, write, and leave without running the parent's exit handlers
            code = 0
            try:
                draw()
            except BaseException:  # noqa: BLE001 - whatever it was, the parent must hear of it
                traceback.print_exc()
                code = 1
            finally:
                sys.stderr.flush()
                os._exit(code)
        self.running[pid] = path

    def _reap_one(self) -> None:
        # The oldest child by pid, never any child: the harness's own subprocesses are not ours to reap.
        pid = next(iter(self.running))
        _, status = os.waitpid(pid, 0)
        path = self.running.pop(pid)
        if os.waitstatus_to_exitcode(status) != 0 or not path.exists():
            self.failed.append(path)

    def wait_all(self) -> None:
        while self.running:
            self._reap_one()


_active: _Children | None = None


@contextmanager
def drawing_in_parallel(limit: int = MAX_CHILDREN) -> Iterator[None]:
    """Inside it, draw() hands each figure to a forked child; on leaving, every child has finished, and a
    figure that was not written raises DrawingFailed naming it. Without it (or on a system without fork),
    draw() draws in this process."""
    global _active
    if _active is not None or not hasattr(os, "fork") or limit < 1:
        yield
        return
    _active = children = _Children(limit)
    try:
        yield
    finally:
        _active = None
        children.wait_all()
    if children.failed:
        raise DrawingFailed("could not write " + ", ".join(str(p) for p in children.failed))


def draw(work: Callable[[], None], path: Path) -> None:
    """Run `work` (lay out and write the figure at `path`) in a child when drawing_in_parallel is on, else here."""
    if _active is None:
        work()
    else:
        _active.submit(work, path)
