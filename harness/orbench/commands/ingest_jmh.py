"""`orbench ingest-jmh FILE...`: copy JMH result files (one per Java ORB) into results/jmh/<run-id>/."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from orbench.hosts.environment import collect_environment
from orbench.summary.jmh import ingest, rows

NAME = "ingest-jmh"
HELP = "copy JMH JSON result files (one per Java ORB) into results/jmh/<run-id>/ for the report"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="JMH result file (-rf json)")
    p.add_argument("--results", metavar="DIR", help="results store (default: results/ in the checkout)")


def run(args: argparse.Namespace) -> int:
    store = ingest([Path(f) for f in args.files], collect_environment(),
                   Path(args.results) if args.results else None)
    for r in rows(json.loads((store.path / "jmh.json").read_text())):
        params = ",".join(f"{k}={v}" for k, v in r["params"].items())
        alloc = "" if r["alloc_bytes_per_op"] is None else f"  {r['alloc_bytes_per_op']:.1f} B/op"
        print(f"{r['benchmark']:<40} {params:<26} {r['score']:>12.3f} {r['unit']}{alloc}")
    print(f"jmh results: {store.path}")
    return 0
