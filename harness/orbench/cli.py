"""The `orbench` command: builds the parser from the subcommands (commands/, one module each) and dispatches.

Exit status: 0 all went well; 1 the run finished but some trials failed (their reasons are in the results);
2 a user error (bad campaign, unknown target, missing build), nothing ran; 130 interrupted (what finished is kept).
"""

from __future__ import annotations

import argparse
import sys

from orbench.commands import (
    agreement,
    check_target,
    cleanup,
    compare,
    export,
    fidelity,
    history,
    ingest_jmh,
    new_target,
    prepare,
    profiles,
    report,
    run,
    soak,
    summarize,
    targets,
    verify,
)
from orbench.errors import UserError

# In the order `orbench --help` lists them.
COMMANDS = (targets, check_target, new_target, prepare, run, soak, cleanup, summarize, report, profiles, compare,
            agreement, history, verify, ingest_jmh, fidelity, export)

EPILOG = """\
examples:
  orbench targets                          which targets exist and whether each can run here
  orbench check-target omniorb             run one target through the worker contract
  orbench check-target --jdk 25 java-ffm   the same on another JDK (a feature version or a path)
  orbench new-target orbacus --like jacorb a starting descriptor for a new target, and what to do next
  orbench prepare lab/ --check             what the playbook would change on an Ansible inventory's hosts
  orbench prepare lab/ --limit servers     make those hosts ready (packages, a JVM, the workers)
  orbench targets -i lab/ --host node01    what a prepared host can run
  orbench run quick                        run harness/campaigns/quick.toml, then summary and report
  orbench run my.toml --no-report          run a campaign file of your own, skip the plots
  orbench run --resume results/quick/latest   finish an interrupted run (finished trials are kept)
  orbench cleanup results/two-hosts/latest    end any worker a run left on its hosts (unreachable at its end)
  orbench summarize results/quick/latest   recompute summary.json from the raw samples
  orbench report results/quick/latest      (re)make the figures and report.html of a run
  orbench run --profile quick              quick, and per point a profiled trial: where each middleware's time goes
  orbench profiles results/quick/latest --payload-bytes 1   its top functions of added time, us per call
  orbench compare RUN_A RUN_B              the same points of two runs side by side: drift, and what really moved
  orbench export results/quick/latest      every sample as CSV, and HdrHistogram logs, under the run's export/
  orbench history                          results/index.html: every run, each point's trend, moves flagged
  orbench verify                           every run under results/ checked for damage, like git fsck
  orbench soak jacorb --duration 1h --rate 10 --clients 3   hours of one target, one histogram per 10 s
  orbench soak tine                        the soak file harness/campaigns/tine.toml (TINE's setting, 8 h)

Campaign files are TOML, described key by key in harness/orbench/campaign/campaign.schema.json and
harness/campaigns/README.md. Results go to results/<campaign>/<run-id>/ and are never overwritten.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="orbench",
        description="Benchmark CORBA ORBs against raw-socket baselines: run campaigns, keep raw samples, "
        "compute ORB-added latency, make plots.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        # argparse %-formats a subcommand's help (for %(default)s); a HELP is plain text, so its % is literal.
        p = sub.add_parser(command.NAME, help=command.HELP.replace("%", "%%"), description=command.HELP)
        command.add_arguments(p)
        p.set_defaults(func=command.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except UserError as exc:
        print(f"orbench: error: {exc}", file=sys.stderr)
        return 2
