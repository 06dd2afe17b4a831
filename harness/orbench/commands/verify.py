"""`orbench verify [RUN...]`: check runs the way `git fsck` checks a repository, and print what is damaged."""

from __future__ import annotations

import argparse
from pathlib import Path

from orbench.commands.common import RUN_ARGUMENT_HELP
from orbench.errors import UserError
from orbench.paths import results_dir
from orbench.results.store import RunStore, open_run
from orbench.results.verify import runs_under, verify_run
from orbench.summary.summary import summary_file_damage

NAME = "verify"
HELP = ("check runs for damage (a trials.csv row cut short or edited, a samples file missing, cut short, changed "
        "or holding latencies no clock gives, a broken manifest or summary.json); exit status 1 if any")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="*", metavar="RUN",
                   help=f"{RUN_ARGUMENT_HELP}, or a directory holding runs (default: every run under results/)")


def run(args: argparse.Namespace) -> int:
    if not args.runs and not results_dir().is_dir():
        raise UserError(f"no results directory at {results_dir()}")
    runs = [r for spec in (args.runs or [str(results_dir())]) for r in _runs(spec)]
    damaged = 0
    for path in runs:
        check = verify_run(path)
        summary = None if check.fatal else summary_file_damage(RunStore(path))
        if summary:
            check.damage.append(summary)
        damaged += check.damaged
        print("\n".join(check.lines()))
    if len(runs) > 1:
        print(f"{len(runs)} runs checked, {damaged} damaged")
    return 1 if damaged else 0


def _runs(spec: str) -> list[Path]:
    """A run (also one that lost its manifest), a campaign's latest run, or every run under a directory."""
    path = Path(spec)
    if not path.is_dir() or (path / "latest").exists():
        return [open_run(spec).path]
    if any((path / name).exists() for name in ("manifest.json", "trials.csv", "samples")):
        return [path.resolve()]
    found = runs_under(path)
    if not found:
        raise UserError(f"{path}: no run directory (one with a manifest.json) under it")
    return found
