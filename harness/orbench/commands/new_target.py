"""`orbench new-target NAME --like TARGET | --language LANG`: a starting descriptor for a new target, and what to
do next."""

from __future__ import annotations

import argparse
from pathlib import Path

from orbench.targets.new_target import new_target

NAME = "new-target"
HELP = "start a target descriptor from the closest existing one"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="the new target's name (lower-case, digits, '-')")
    p.add_argument("--like", metavar="TARGET", help="the existing target to copy, e.g. jacorb")
    p.add_argument("--language", metavar="LANG",
                   help="copy the closest target of this language instead (harness/targets/languages.toml), e.g. python")
    p.add_argument("--kind", default="orb", choices=("orb", "socket"), help="with --language: what it is (default orb)")
    p.add_argument("--family", help="an orb target's middleware family (harness/targets/families.toml); default: the"
                                    " copied target's, or for a copy of a family's own target (ice-cpp), the new"
                                    " name's (thrift-cpp: thrift)")
    p.add_argument("--dir", help="where to write NAME.toml (default: harness/targets/)")


def run(args: argparse.Namespace) -> int:
    path, steps = new_target(args.name, args.like, Path(args.dir) if args.dir else None, args.language, args.kind,
                             args.family)
    print(f"wrote {path}\nnext:")
    for i, step in enumerate(steps, 1):
        print(f"  {i}. {step}")
    return 0
