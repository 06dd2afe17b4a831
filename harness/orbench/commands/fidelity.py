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
        "size with its 95% interval over launches; within a launch the two sides alternate in short slices")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sizes", help="payload sizes, comma separated (default 1,16,128,1024,4096,16384,32168,65536)")
    p.add_argument("--rows", help=f"comparisons, comma separated: {', '.join(ROWS)} (default all)")
    p.add_argument("--placement", default="same-core",
                   help="CPU placements, comma separated: same-core, split-core, unpinned (default same-core; "
                        "make bench-fidelity runs same-core,split-core)")
    p.add_argument("--pairs", type=int, default=6,
                   help="launches per row: fresh processes on both sides, the interval is over them (default 6: "
                        "from 6 the ratio gets a 95%% interval)")
    p.add_argument("--slices", type=int, default=20,
                   help="per size and launch: orbench trials, each followed by a reference run of as many calls on "
                        "the reference's open connection; a launch's ratio is the median of its slices' (default 20)")
    p.add_argument("--calls", type=int, default=1000,
                   help="timed calls per slice, each side (default 1000: tens of ms, under the host's speed phases)")
    p.add_argument("--warmup", type=int, default=10000,
                   help="untimed calls before a launch's first slice at a size, each side (default 10000)")
    p.add_argument("--rewarm", type=int, default=200, help="untimed calls before every later slice (default 200)")
    p.add_argument("--sockperf-seconds", type=float, default=1.0, help="length of each sockperf run (default 1)")
    p.add_argument("--awake-cpus", action="store_true",
                   help="keep the pinned CPUs from halting while both sides run (a SCHED_IDLE busy loop on each, "
                        "as the campaign key awake_cpus): the floor of a machine tuned for latency")
    p.add_argument("--results", metavar="DIR", help="results store (default: results/ in the checkout)")


def run(args: argparse.Namespace) -> int:
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else SIZES
    rows = tuple(args.rows.split(",")) if args.rows else tuple(ROWS)
    store, result = run_fidelity(sizes, placement=args.placement.split(","), pairs=args.pairs, slices=args.slices,
                                 calls=args.calls, warmup=args.warmup, rewarm=args.rewarm,
                                 sockperf_seconds=args.sockperf_seconds, rows=rows, awake_cpus=args.awake_cpus,
                                 root=Path(args.results) if args.results else None)
    for comp in result["comparisons"]:  # each row's campaign run gets its summary.json like any run
        write_summary(RunStore(store.path / comp["run"]))
    print(format_result(result))
    print(f"results: {store.path}")
    return 0
