"""The `orbench` command: one small function per subcommand.

Exit status: 0 all went well; 1 the run finished but some trials failed (their reasons are in the results);
2 a user error (bad campaign, unknown target, missing build), nothing ran; 130 interrupted (what finished is kept).
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from orbench.errors import UserError

EPILOG = """\
examples:
  orbench targets                          which targets exist and whether each can run here
  orbench check-target omniorb             run one target through the worker contract
  orbench check-target --jdk 25 java-ffm   the same on another JDK (a feature version or a path)
  orbench new-target orbacus --like jacorb a starting descriptor for a new target, and what to do next
  orbench run quick                        run harness/campaigns/quick.toml, then summary and report
  orbench run my.toml --no-report          run a campaign file of your own, skip the plots
  orbench run --resume results/quick/latest   finish an interrupted run (finished trials are kept)
  orbench cleanup results/two-hosts/latest    end any worker a run left on its hosts (unreachable at its end)
  orbench summarize results/quick/latest   recompute summary.json from the raw samples
  orbench report results/quick/latest      (re)make the figures and report.html of a run
  orbench compare RUN_A RUN_B              the same points of two runs side by side, moved ones flagged
  orbench export results/quick/latest      every sample as CSV, and HdrHistogram logs, under the run's export/

Campaign files are TOML, described key by key in harness/orbench/campaign.schema.json and
harness/campaigns/README.md. Results go to results/<campaign>/<run-id>/ and are never overwritten.
"""


def _campaign_path(spec: str) -> Path:
    from orbench.paths import campaigns_dir

    path = Path(spec)
    if path.suffix == ".toml" or path.exists():
        return path
    named = campaigns_dir() / f"{spec}.toml"
    if named.exists():
        return named
    known = ", ".join(sorted(p.stem for p in campaigns_dir().glob("*.toml")))
    raise UserError(f"campaign {spec!r} not found (neither a file nor one of: {known})")


def _java(args: argparse.Namespace) -> str | None:
    """The JVM of `--jdk` (resolved, validated), or None for the default."""
    from orbench.jdk import resolve_jdk

    return resolve_jdk(args.jdk, "--jdk").java if getattr(args, "jdk", None) else None


def cmd_targets(args: argparse.Namespace) -> int:
    from orbench.targets import load_targets, unavailable_reason

    java = _java(args)
    targets = {name: t.with_java(java) for name, t in load_targets().items()}
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


def cmd_check_target(args: argparse.Namespace) -> int:
    from orbench.conformance import Conformance, format_checks
    from orbench.targets import get_target

    failed = 0
    java = _java(args)
    for name in args.names:
        target = get_target(name).with_java(java)
        checks = Conformance(target, host=args.host).run()
        print(format_checks(target, checks))
        failed += sum(not c.passed for c in checks)
    return 1 if failed else 0


def cmd_new_target(args: argparse.Namespace) -> int:
    from orbench.newtarget import new_target

    path, steps = new_target(args.name, args.like, Path(args.dir) if args.dir else None)
    print(f"wrote {path}\nnext:")
    for i, step in enumerate(steps, 1):
        print(f"  {i}. {step}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from orbench.campaign import campaign_from_manifest, load_campaign
    from orbench.results import RunStore, open_run
    from orbench.runner import Runner
    from orbench.summary import write_summary
    from orbench.table import format_table

    if args.resume:
        if args.campaign:
            raise UserError("give either a campaign or --resume RUN_DIR, not both")
        if args.jdk:
            raise UserError("--jdk and --resume: a resumed run keeps the JDK it was started with")
        store = open_run(args.resume)
        campaign = campaign_from_manifest(store.read_manifest(), store.path)
    elif not args.campaign:
        raise UserError("give a campaign (a file, or a name from harness/campaigns/), or --resume RUN_DIR")
    else:
        campaign = load_campaign(_campaign_path(args.campaign), jdk=args.jdk)
        for name in campaign.added_baselines:
            print(f"orbench: adding baseline {name} (needed for ORB-added latency)", file=sys.stderr)
        store = RunStore.create(campaign.name, Path(args.results) if args.results else None)
    runner = Runner(campaign, store, argv=sys.argv, resume=bool(args.resume))
    _interrupt_on_signals()
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
    summary = write_summary(store)
    print(format_table(summary))
    if not args.no_report and not interrupted:
        _make_report(store.path)
    print(f"results: {store.path}")
    for w in summary["warnings"]:  # last, so they are what a reader sees when the run ends
        print(f"warning: {w}", file=sys.stderr)
    if interrupted:
        return 130
    if failed:
        print(f"orbench: {failed} trial(s) failed; reasons are in {store.trials_path}", file=sys.stderr)
        return 1
    return 0


def _interrupt_on_signals() -> None:
    """Ctrl-C and SIGTERM both stop a run cleanly: workers stopped, finished trials kept. SIGINT is set
    explicitly because a shell starts background jobs with it ignored, and Python then keeps it ignored."""

    def stop(signum, _frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def _make_report(run_dir: Path) -> Path | None:
    try:
        from orbench_plots.report import make_report
    except ImportError as exc:
        print(f"orbench: no report: the plotting stage is not installed ({exc}); run: make deps", file=sys.stderr)
        return None
    report = make_report(run_dir)
    print(f"report: {report}")
    return report


def cmd_cleanup(args: argparse.Namespace) -> int:
    from orbench.campaign import campaign_from_manifest
    from orbench.remote import HostSet
    from orbench.results import open_run

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


def cmd_summarize(args: argparse.Namespace) -> int:
    from orbench.results import open_run
    from orbench.summary import write_summary
    from orbench.table import format_table

    store = open_run(args.run)
    summary = write_summary(store)
    print(format_table(summary))
    for w in summary["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    print(f"summary: {store.summary_path}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from orbench.results import open_run
    from orbench.summary import write_summary

    store = open_run(args.run)
    if not store.summary_path.exists():
        write_summary(store)
    return 0 if _make_report(store.path) else 2


def cmd_compare(args: argparse.Namespace) -> int:
    import json

    from orbench.compare import compare_runs, format_comparison
    from orbench.results import open_run

    result = compare_runs(open_run(args.run_a), open_run(args.run_b))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    print(format_comparison(result))
    if not result["points"]:
        print("orbench: the two runs have no point in common", file=sys.stderr)
        return 1
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from orbench.export import export_run
    from orbench.results import open_run

    store = open_run(args.run)
    result = export_run(store, Path(args.out) if args.out else None)
    print(f"csv: {result['csv']} ({result['rows']} samples)")
    print(f"hdr: {len(result['hdr_logs'])} HdrHistogram log(s) in {Path(result['csv']).parent / 'hdr'}")
    return 0


def cmd_ingest_jmh(args: argparse.Namespace) -> int:
    from orbench.jmh import ingest, rows

    store = ingest([Path(f) for f in args.files], Path(args.results) if args.results else None)
    for r in rows(__import__("json").loads((store.path / "jmh.json").read_text())):
        params = ",".join(f"{k}={v}" for k, v in r["params"].items())
        alloc = "" if r["alloc_bytes_per_op"] is None else f"  {r['alloc_bytes_per_op']:.1f} B/op"
        print(f"{r['benchmark']:<40} {params:<26} {r['score']:>12.3f} {r['unit']}{alloc}")
    print(f"jmh results: {store.path}")
    return 0


def cmd_fidelity(args: argparse.Namespace) -> int:
    from orbench.fidelity import SIZES, format_rows, run_fidelity

    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else SIZES
    store, rows = run_fidelity(sizes, placement=args.placement, trials=args.trials, calls=args.calls,
                               root=Path(args.results) if args.results else None)
    print(format_rows(rows))
    print(f"results: {store.path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="orbench",
        description="Benchmark CORBA ORBs against raw-socket baselines: run campaigns, keep raw samples, "
        "compute ORB-added latency, make plots.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("targets", help="list targets and whether each is available here (and why not)")
    p.add_argument("-v", "--verbose", action="store_true", help="also show description, modes and payload types")
    p.add_argument("--jdk", metavar="JDK", help='run Java targets on this JDK: a feature version ("25") or a path')
    p.set_defaults(func=cmd_targets)

    p = sub.add_parser("check-target", help="run targets' real workers through the worker contract")
    p.add_argument("names", nargs="+", metavar="NAME", help="target name(s), see `orbench targets`")
    p.add_argument("--host", default="127.0.0.1", help="address the server binds (default 127.0.0.1)")
    p.add_argument("--jdk", metavar="JDK", help='run Java targets on this JDK: a feature version ("25") or a path')
    p.set_defaults(func=cmd_check_target)

    p = sub.add_parser("new-target", help="start a target descriptor from the closest existing one")
    p.add_argument("name", help="the new target's name (lower-case, digits, '-')")
    p.add_argument("--like", required=True, metavar="TARGET", help="the existing target to copy, e.g. jacorb")
    p.add_argument("--dir", help="where to write NAME.toml (default: harness/targets/)")
    p.set_defaults(func=cmd_new_target)

    p = sub.add_parser("run", help="run a campaign, then write summary.json, the table and the report")
    p.add_argument("campaign", nargs="?", help="a campaign file, or the name of one in harness/campaigns/ (e.g. quick)")
    p.add_argument("--results", metavar="DIR", help="results store (default: results/ in the checkout)")
    p.add_argument("--no-report", action="store_true", help="skip figures and report.html")
    p.add_argument("--resume", metavar="RUN_DIR",
                   help="finish an interrupted or failed run: runs only the trials not finished (ok or skipped)")
    p.add_argument("--jdk", metavar="JDK", help="overrides the campaign's jdk key (a feature version or a path)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("cleanup", help="end every worker a run may have left on its remote hosts")
    p.add_argument("run", help="run directory, results/<campaign> (its latest run) or a campaign name")
    p.set_defaults(func=cmd_cleanup)

    p = sub.add_parser("summarize", help="recompute summary.json of a run from its raw samples")
    p.add_argument("run", help="run directory, results/<campaign> (its latest run) or a campaign name")
    p.set_defaults(func=cmd_summarize)

    p = sub.add_parser("report", help="make the figures and report.html of a run")
    p.add_argument("run", help="run directory, results/<campaign> (its latest run) or a campaign name")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("compare", help="the same points of two runs side by side, changes beyond their intervals "
                       "flagged")
    p.add_argument("run_a", metavar="RUN_A", help="the reference run (directory, results/<campaign> or name)")
    p.add_argument("run_b", metavar="RUN_B", help="the run compared with it")
    p.add_argument("--json", metavar="FILE", help="also write the comparison as JSON")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("ingest-jmh", help="copy JMH JSON result files (one per Java ORB) into results/jmh/<run-id>/ "
                       "for the report")
    p.add_argument("files", nargs="+", metavar="FILE", help="JMH result file (-rf json)")
    p.add_argument("--results", metavar="DIR", help="results store (default: results/ in the checkout)")
    p.set_defaults(func=cmd_ingest_jmh)

    p = sub.add_parser("fidelity", help="orbench's C socket baseline vs sockperf ping-pong, ratio per size")
    p.add_argument("--sizes", help="payload sizes, comma separated (default 16,128,1024,4096,16384,32168)")
    p.add_argument("--placement", default="same-core", choices=["same-core", "split-core", "unpinned"])
    p.add_argument("--trials", type=int, default=5, help="orbench trials per size, each followed by one sockperf run (default 5)")
    p.add_argument("--calls", type=int, default=5000, help="orbench calls per trial")
    p.add_argument("--results", metavar="DIR", help="results store (default: results/ in the checkout)")
    p.set_defaults(func=cmd_fidelity)

    p = sub.add_parser("export", help="a run's samples as CSV and as HdrHistogram interval logs")
    p.add_argument("run", help="run directory, results/<campaign> (its latest run) or a campaign name")
    p.add_argument("--out", metavar="DIR", help="where to write (default: <run>/export)")
    p.set_defaults(func=cmd_export)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except UserError as exc:
        print(f"orbench: error: {exc}", file=sys.stderr)
        return 2
