"""Not a test: each test layer's wall time and what it covers of harness/orbench (coverage.py, line and branch).

    cd harness && ../.venv/bin/python -m tests.measure_layers [--layers fast,slow] [--checkout DIR] [--select EXPR]
        [--jobs N]

Runs the fast layer (`pytest -m "not slow"`, what `make test` runs) and then the slow one (`-m slow`, `make
test-slow`) under coverage.py, with the Python processes the tests start measured too (`orbench` run as a
command: patch = subprocess), and prints per layer its pytest outcome and wall time, then the line and branch
coverage of the fast layer alone and of both together. `--checkout` measures another checkout the same way (an
older commit, to compare: its .venv needs coverage 7.10.3 or later, `.venv/bin/pip install 'coverage>=7.10.3'`).
Coverage slows the tests: time the layers themselves with `time make test` and `time make test-slow` (`make
coverage` runs this).
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


@dataclass(frozen=True)
class Measurement:
    checkout: Path
    out: Path

    @property
    def python(self) -> str:
        return str(self.checkout / ".venv" / "bin" / "python")

    @property
    def rcfile(self) -> Path:
        return self.out / "coveragerc"

    def write_rcfile(self) -> None:
        """The same settings for every checkout measured ([tool.coverage.run] of this one's pyproject.toml)."""
        self.rcfile.write_text(f"[run]\nbranch = true\nsource = {self.checkout / 'harness' / 'orbench'}\n"
                               f"patch = subprocess\nparallel = true\ndata_file = {self.out / '.coverage'}\n")

    def run(self, args: list[str], **kwargs) -> subprocess.CompletedProcess:
        env = {**os.environ, "COVERAGE_RCFILE": str(self.rcfile)}
        return subprocess.run([self.python, "-m", "coverage", *args], env=env, cwd=self.checkout / "harness",
                              **kwargs)

    def totals(self) -> Totals:
        report = self.out / "coverage.json"
        self.run(["json", "-q", "-o", str(report)], check=True)
        t = json.loads(report.read_text())["totals"]
        return Totals(t["num_statements"], t["covered_lines"], t["num_branches"], t["covered_branches"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", default="fast,slow", help="fast, slow or both, in order (default fast,slow)")
    parser.add_argument("--checkout", type=Path, default=repo_root(),
                        help="the checkout whose tests and harness are measured (default this one)")
    parser.add_argument("--select", metavar="EXPR", help="only the tests pytest -k EXPR selects (a look at a few)")
    parser.add_argument("--jobs", type=int, default=3,
                        help="pytest-xdist processes, as make test runs them (default 3; 1: one process)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/orbench-coverage"),
                        help="where the coverage data goes (default /tmp/orbench-coverage)")
    args = parser.parse_args(argv)
    layers = args.layers.split(",")
    unknown = [name for name in layers if name not in MARKERS]
    if unknown:
        parser.error(f"--layers: unknown layer {unknown[0]!r} (known: fast, slow)")
    m = Measurement(args.checkout.resolve(), args.out.resolve())
    if m.run(["--version"], capture_output=True).returncode != 0:
        parser.error(f"--checkout {m.checkout}: no coverage in {m.python} "
                     "(install it there: .venv/bin/pip install 'coverage>=7.10.3')")
    m.out.mkdir(parents=True, exist_ok=True)
    for old in m.out.glob(".coverage*"):
        old.unlink()
    m.write_rcfile()
    lines = []
    for k, layer in enumerate(layers):
        started = time.monotonic()
        select = ["-k", args.select] if args.select else []
        jobs = ["-n", str(args.jobs)] if args.jobs > 1 else []  # xdist's processes are measured too (patch)
        # As make runs them: the tests marked exclusive alone, after the others.
        for part, marker, extra in (("", f"{MARKERS[layer]} and not exclusive", jobs),
                                    (" exclusive", f"{MARKERS[layer]} and exclusive", [])):
            run = m.run(["run", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", marker, *extra, *select],
                        capture_output=True, text=True)
            took = time.monotonic() - started
            outcome = (run.stdout.strip().splitlines() or ["(no output)"])[-1]
            print(f"{layer}{part}: {outcome} ({took:.0f} s under coverage)", flush=True)
            # 1: some tests failed, their coverage still counts; 5: none selected, nothing to add
            if run.returncode not in (0, 1, 5):
                print(run.stdout[-3000:] + run.stderr[-3000:], file=sys.stderr)
                return run.returncode
        if list(m.out.glob(".coverage.*")):
            m.run(["combine", "-q"] + (["--append"] if k else []), check=True)
        lines.append(f"{' + '.join(layers[:k + 1])}: {m.totals().describe()}")
    print("\n".join([f"coverage of {m.checkout / 'harness' / 'orbench'}:", *lines]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
