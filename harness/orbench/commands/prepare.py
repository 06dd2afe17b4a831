"""`orbench prepare INVENTORY`: make an Ansible inventory's hosts ready for orbench's targets (Debian
packages, a JVM, the workers and their jars), through ansible-playbook; --check shows what it would change."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from orbench.errors import UserError
from orbench.hosts.prepare import run_playbook
from orbench.hosts.readiness import unavailable_reason
from orbench.targets.descriptor import read_targets

NAME = "prepare"
HELP = "make an Ansible inventory's hosts ready for the targets (packages, a JVM, the workers), via ansible-playbook"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("inventory", help="an Ansible inventory: a file or a directory (as ansible-playbook -i takes)")
    p.add_argument("--limit", metavar="PATTERN", help="only these hosts: a group, a host, any Ansible pattern")
    p.add_argument("--check", action="store_true", help="change nothing: show what each host would change")
    p.add_argument("--targets", metavar="A,B", help="the targets to prepare for (default: every target built here)")
    p.add_argument("-q", "--quiet", action="store_true", help="hide ansible-playbook's own output")


def run(args: argparse.Namespace) -> int:
    every = read_targets()
    if args.targets:
        names = [n.strip() for n in args.targets.split(",") if n.strip()]
        unknown = [n for n in names if n not in every]
        if unknown:
            raise UserError(f"--targets: unknown target(s) {', '.join(unknown)} (known: {', '.join(sorted(every))})")
        targets = [every[n] for n in names]
        not_here = {t.name: why for t in targets if (why := unavailable_reason(t))}
        if not_here:
            raise UserError("--targets: cannot prepare for targets this machine cannot run: "
                            + "; ".join(f"{n}: {w}" for n, w in not_here.items()))
    else:
        targets = [t for t in every.values() if unavailable_reason(t) is None]
    devnull = open("/dev/null", "w") if args.quiet else None
    try:
        outcome = run_playbook(Path(args.inventory), targets, args.limit, args.check,
                               devnull.fileno() if devnull else None)
    finally:
        if devnull:
            devnull.close()
    print(f"orbench prepare{' --check' if args.check else ''}: {len(outcome.hosts)} host(s), "
          f"targets {', '.join(t.name for t in targets)}")
    for line in outcome.lines(args.check):
        print(f"  {line}")
    if outcome.returncode != 0:
        print(f"orbench: ansible-playbook exited {outcome.returncode}", file=sys.stderr)
        return 1
    return 0
