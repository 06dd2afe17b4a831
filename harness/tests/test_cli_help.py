"""`orbench --help` and every subcommand's `--help`: the first commands a newcomer types. The top level runs
as the real console command; the subcommands through the same parser in this process (a second each less)."""

import pytest
from orbench.cli import COMMANDS, main

from tests.conftest import run_cli


def test_top_level_help_lists_every_command():
    code, out, err = run_cli("--help")
    assert code == 0, err
    for command in COMMANDS:
        assert command.NAME in out


@pytest.mark.parametrize("name", [c.NAME for c in COMMANDS])
def test_subcommand_help(name, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([name, "--help"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith("usage: orbench " + name)
