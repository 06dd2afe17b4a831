"""`python3 -m orbench.idl EMITTER IDL OUT [its options]`: the build's entry point (CMake and Maven run it).

EMITTER is an emitter's name (orbench/idl/emitters/: proto, slice, thrift, ...); `--help` lists them.
Standard library only, so a build can run it with the system python3 and PYTHONPATH=harness, before any venv.
OUT is rewritten only when its text changes, so an unchanged IDL does not trigger the stub compilers again.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from orbench.idl.emitter import known_emitters
from orbench.idl.parser import IdlError, parse_file


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m orbench.idl", description=__doc__.splitlines()[0])
    languages = p.add_subparsers(dest="emitter", required=True, metavar="EMITTER",
                                 help="the interface language to write: " + ", ".join(known_emitters()))
    for emitter in known_emitters().values():
        sub = languages.add_parser(emitter.name, help=emitter.description, description=emitter.description)
        sub.add_argument("idl", type=Path, help="the IDL file (idl/orbench.idl)")
        sub.add_argument("out", type=Path, help="the file to write")
        emitter.add_arguments(sub)
    args = p.parse_args(argv)
    try:
        emitter = known_emitters()[args.emitter]
        text = emitter.emit(parse_file(args.idl, emitter.in_only, emitter.capabilities), args)
    except IdlError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not args.out.exists() or args.out.read_text() != text:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
