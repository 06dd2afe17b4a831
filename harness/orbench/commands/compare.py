"""`orbench compare RUN_A RUN_B`: the same points of two runs side by side: the machine's drift, and the changes
beyond it flagged (summary/compare.py)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from orbench.results.store import open_run
from orbench.summary.compare import compare_runs, format_comparison

NAME = "compare"
HELP = ("the same points of two runs side by side: machine drift, and the changes beyond it flagged (Welch and "
        "Wilcoxon-Mann-Whitney tests, Benjamini-Hochberg across rows)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_a", metavar="RUN_A", help="the reference run (directory, results/<campaign> or name)")
    p.add_argument("run_b", metavar="RUN_B", help="the run compared with it")
    p.add_argument("--json", metavar="FILE", help="also write the comparison as JSON")


def run(args: argparse.Namespace) -> int:
    result = compare_runs(open_run(args.run_a), open_run(args.run_b))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    print(format_comparison(result))
    if not result["points"] and not result["instructions"]:
        print("orbench: the two runs have no point in common", file=sys.stderr)
        return 1
    return 0
