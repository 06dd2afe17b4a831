"""`orbench run CAMPAIGN` (or `--resume RUN_DIR`): run a campaign, then write summary.json, print the table,
make the report.

Exit status: 0 all went well; 1 the run finished but some trials failed (their reasons are in the results);
2 a user error (cli.py); 130 interrupted (what finished is kept).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from orbench.campaign.duration import parse_duration
from orbench.campaign.spec import campaign_from_manifest, read_campaign
from orbench.commands.common import campaign_path, interrupt_on_signals, make_report
from orbench.errors import UserError
from orbench.results.accounting import TimeAccount, time_account
from orbench.results.repetitions import repetition_plans
from orbench.results.store import RunStore, open_run
from orbench.running.counted import run_counting_campaign
from orbench.running.runner import Runner
from orbench.summary.instructions import format_instruction_table
from orbench.summary.precision import format_reached, format_reached_unplanned
from orbench.summary.run_to_run import gather as gather_earlier_runs
from orbench.summary.run_to_run import gathered_line
from orbench.summary.summary import write_summary
from orbench.summary.table import format_table

NAME = "run"
HELP = "run a campaign, then write summary.json, the table and the report"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("campaign", nargs="?", help="a campaign file, or the name of one in harness/campaigns/ (e.g. quick)")
    p.add_argument("--results", metavar="DIR", help="results store (default: results/ in the checkout)")
    p.add_argument("--no-report", action="store_true", help="skip figures and report.html")
    p.add_argument("--resume", metavar="RUN_DIR",
                   help="finish an interrupted or failed run: runs only the trials not finished (ok or skipped)")
    p.add_argument("--retry-skipped", action="store_true",
                   help="with --resume: also run again the points given up after failed or stalled trials in a row")
    p.add_argument("--jdk", metavar="JDK", help="overrides the campaign's jdk key (a feature version or a path)")
    p.add_argument("--budget", metavar="TIME",
                   help="plan the run to fit this time, end to end (\"10m\", \"1h30m\", seconds): launches, "
                        "trials and calls chosen from the variance and cost of each level; prints the precision "
                        "expected per point group before the planned launches and what was reached at the end "
                        "(the campaign key budget)")
    p.add_argument("--anatomy", action="store_true",
                   help="the anatomy mode: after each point, one trial per target with strace attached to both "
                        "workers (their system calls per call); the campaign key anatomy = \"syscalls\"")
    p.add_argument("--profile", action="store_true",
                   help="the profile mode: after each point, one trial per target with a sampling profiler attached "
                        "to both workers (where each middleware's time goes, per call, against its baseline); the "
                        "campaign key profile = true")
    p.add_argument("--count", action="store_true",
                   help="the counting mode: instead of timed trials, each C++ and Python target's workers run "
                        "under callgrind and the run records instructions per call, exact, whole and by function "
                        "(Java targets: the JVM's own counters); the campaign key count = true")


def run(args: argparse.Namespace) -> int:
    if args.resume:
        if args.campaign:
            raise UserError("give either a campaign or --resume RUN_DIR, not both")
        if args.jdk:
            raise UserError("--jdk and --resume: a resumed run keeps the JDK it was started with")
        if args.anatomy:
            raise UserError("--anatomy and --resume: a resumed run keeps the anatomy mode it was started with")
        if args.budget:
            raise UserError("--budget and --resume: a resumed run keeps the budget it was started with")
        if args.profile:
            raise UserError("--profile and --resume: a resumed run keeps the profile mode it was started with")
        if args.count:
            raise UserError("--count and --resume: a counting run is not resumed; start it again")
        store = open_run(args.resume)
        campaign = campaign_from_manifest(store.read_manifest(), store.path)
    elif args.retry_skipped:
        raise UserError("--retry-skipped goes with --resume RUN_DIR")
    elif not args.campaign:
        raise UserError("give a campaign (a file, or a name from harness/campaigns/), or --resume RUN_DIR")
    else:
        campaign = read_campaign(campaign_path(args.campaign), jdk=args.jdk)
        if args.anatomy:
            campaign = campaign.with_settings(anatomy="syscalls")
        if args.profile:
            campaign = campaign.with_settings(profile=True)
        if args.count:
            campaign = campaign.with_settings(count=True)
        if args.budget:
            try:
                campaign = campaign.with_settings(budget_s=parse_duration(args.budget))
            except ValueError as exc:
                raise UserError(f"--budget: {exc}") from None
        for name in campaign.added_baselines:
            print(f"orbench: adding baseline {name} (needed for ORB-added latency)", file=sys.stderr)
        store = RunStore.create(campaign.name, Path(args.results) if args.results else None)
    if campaign.settings.count:
        if args.resume:
            raise UserError(f"{store.path}: a counting run is not resumed; start it again")
        return run_counting(campaign, store, report=not args.no_report)
    if campaign.is_soak:
        from orbench.commands.soak import run_soak_campaign

        return run_soak_campaign(campaign, store, bool(args.resume), report=not args.no_report)
    runner = Runner(campaign, store, argv=sys.argv, resume=bool(args.resume),
                    retry_skipped=args.retry_skipped)
    interrupt_on_signals()
    interrupted = False
    try:
        failed = runner.run()
    except UserError:
        if not args.resume:
            store.remove_if_empty()
        raise
    except KeyboardInterrupt:
        interrupted = True
        failed = runner.failed_trials
        print("\norbench: interrupted; every worker stopped, finished trials are kept; to finish the run: "
              f"orbench run --resume {store.path}", file=sys.stderr)
    after: dict[str, float] = {}
    started = time.perf_counter()
    earlier = gather_earlier_runs(store)  # before the summary, which widens its intervals by them
    summary = write_summary(store)
    after["summary_s"] = time.perf_counter() - started
    print(format_table(summary))
    if not args.no_report and not interrupted:
        started = time.perf_counter()
        make_report(store.path)
        after["report_s"] = time.perf_counter() - started
    account = note_after_run(store, after)
    planned = [p for p in repetition_plans(store.read_manifest()) if p.groups]
    if planned:
        print(format_reached(planned[-1], summary), file=sys.stderr)
    elif campaign.settings.budget_s is not None and not interrupted:
        print(format_reached_unplanned(summary), file=sys.stderr)
    print(f"results: {store.path}")
    if campaign.settings.profile:
        print(f"profiles: orbench profiles {store.path} (where each middleware's time goes, per call)")
    if account is not None:
        print(f"orbench: time: {account.line()}", file=sys.stderr)
    if summary.host_speed is not None:
        print(f"orbench: {summary.host_speed.text}", file=sys.stderr)
    if any(p.orb_added_latency_ns and p.orb_added_latency_ns.se_ns for p in summary.points):
        print(f"orbench: {gathered_line(earlier)}", file=sys.stderr)
    for w in summary.warnings:  # last, so they are what a reader sees when the run ends
        print(f"warning: {w}", file=sys.stderr)
    if interrupted:
        return 130
    if failed:
        print(f"orbench: {failed} trial(s) failed; reasons are in {store.trials_path}", file=sys.stderr)
        return 1
    return 0


def run_counting(campaign, store: RunStore, report: bool) -> int:
    """The counting mode (running/counted.py): its counts, then summary.json, the table and the report."""
    interrupt_on_signals()
    try:
        failed = run_counting_campaign(campaign, store)
    except UserError:
        store.remove_if_empty()
        raise
    summary = write_summary(store)
    print(format_instruction_table(summary.instructions))
    if report:
        make_report(store.path)
    print(f"results: {store.path}")
    print(f"instructions by function: orbench profiles {store.path}")
    if failed:
        print(f"orbench: {failed} point(s) could not be counted; the reasons are in {store.path}/counts/counts.jsonl",
              file=sys.stderr)
        return 1
    return 0


def note_after_run(store: RunStore, seconds: dict[str, float]) -> TimeAccount | None:
    """The summary's and the report's seconds, added to the manifest's time accounting (a budget counts them, and
    the next planned run of the campaign reserves them)."""
    manifest = store.manifest()
    account = time_account(manifest.to_json())
    if account is None:
        return None
    account = TimeAccount(account.wall_s, account.seconds, account.records, {**account.after_run, **seconds})
    manifest["time_accounting"] = account.to_json()
    store.write_manifest(manifest)
    return account
