"""`orbench targets`: which targets exist, and whether each can run here (and why not); with --host, whether
each can run on a host of an Ansible inventory that `orbench prepare` made ready."""

from __future__ import annotations

import argparse
from pathlib import Path

from orbench.commands.common import add_jdk_option, java_of
from orbench.errors import UserError
from orbench.hosts.readiness import unavailable_reason
from orbench.hosts.ssh import HostUnreachable
from orbench.targets.descriptor import read_targets

NAME = "targets"
HELP = "list targets and whether each is available here, or on a prepared host (and why not)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-v", "--verbose", action="store_true", help="also show description, modes and payload types")
    p.add_argument("--host", metavar="PATTERN", help="a host (or group) of the inventory: what it can run")
    p.add_argument("-i", "--inventory", metavar="INV", help="the Ansible inventory --host names hosts of")
    add_jdk_option(p)


def run(args: argparse.Namespace) -> int:
    if args.host:
        return _on_hosts(args)
    java = java_of(args)
    targets = {name: t.with_java(java) for name, t in read_targets().items()}
    width = max(len(n) for n in targets)
    lang_width = max(len(t.language) for t in targets.values())
    for name, t in sorted(targets.items(), key=lambda kv: (kv[1].kind, kv[0])):
        why = unavailable_reason(t)
        state = "available" if why is None else f"MISSING: {why}"
        base = f" vs {t.baseline}" if t.baseline else ""
        print(f"{name:<{width}}  {t.kind:<6} {t.language:<{lang_width}}{base:<18}  {state}")
        if args.verbose:
            print(f"{'':<{width}}  {t.description}; modes {', '.join(t.modes)}; "
                  f"payloads {', '.join(t.payload_types)}")
    return 0


def _on_hosts(args: argparse.Namespace) -> int:
    from orbench.hosts.inventory import read_inventory
    from orbench.hosts.prepare import host_problems

    if not args.inventory:
        raise UserError("--host: name the inventory too (-i INVENTORY)")
    specs = read_inventory(Path(args.inventory)).resolve(args.host)
    targets = read_targets()
    width = max(len(n) for n in targets)
    lang_width = max(len(t.language) for t in targets.values())
    down = 0
    for spec in specs:
        print(f"{spec.name} ({spec.url}):")
        try:
            problems = host_problems(spec, list(targets.values()))
        except HostUnreachable as exc:
            print(f"  UNREACHABLE: {exc}")
            down += 1
            continue
        for name, t in sorted(targets.items(), key=lambda kv: (kv[1].kind, kv[0])):
            found = problems[name]
            state = "available" if not found else f"MISSING: {'; '.join(found)}"
            print(f"  {name:<{width}}  {t.kind:<6} {t.language:<{lang_width}}  {state}")
    return 1 if down else 0
