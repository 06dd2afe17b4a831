"""The reference page of the `orbench` command, made from its argument parser (orbench/cli.py), so an option
cannot be added without its page knowing it."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from orbench import cli
from orbench.cli import build_parser

from orbench_guide.markdown import cell


@dataclass(frozen=True)
class Option:
    command: str
    names: str          # "--budget TIME", or a positional's name
    default: str
    help: str


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def _names(action: argparse.Action) -> str:
    if not action.option_strings:
        return action.metavar or action.dest
    metavar = ""
    if action.nargs != 0:
        metavar = " " + (action.metavar or action.dest.upper())
    return ", ".join(action.option_strings) + metavar


def options(parser: argparse.ArgumentParser | None = None) -> list[Option]:
    """Every argument of every subcommand (not --help)."""
    parser = parser or build_parser()
    out = []
    for name, sub in _subcommands(parser).items():
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            default = action.default
            shown = "" if default in (None, False, argparse.SUPPRESS) or action.nargs == 0 else repr(default)
            text = "" if not action.help or action.help == argparse.SUPPRESS else sub._get_formatter()._expand_help(action)
            out.append(Option(name, _names(action), shown, text))
    return out


def undescribed(parser: argparse.ArgumentParser | None = None) -> list[str]:
    """The arguments without a help text: the test that keeps the reference whole fails on any."""
    return [f"orbench {o.command} {o.names}" for o in options(parser) if not o.help.strip()]



def cli_page() -> str:
    parser = build_parser()
    subs = _subcommands(parser)
    lines = ["# The orbench command", "",
             "Made from the argument parser (`harness/orbench/cli.py` and `harness/orbench/commands/`) when the guide "
             "is built. `orbench COMMAND --help` prints the same.", "",
             parser.description or "", "", "| command | what it does |", "|---|---|"]
    lines += [f"| [`{name}`](#{name}) | {cell(sub.description or '')} |" for name, sub in subs.items()]
    # cli.py's docstring: its first paragraph says what the module is, the second the exit status
    lines += ["", cell(cli.__doc__.split("\n\n")[1]), ""]
    by_command: dict[str, list[Option]] = {}
    for o in options(parser):
        by_command.setdefault(o.command, []).append(o)
    for name, sub in subs.items():
        usage = sub.format_usage().removeprefix("usage: ").strip()
        lines += [f"## {name}", "", cell(sub.description or ""), "", "```", usage, "```", ""]
        if by_command.get(name):
            lines += ["| argument | default | what it does |", "|---|---|---|"]
            lines += [f"| `{o.names}` | {f'`{o.default}`' if o.default else ''} | {cell(o.help)} |"
                      for o in by_command[name]]
            lines.append("")
    lines += ["## Examples", "", "```", (parser.epilog or "").strip(), "```"]
    return "\n".join(lines) + "\n"
