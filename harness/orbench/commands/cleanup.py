"""`orbench cleanup RUN`: end every worker a run may have left on its remote hosts (unreachable at its end)."""

from __future__ import annotations

import argparse
import sys

from orbench.campaign.spec import campaign_from_manifest
from orbench.commands.common import RUN_ARGUMENT_HELP
from orbench.hosts.remote import HostSet
from orbench.results.store import open_run

NAME = "cleanup"
HELP = "end every worker a run may have left on its remote hosts"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help=RUN_ARGUMENT_HELP)


def run(args: argparse.Namespace) -> int:
    store = open_run(args.run)
    campaign = campaign_from_manifest(store.read_manifest(), store.path)
    hosts = HostSet(campaign.host_pairs(), campaign.ssh_settings(), campaign.name, store.run_id)
    try:
        warnings = hosts.sweep_all()
    finally:
        hosts.close()
    for w in warnings:
        print(f"orbench: {w}", file=sys.stderr)
    print(f"orbench: {len(hosts.remote)} remote host(s) checked; "
          f"{'some unreachable' if any('could not' in w for w in warnings) else 'no worker left'}")
    return 1 if any("could not" in w for w in warnings) else 0
