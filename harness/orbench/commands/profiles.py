"""`orbench profiles RUN`: where each middleware's time goes in a run of the profile mode (`orbench run
--profile`): per point and worker, the functions it adds the most CPU time per call in against its baseline; in a
run of the counting mode (`orbench run --count`), the functions it adds the most instructions per call in."""

from __future__ import annotations

import argparse

from orbench.commands.common import RUN_ARGUMENT_HELP
from orbench.errors import UserError
from orbench.results.point import Point
from orbench.results.profile import ROLES
from orbench.results.store import open_run
from orbench.summary.instructions import format_function_table
from orbench.summary.profiles import format_profile_table, profile_comparisons
from orbench.summary.summary import current_summary

NAME = "profiles"
HELP = "where each middleware's time goes against its baseline (a run of the profile mode)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help=RUN_ARGUMENT_HELP)
    p.add_argument("--target", action="append", help="only this middleware (again for more)")
    p.add_argument("--mode", action="append", help="only this mode (twoway, oneway, ...; again for more)")
    p.add_argument("--payload-bytes", type=int, action="append", help="only this payload size (again for more)")
    p.add_argument("--role", choices=ROLES, help="only the client's or the server's profile")
    p.add_argument("--top", type=int, default=8, help="functions shown per worker (default 8)")


def _keep(args: argparse.Namespace, point: Point, role: str) -> bool:
    return ((not args.target or point.target in args.target) and (not args.mode or point.mode in args.mode)
            and (not args.payload_bytes or point.payload_bytes in args.payload_bytes)
            and (not args.role or role == args.role))


def run(args: argparse.Namespace) -> int:
    store = open_run(args.run)
    counted = [c for c in current_summary(store).instructions if c.added_per_call is not None]
    if counted:
        shown = [c for c in counted if _keep(args, c.point, c.role)]
        if not shown:
            raise UserError(f"{store.path}: no count matches --target/--mode/--payload-bytes/--role")
        print(format_function_table(shown, args.top))
        return 0
    comparisons = profile_comparisons(store, store.read_manifest().get("targets", {}))
    if not comparisons:
        raise UserError(f"{store.path}: no profile of a middleware and its baseline (run it with "
                        "`orbench run --profile`, or campaign key profile = true)")
    shown = [c for c in comparisons if _keep(args, c.point, c.role)]
    if not shown:
        raise UserError(f"{store.path}: no profile matches --target/--mode/--payload-bytes/--role")
    print(format_profile_table(shown, args.top))
    return 0
