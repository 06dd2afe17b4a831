"""`make reference`: a finished run becomes the reference result set (results/reference/), and README.md's figures
block is written from it.

    python -m orbench_guide.make_reference RUN_DIR [--machine "what the machine is"] [--anyway]

A run that shared the machine with other work, made one launch only (a campaign's first run on a machine may be
only its budget's pilot) or ran a tree with uncommitted changes is refused; --anyway makes it the reference all the
same, and the reference says why it was not fit.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from orbench.errors import UserError

from orbench_guide.readme import update_readme
from orbench_guide.reference_set import write_reference


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m orbench_guide.make_reference", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", help="a finished run's directory (results/middleware/latest)")
    parser.add_argument("--machine", default="", help="what the machine is, as the guide names it (default: from "
                        "the run's recorded environment)")
    parser.add_argument("--anyway", action="store_true", help="make it the reference even if it is not fit (the "
                        "reference states why)")
    args = parser.parse_args(argv)
    try:
        ref = write_reference(Path(args.run), args.machine, anyway=args.anyway)
        update_readme(ref)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"results/reference/: {ref.source}; README.md's figures updated from it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
