"""What several subcommands share: the --jdk option, a campaign named on the command line, the report."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from orbench.errors import UserError
from orbench.hosts.jdk import resolve_jdk
from orbench.paths import campaigns_dir

RUN_ARGUMENT_HELP = "run directory, results/<campaign> (its latest run) or a campaign name"


def add_jdk_option(parser: argparse.ArgumentParser, what: str = "run Java targets on this JDK") -> None:
    parser.add_argument("--jdk", metavar="JDK", help=f'{what}: a feature version ("25") or a path')


def java_of(args: argparse.Namespace) -> str | None:
    """The JVM of `--jdk` (resolved, validated), or None for the default."""
    return resolve_jdk(args.jdk, "--jdk").java if getattr(args, "jdk", None) else None


def campaign_path(spec: str) -> Path:
    """A campaign file, or the name of one in harness/campaigns/."""
    path = Path(spec)
    if path.suffix == ".toml" or path.exists():
        return path
    named = campaigns_dir() / f"{spec}.toml"
    if named.exists():
        return named
    known = ", ".join(sorted(p.stem for p in campaigns_dir().glob("*.toml")))
    raise UserError(f"campaign {spec!r} not found (neither a file nor one of: {known})")


# The plotting stage is a package of its own (plots/) that imports the harness; the harness reaches it only
# through these declared entry points (plots/pyproject.toml), so no import runs in both directions.
PLOTS_ENTRY_POINTS = "orbench.plots"


def plots_entry(name: str):
    """The plotting stage's function `name` (report, soak_report, history), or None when it is not installed."""
    from importlib.metadata import entry_points

    found = entry_points(group=PLOTS_ENTRY_POINTS, name=name)
    return next(iter(found)).load() if found else None


def plots_missing(what: str) -> str:
    return f"no {what}: the plotting stage (plots/, entry points {PLOTS_ENTRY_POINTS!r}) is not installed; run: make deps"


def make_report(run_dir: Path, kind: str = "report") -> Path | None:
    """The run's figures and report.html (kind "soak_report" for a soak run); None, with the reason on stderr,
    when the plotting stage is missing."""
    make = plots_entry(kind)
    if make is None:
        print(f"orbench: {plots_missing('report')}", file=sys.stderr)
        return None
    report = make(run_dir)
    print(f"report: {report}")
    return report


def interrupt_on_signals() -> None:
    """Ctrl-C and SIGTERM both stop a run cleanly: workers stopped, finished trials kept. SIGINT is set
    explicitly because a shell starts background jobs with it ignored, and Python then keeps it ignored."""

    def stop(signum, _frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
