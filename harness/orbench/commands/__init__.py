"""One module per `orbench` subcommand, each of one shape (as asv's commands):

    NAME = "check-target"                       the subcommand
    HELP = "..."                                one line for `orbench --help`
    def add_arguments(parser) -> None           its options
    def run(args) -> int                        its exit status

cli.py builds the parser from them and dispatches; common.py holds what several share.
"""
