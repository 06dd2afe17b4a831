"""`orbench report RUN`: (re)make the figures and report.html of a run."""

from __future__ import annotations

import argparse

from orbench.commands.common import RUN_ARGUMENT_HELP, make_report
from orbench.results.store import open_run

NAME = "report"
HELP = "make the figures and report.html of a run"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help=RUN_ARGUMENT_HELP)


def run(args: argparse.Namespace) -> int:
    store = open_run(args.run)
    kind = "soak_report" if store.read_manifest().get("kind") == "soak" else "report"
    # The plotting stage recomputes summary.json when it is missing or an older orbench wrote it.
    return 0 if make_report(store.path, kind) else 2
