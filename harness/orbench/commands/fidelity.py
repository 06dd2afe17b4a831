"""`orbench fidelity` (`make bench-fidelity`): the command line of the fidelity experiment (running/fidelity.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from orbench.results.store import RunStore
from orbench.running.fidelity import ROWS, SIZES, format_result, format_stability, read_fidelity, run_fidelity
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
                   help="launches per row at every size: fresh processes on both sides, the interval is over them "
                        "(default 6: from 6 the ratio gets a 95%% interval); the rows take turns launch by launch, "
                        "in a fresh random order each round")
    p.add_argument("--seed", type=int,
                   help="seed of the rows' order (default: a fresh one, kept in fidelity.json)")
    p.add_argument("--max-pairs", type=int, default=12,
                   help="then, at the sizes whose verdict is still open, more launches three at a time up to this "
                        "many (default 12: at 9 and 12 the interval leaves one more launch out at each end); "
                        "--max-pairs equal to --pairs turns this off")
    p.add_argument("--max-minutes", type=float, default=20.0,
                   help="no batch of more launches starts that would end the run past this many minutes, judged by "
                        "the row's own time so far (default 20; 0: no limit)")
    p.add_argument("--slices", type=int, default=8,
                   help="per size and launch: paired trials, in each of which orbench and the reference take turns "
                        "(ABBA, the campaigns' sliced design); a launch's ratio is the median of its trials' "
                        "(default 8; one more trial per size reads the anatomy in the first launch, whole and unpaired)")
    p.add_argument("--calls", type=int, default=1000, help="timed calls per trial, each side (default 1000)")
    p.add_argument("--slice-calls", type=int, default=500,
                   help="calls per slice: a trial's calls alternate between the sides in slices of this many "
                        "(default 500: a few ms at 1 B, well under the host's speed phases)")
    p.add_argument("--slice-rewarm", type=int, default=20,
                   help="untimed calls before each slice after a trial's first, each side (default 20)")
    p.add_argument("--warmup", type=int, default=1000,
                   help="untimed calls before a launch's first trial at a size, each side (default 1000, as the "
                        "campaigns)")
    p.add_argument("--jvm-warmup", type=int, default=10000,
                   help="the same on a JVM, where the JIT compiles the calls' path (default 10000, as the campaigns)")
    p.add_argument("--rewarm", type=int, default=200,
                   help="untimed calls before every later trial's first slice (default 200)")
    p.add_argument("--awake-cpus", action="store_true",
                   help="keep the pinned CPUs from halting while both sides run (a SCHED_IDLE busy loop on each, "
                        "as the campaign key awake_cpus): the floor of a machine tuned for latency")
    p.add_argument("--compare", nargs=2, metavar="RUN",
                   help="run nothing: read two fidelity runs (directories, or run ids in the results store) and say "
                        "per cell whether each decided it, and whether an open cell's ratio is stable between them "
                        "(each run's estimate inside the other's interval)")
    p.add_argument("--results", metavar="DIR", help="results store (default: results/ in the checkout)")


def run(args: argparse.Namespace) -> int:
    root = Path(args.results) if args.results else None
    if args.compare:
        print(format_stability(*(read_fidelity(run, root) for run in args.compare)))
        return 0
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else SIZES
    rows = tuple(args.rows.split(",")) if args.rows else tuple(ROWS)
    store, result = run_fidelity(sizes, placement=args.placement.split(","), pairs=args.pairs, slices=args.slices,
                                 calls=args.calls, warmup=args.warmup, jvm_warmup=args.jvm_warmup, rewarm=args.rewarm,
                                 slice_calls=args.slice_calls, slice_rewarm=args.slice_rewarm,
                                 rows=rows, awake_cpus=args.awake_cpus,
                                 max_pairs=args.max_pairs, max_minutes=args.max_minutes or None, root=root,
                                 seed=args.seed)
    for comp in result["comparisons"]:  # each row's campaign runs get their summary.json like any run
        for run_dir in comp["runs"]:
            write_summary(RunStore(store.path / run_dir))
    print(format_result(result))
    print(f"results: {store.path}")
    return 0
