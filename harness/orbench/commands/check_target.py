"""`orbench check-target NAME...`: run targets' real workers through the worker contract."""

from __future__ import annotations

import argparse

from orbench.commands.common import add_jdk_option, java_of
from orbench.hosts.readiness import unavailable_reason
from orbench.targets.conformance import STEP_GROUPS, Conformance, format_checks
from orbench.targets.descriptor import get_target

NAME = "check-target"
HELP = "run targets' real workers through the worker contract"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("names", nargs="+", metavar="NAME", help="target name(s), see `orbench targets`")
    p.add_argument("--host", default="127.0.0.1", help="address the server binds (default 127.0.0.1)")
    p.add_argument("--only", type=step_groups, metavar="GROUP[,GROUP...]",
                   help="run the main pair's steps and these groups of steps only: " + ", ".join(STEP_GROUPS))
    add_jdk_option(p)


def step_groups(text: str) -> frozenset[str]:
    groups = frozenset(g.strip() for g in text.split(",") if g.strip())
    unknown = sorted(groups - set(STEP_GROUPS))
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown group {unknown[0]!r} (known: {', '.join(STEP_GROUPS)})")
    return groups


def run(args: argparse.Namespace) -> int:
    failed = 0
    java = java_of(args)
    for name in args.names:
        target = get_target(name).with_java(java)
        checks = Conformance(target, host=args.host, only=args.only).run(unavailable_reason(target))
        print(format_checks(target, checks))
        failed += sum(not c.passed for c in checks)
    return 1 if failed else 0
