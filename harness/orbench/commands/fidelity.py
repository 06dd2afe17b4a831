"""`orbench fidelity` (`make bench-fidelity`): the command line of the fidelity experiment (running/fidelity.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from orbench.results.store import RunStore
from orbench.running.fidelity import ROWS, SIZES, format_result, run_fidelity
from orbench.summary.summary import write_summary

NAME = "fidelity"
HELP = ("orbench's workers against references doing the same calls (c-socket vs sockperf and a plain C ping-pong, "
        "java-socket and python-socket vs plain Java and Python ones, omniORB vs a bare omniORB loop), ratio per "
        "size with its 95% interval; every pair is fresh processes on both sides")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sizes", help="payload sizes, comma separated (default 1,16,128,1024,4096,16384,32168,65536)")
    p.add_argument("--rows", help=f"comparisons, comma separated: {', '.join(ROWS)} (default all)")
    p.add_argument("--placement", default="same-core",
                   help="CPU placements, comma separated: same-core, split-core, unpinned (default same-core; "
                        "make bench-fidelity runs same-core,split-core)")
    p.add_argument("--pairs", type=int, default=20,
                   help="pairs per size: an orbench launch's trial, then a reference run, fresh processes on both "
                        "sides (default 20; from 6 pairs the ratio gets a 95%% interval)")
    p.add_argument("--calls", type=int, default=10000, help="timed calls per orbench trial and omniORB loop run")
    p.add_argument("--warmup", type=int, default=20000,
                   help="untimed calls before each (~0.3-0.6 s, like the 400 ms sockperf leaves out; default 20000)")
    p.add_argument("--sockperf-seconds", type=float, default=1.0, help="length of each sockperf run (default 1)")
    p.add_argument("--awake-cpus", action="store_true",
                   help="keep the pinned CPUs from halting while both sides run (a SCHED_IDLE busy loop on each, "
                        "as the campaign key awake_cpus): the floor of a machine tuned for latency")
    p.add_argument("--results", metavar="DIR", help="results store (default: results/ in the checkout)")


def run(args: argparse.Namespace) -> int:
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else SIZES
    rows = tuple(args.rows.split(",")) if args.rows else tuple(ROWS)
    store, result = run_fidelity(sizes, placement=args.placement.split(","), pairs=args.pairs, calls=args.calls,
                                 warmup=args.warmup, sockperf_seconds=args.sockperf_seconds, rows=rows,
                                 awake_cpus=args.awake_cpus,
                                 root=Path(args.results) if args.results else None)
    for comp in result["comparisons"]:  # each row's campaign run gets its summary.json like any run
        write_summary(RunStore(store.path / comp["run"]))
    print(format_result(result))
    print(f"results: {store.path}")
    return 0
