"""`orbench soak TARGET --duration 24h`, `orbench soak FILE`, `orbench soak --resume RUN_DIR`: a target's workers
for a duration, one histogram per interval, written as it closes (harness/campaigns/README.md, "Soak runs")."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from orbench.commands.common import add_jdk_option, interrupt_on_signals, java_of, make_report
from orbench.errors import UserError
from orbench.paths import campaigns_dir
from orbench.results.store import RunStore, open_run
from orbench.running.soak.duration import format_duration, parse_duration
from orbench.running.soak.session import SoakSettings, run_soak, settings_of
from orbench.running.soak.soakfile import load_soak_file
from orbench.targets.descriptor import Target, get_target, read_targets

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
    p.add_argument("--mode", default="twoway", choices=["twoway", "oneway", "echo"])
    p.add_argument("--payload-bytes", type=int, default=64)
    p.add_argument("--placement", default="same-core", choices=["same-core", "split-core", "unpinned"])
    p.add_argument("--name", default="soak", help="results go to results/NAME/<run-id>/ (default soak)")
    p.add_argument("--results", metavar="DIR", help="results store (default: results/ in the checkout)")
    add_jdk_option(p, "run a Java target on this JDK")


def _plan(args: argparse.Namespace) -> tuple[str, list[tuple[Target, SoakSettings]]]:
    """(results name, [(target, settings)]) from a target and the flags, or from a soak file."""
    spec = args.target
    if spec not in read_targets() and (spec.endswith(".toml") or (campaigns_dir() / f"{spec}.toml").exists()):
        if args.duration:
            raise UserError(f"soak file {spec}: its settings are in the file; give no --duration")
        soak = load_soak_file(Path(spec) if spec.endswith(".toml") else campaigns_dir() / f"{spec}.toml")
        java = java_of(args)
        return soak.name, [(t.with_java(java), soak.settings) for t in soak.targets]
    if not args.duration:
        raise UserError("orbench soak TARGET needs --duration (24h, 90m, 45s), or give a soak file")
    try:
        duration = parse_duration(args.duration)
        interval = parse_duration(args.interval)
    except ValueError as exc:
        raise UserError(f"--duration/--interval: {exc}") from None
    target = get_target(spec).with_java(java_of(args))
    settings = SoakSettings(duration_s=duration, interval_s=min(interval, duration), rate_hz=args.rate,
                            arrivals=args.arrivals, clients=args.clients, mode=args.mode,
                            payload_bytes=args.payload_bytes, placement=args.placement, seed=args.seed)
    settings.check(target)
    return args.name, [(target, settings)]


def _report(run_dir: Path) -> None:
    make_report(run_dir, "soak_report")


def run(args: argparse.Namespace) -> int:
    resumed = None
    if args.resume:
        if args.target or args.duration:
            raise UserError("--resume RUN_DIR takes the soak's own settings: give no target and no --duration")
        resumed = open_run(args.resume)
        manifest = resumed.read_manifest()
        if manifest.get("kind") != "soak":
            raise UserError(f"{resumed.path}: not a soak run (orbench run --resume finishes a campaign)")
        name, plan = resumed.path.parent.name, [(get_target(manifest["soak"]["target"]), settings_of(manifest))]
    elif not args.target:
        raise UserError("give a target or a soak file, or --resume RUN_DIR")
    else:
        name, plan = _plan(args)
    interrupt_on_signals()
    status = 0
    for target, settings in plan:
        store = resumed or RunStore.create(name, Path(args.results) if args.results else None)
        print(f"orbench: soak of {target.name} for {format_duration(settings.duration_s)}, results in {store.path}",
              file=sys.stderr)
        try:
            manifest = run_soak(store, target, settings, sys.argv, lambda m: print(m, file=sys.stderr, flush=True),
                                resume=resumed is not None)
        except KeyboardInterrupt:
            print(f"\norbench: interrupted; every closed interval is kept in {store.path}; to finish the soak: "
                  f"orbench soak --resume {store.path}", file=sys.stderr)
            return 130
        store.mark_latest()
        _report(store.path)
        for k, answer in manifest.get("answers", {}).items():
            if answer.get("ok"):
                print(f"{target.name} client {k}: {answer['calls']} calls, p50 {answer['p50_ns'] / 1000:.1f} us, "
                      f"p99.9 {answer['p999_ns'] / 1000:.1f} us, max {answer['max_ns'] / 1000:.1f} us, "
                      f"deadline misses {answer.get('deadline_misses', '-')}")
        for k, why in manifest.get("failures", {}).items():
            print(f"orbench: soak of {target.name}, client {k} failed: {why}", file=sys.stderr)
        print(f"results: {store.path}")
        if manifest["status"] != "finished":
            status = 1
    return status
