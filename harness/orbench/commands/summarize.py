"""`orbench summarize RUN`: recompute summary.json of a run from its raw samples, and print its table."""

from __future__ import annotations

import argparse
import sys

from orbench.commands.common import RUN_ARGUMENT_HELP
from orbench.results.store import open_run
from orbench.summary.summary import write_summary
from orbench.summary.table import format_table

NAME = "summarize"
HELP = "recompute summary.json of a run from its raw samples"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help=RUN_ARGUMENT_HELP)


def run(args: argparse.Namespace) -> int:
    store = open_run(args.run)
    summary = write_summary(store)
    print(format_table(summary))
    for w in summary.warnings:
        print(f"warning: {w}", file=sys.stderr)
    print(f"summary: {store.summary_path}")
    return 0
