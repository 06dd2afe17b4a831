"""A report replaces nothing until it is whole: its figures are drawn into a directory of their own, which takes
the place of figures/ only once every figure and the page are made; a failure leaves the old ones."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

FIGURES = "figures"


@contextmanager
def staged_figures(run_dir: Path) -> Iterator[Path]:
    """A fresh directory to draw the run's figures into; it becomes run_dir/figures when the block ends without
    an exception, and is removed when it raises."""
    staging = run_dir / f".{FIGURES}-{os.getpid()}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    final, old = run_dir / FIGURES, run_dir / f".{FIGURES}-{os.getpid()}.old"
    if final.exists():
        os.replace(final, old)
    os.replace(staging, final)
    shutil.rmtree(old, ignore_errors=True)


def final_path(path: Path, staging: Path) -> Path:
    """Where a figure drawn into the staging directory lives once it is figures/."""
    return staging.parent / FIGURES / path.relative_to(staging)
