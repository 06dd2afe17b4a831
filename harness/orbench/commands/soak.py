"""`orbench soak TARGET --duration 24h`, `orbench soak FILE`, `orbench soak --resume RUN_DIR`: a shortcut for a
campaign of one soak point (campaign key duration_s) of a target for a duration, one histogram per interval,
written as it closes (harness/campaigns/README.md, "Soak runs"). `orbench run` runs any soak campaign the same
way, on remote host pairs too."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from orbench.campaign.duration import parse_duration
from orbench.campaign.soakfile import SoakSettings, load_soak_file, soak_campaign
from orbench.campaign.spec import Campaign, campaign_from_manifest
from orbench.commands.common import add_jdk_option, interrupt_on_signals, make_report
from orbench.errors import UserError
from orbench.paths import campaigns_dir
from orbench.results.soak import soak_records
from orbench.results.store import RunStore, open_run
from orbench.running.runner import Runner
from orbench.targets.descriptor import get_target, read_targets

NAME = "soak"
HELP = ("one target for a duration (hours) at a fixed rate or closed loop: one histogram per interval, written "
        "as it closes, with the workers' memory and CPU")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", nargs="?", help="a target name (orbench targets), or a soak file "
                   "(harness/campaigns/tine.toml, or its name: tine)")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue a soak that stopped early: the intervals it kept "
                   "stay, the rest of the duration runs, the gap is recorded")
    p.add_argument("--duration", help="how long (with a target): 24h, 90m, 45s, 1h30m")
    p.add_argument("--interval", default="10s", help="one histogram per interval (default 10s)")
    p.add_argument("--rate", type=float, default=0.0, help="calls per second per client (default 0: closed loop)")
    p.add_argument("--arrivals", choices=["fixed", "poisson"], default="fixed", help="with --rate: how calls are spaced")
    p.add_argument("--seed", type=int, help="Poisson arrivals: the seed (client k gets seed + k)")
    p.add_argument("--clients", type=int, default=1, help="client workers against one server (default 1)")
    p.add_argument("--mode", default="twoway", choices=["twoway", "oneway", "echo"], help="the calls (default twoway)")
    p.add_argument("--payload-bytes", type=int, default=64, help="payload size in bytes (default 64)")
    p.add_argument("--placement", default="same-core", choices=["same-core", "split-core", "unpinned"],
                   help="CPU placement of the two workers (default same-core)")
    p.add_argument("--name", default="soak", help="results go to results/NAME/<run-id>/ (default soak)")
    p.add_argument("--results", metavar="DIR", help="results store (default: results/ in the checkout)")
    p.add_argument("--no-report", action="store_true", help="skip figures and report.html")
    add_jdk_option(p, "run a Java target on this JDK")


def _plan(args: argparse.Namespace) -> Campaign:
    """The one-point soak campaign of a target and the flags, or of a soak file."""
    spec = args.target
    if spec not in read_targets() and (spec.endswith(".toml") or (campaigns_dir() / f"{spec}.toml").exists()):
        if args.duration:
            raise UserError(f"soak file {spec}: its settings are in the file; give no --duration")
        soak = load_soak_file(Path(spec) if spec.endswith(".toml") else campaigns_dir() / f"{spec}.toml")
        return soak_campaign(soak.path, soak.name, soak.description, [t.name for t in soak.targets], soak.settings,
                             jdk=args.jdk)
    if not args.duration:
        raise UserError("orbench soak TARGET needs --duration (24h, 90m, 45s), or give a soak file")
    try:
        duration = parse_duration(args.duration)
        interval = parse_duration(args.interval)
    except ValueError as exc:
        raise UserError(f"--duration/--interval: {exc}") from None
    settings = SoakSettings(duration_s=duration, interval_s=min(interval, duration), rate_hz=args.rate,
                            arrivals=args.arrivals, clients=args.clients, mode=args.mode,
                            payload_bytes=args.payload_bytes, placement=args.placement, seed=args.seed)
    settings.check(get_target(spec))
    return soak_campaign(Path(f"orbench soak {spec}"), args.name, f"soak of {spec}", [spec], settings, jdk=args.jdk)


def run_soak_campaign(campaign: Campaign, store: RunStore, resume: bool, report: bool = True) -> int:
    """Runs a campaign of soak points (`orbench soak`, or `orbench run` of a campaign with duration_s): exit
    status 0 when every soak finished, 1 when one failed, 130 when interrupted."""
    runner = Runner(campaign, store, argv=sys.argv, resume=resume)
    interrupt_on_signals()
    try:
        runner.run()
    except UserError:
        if not resume:
            store.remove_if_empty()
        raise
    except KeyboardInterrupt:
        print(f"\norbench: interrupted; every closed interval is kept in {store.path}; to finish the soak: "
              f"orbench soak --resume {store.path}", file=sys.stderr)
        return 130
    if report:
        make_report(store.path, "soak_report")
    status = 0
    for record in soak_records(store.read_manifest()):
        for k, answer in record.answers.items():
            if answer.get("ok"):
                print(f"{record.point.label} client {k}: {answer['calls']} calls, p50 {answer['p50_ns'] / 1000:.1f} "
                      f"us, p99.9 {answer['p999_ns'] / 1000:.1f} us, max {answer['max_ns'] / 1000:.1f} us, "
                      f"deadline misses {answer.get('deadline_misses', '-')}")
        for k, why in record.failures.items():
            print(f"orbench: soak of {record.point.label}, client {k}: {why}", file=sys.stderr)
        if record.status not in ("finished", "skipped"):
            status = 1
    print(f"results: {store.path}")
    return status


def run(args: argparse.Namespace) -> int:
    if args.resume:
        if args.target or args.duration:
            raise UserError("--resume RUN_DIR takes the soak's own settings: give no target and no --duration")
        store = open_run(args.resume)
        manifest = store.read_manifest()
        if manifest.get("kind") != "soak":
            raise UserError(f"{store.path}: not a soak run (orbench run --resume finishes a campaign)")
        campaign = campaign_from_manifest(manifest, store.path)
    elif not args.target:
        raise UserError("give a target or a soak file, or --resume RUN_DIR")
    else:
        campaign = _plan(args)
        store = RunStore.create(campaign.name, Path(args.results) if args.results else None)
    return run_soak_campaign(campaign, store, bool(args.resume), report=not args.no_report)
