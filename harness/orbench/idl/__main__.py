"""`python3 -m orbench.idl {proto,slice} IDL OUT`: the build's entry point (CMake and Maven run it).

Standard library only, so a build can run it with the system python3 and PYTHONPATH=harness, before any venv.
OUT is rewritten only when its text changes, so an unchanged IDL does not trigger the stub compilers again.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from orbench.idl import IdlError, parse_file, to_proto, to_slice


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m orbench.idl", description=__doc__.splitlines()[0])
    p.add_argument("language", choices=("proto", "slice"), help="proto3 (gRPC) or Slice (Ice)")
    p.add_argument("idl", type=Path, help="the IDL file (idl/orbench.idl)")
    p.add_argument("out", type=Path, help="the file to write")
    p.add_argument("--java-package", help="proto: option java_package; slice: [[\"java:package:...\"]]")
    p.add_argument("--amd", default="", help="slice: operations to mark [\"amd\"], comma-separated")
    args = p.parse_args(argv)
    try:
        module = parse_file(args.idl)
        if args.language == "proto":
            if args.amd:
                p.error("--amd applies to slice only")
            text = to_proto(module, args.java_package)
        else:
            amd = frozenset(n for n in args.amd.split(",") if n)
            text = to_slice(module, args.java_package, amd)
    except IdlError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not args.out.exists() or args.out.read_text() != text:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
