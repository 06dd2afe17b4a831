"""`orbench history`: results/index.html, every run and each point's trend, rebuilt from the results directory."""

from __future__ import annotations

import argparse
from pathlib import Path

from orbench.commands.common import plots_entry, plots_missing
from orbench.errors import UserError
from orbench.paths import results_dir

NAME = "history"
HELP = ("results/index.html: every run, and per point its p50 and ORB-added latency run after run (a counting "
        "run's instructions per call per worker), moves flagged as compare flags them")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--results", metavar="DIR", help="results store (default: results/ in the checkout)")


def run(args: argparse.Namespace) -> int:
    results = Path(args.results) if args.results else results_dir()
    if not results.is_dir():
        raise UserError(f"no results directory at {results}")
    make_history_page = plots_entry("history")
    if make_history_page is None:
        raise UserError(plots_missing("history page"))
    print(f"history: {make_history_page(results)}")
    return 0
