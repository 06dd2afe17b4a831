"""`orbench export RUN`: a run's samples as CSV and as HdrHistogram interval logs, and its anatomy as CSV."""

from __future__ import annotations

import argparse
from pathlib import Path

from orbench.commands.common import RUN_ARGUMENT_HELP
from orbench.results.store import open_run
from orbench.summary.export import export_run

NAME = "export"
HELP = "a run's samples as CSV and as HdrHistogram interval logs, its anatomy of a call as CSV"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help=RUN_ARGUMENT_HELP)
    p.add_argument("--out", metavar="DIR", help="where to write (default: <run>/export)")


def run(args: argparse.Namespace) -> int:
    store = open_run(args.run)
    result = export_run(store, Path(args.out) if args.out else None)
    print(f"csv: {result['csv']} ({result['rows']} samples)")
    print(f"hdr: {len(result['hdr_logs'])} HdrHistogram log(s) in {Path(result['csv']).parent / 'hdr'}")
    if result["anatomy_csv"]:
        print(f"anatomy: {result['anatomy_csv']} ({result['anatomy_rows']} points)")
    return 0
