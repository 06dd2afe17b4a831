"""`orbench targets`: which targets exist, and whether each can run here (and why not)."""

from __future__ import annotations

import argparse

from orbench.commands.common import add_jdk_option, java_of
from orbench.hosts.readiness import unavailable_reason
from orbench.targets.descriptor import read_targets

NAME = "targets"
HELP = "list targets and whether each is available here (and why not)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-v", "--verbose", action="store_true", help="also show description, modes and payload types")
    add_jdk_option(p)


def run(args: argparse.Namespace) -> int:
    java = java_of(args)
    targets = {name: t.with_java(java) for name, t in read_targets().items()}
    width = max(len(n) for n in targets)
    for name, t in sorted(targets.items(), key=lambda kv: (kv[1].kind, kv[0])):
        why = unavailable_reason(t)
        state = "available" if why is None else f"MISSING: {why}"
        base = f" vs {t.baseline}" if t.baseline else ""
        print(f"{name:<{width}}  {t.kind:<6} {t.language:<4}{base:<16}  {state}")
        if args.verbose:
            print(f"{'':<{width}}  {t.description}; modes {', '.join(t.modes)}; "
                  f"payloads {', '.join(t.payload_types)}")
    return 0
