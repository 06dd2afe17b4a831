"""Not a test: each test layer's wall time and what it covers of harness/orbench (coverage.py, line and branch).

    cd harness && ../.venv/bin/python -m tests.measure_layers [--layers fast,slow] [--out DIR]

Runs the fast layer (`pytest -m "not slow"`, what `make test` runs) and then the slow one (`-m slow`, `make
test-slow`) under coverage.py, with the Python processes the tests start measured too (`orbench` run as a
command: [tool.coverage.run] patch = subprocess in pyproject.toml), and prints per layer its pytest outcome and
wall time, then the line and branch coverage of the fast layer alone and of both together. Coverage slows the
tests: time the layers themselves with `time make test` and `time make test-slow` (`make coverage` runs this).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from orbench.paths import repo_root

MARKERS = {"fast": "not slow", "slow": "slow"}


@dataclass(frozen=True)
class Totals:
    lines: int
    lines_covered: int
    branches: int
    branches_covered: int

    def describe(self) -> str:
        return (f"lines {100 * self.lines_covered / self.lines:.2f}% ({self.lines_covered}/{self.lines}), "
                f"branches {100 * self.branches_covered / self.branches:.2f}% "
                f"({self.branches_covered}/{self.branches})")


def coverage(args: list[str], env: dict[str, str]) -> None:
    subprocess.run([sys.executable, "-m", "coverage", *args], check=True, env=env, cwd=repo_root() / "harness")


def totals(out: Path, env: dict[str, str]) -> Totals:
    report = out / "coverage.json"
    coverage(["json", "-q", "-o", str(report)], env)
    t = json.loads(report.read_text())["totals"]
    return Totals(t["num_statements"], t["covered_lines"], t["num_branches"], t["covered_branches"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", default="fast,slow", help="fast, slow or both, in order (default fast,slow)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/orbench-coverage"),
                        help="where the coverage data goes (default /tmp/orbench-coverage)")
    args = parser.parse_args(argv)
    layers = args.layers.split(",")
    unknown = [name for name in layers if name not in MARKERS]
    if unknown:
        parser.error(f"--layers: unknown layer {unknown[0]!r} (known: fast, slow)")
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob(".coverage*"):
        old.unlink()
    env = {**os.environ, "COVERAGE_FILE": str(args.out / ".coverage")}
    lines = []
    for k, layer in enumerate(layers):
        started = time.monotonic()
        run = subprocess.run([sys.executable, "-m", "coverage", "run", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "-m", MARKERS[layer]], env=env, cwd=repo_root() / "harness", capture_output=True,
                             text=True)
        took = time.monotonic() - started
        outcome = (run.stdout.strip().splitlines() or ["(no output)"])[-1]
        print(f"{layer}: {outcome} ({took:.0f} s under coverage)", flush=True)
        if run.returncode not in (0, 1):  # 1: some tests failed, their coverage still counts
            print(run.stdout[-3000:] + run.stderr[-3000:], file=sys.stderr)
            return run.returncode
        coverage(["combine", "-q"] + (["--append"] if k else []), env)
        lines.append(f"{' + '.join(layers[:k + 1])}: {totals(args.out, env).describe()}")
    print("\n".join(["coverage of harness/orbench:", *lines]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
