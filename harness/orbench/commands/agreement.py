"""`orbench agreement RUN RUN ...`: do the numbers reproduce across runs of the same build
(summary/agreement.py)."""

from __future__ import annotations

import argparse

from orbench.errors import UserError
from orbench.results.store import open_run
from orbench.summary.agreement import agreement, format_agreement

NAME = "agreement"
HELP = ("do the numbers reproduce: over runs of the same build, how often one run's ORB-added interval holds "
        "another's estimate (cross-run capture), and the A/A compare false-alarm rate")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", metavar="RUN", nargs="+",
                   help="two or more runs of the same campaign and build (directories); A/A pairs are 1-2, 3-4, ...")


def run(args: argparse.Namespace) -> int:
    if len(args.runs) < 2:
        raise UserError("orbench agreement needs two runs or more")
    print(format_agreement(agreement([open_run(r) for r in args.runs])))
    return 0
