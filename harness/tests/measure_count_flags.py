"""Not a test: the counting mode's regression flags, measured over several pairs of runs.

    cd harness && ../.venv/bin/python -m tests.measure_count_flags [--pairs 5] [--n 20000]

Runs the counting mode on the known-answer server c-socket-work@N and on c-socket-work@(N + 1%) (its server 1%
more instructions of loop per call, about 0.99% more in all), `--pairs` times each, and compares every run of N
with the next run of N (A/A: nothing may be flagged) and with its run of N + 1% (the server must be flagged, and
nothing else). Prints each pair's flags and exits 1 unless every A/A pair flags nothing and every changed pair
flags its server: "flagged by compare in 5 of 5 pairs" of issue 43.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from orbench.results.store import RunStore
from orbench.summary.compare import compare_runs


def _run(root: Path, target: str, i: int) -> RunStore:
    name = f"flags-{i}-{target.replace('@', '-')}"
    campaign = root / f"{name}.toml"
    campaign.write_text(f'name = "{name}"\ntargets = {json.dumps([target])}\nmodes = ["twoway"]\n'
                        'payload_bytes = [1]\nplacements = ["unpinned"]\ncount = true\ncount_calls = [200, 1200]\n'
                        "count_warmup = 200\ncount_repeats = 2\n")
    subprocess.run([sys.executable, "-m", "orbench", "run", str(campaign), "--no-report", "--results",
                    str(root / "results")], check=True, capture_output=True)
    return RunStore(sorted((root / "results" / name).glob("2*"))[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--n", type=int, default=20000)
    args = parser.parse_args()
    changed = args.n + args.n // 100
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        base = [_run(root, f"c-socket-work@{args.n}", i) for i in range(args.pairs + 1)]
        more = [_run(root, f"c-socket-work@{changed}", i) for i in range(args.pairs)]
        for i in range(args.pairs):
            same = [r for r in compare_runs(base[i], base[i + 1])["instructions"] if r.get("flag")]
            moved = [r for r in compare_runs(base[i], more[i])["instructions"] if r.get("flag")]
            hit = [(r["role"], round(r["change_pct"], 3)) for r in moved]
            good = not same and [r["role"] for r in moved] == ["server"]
            ok &= good
            print(f"pair {i + 1}: A/A flags {len(same)}; N {args.n} -> {changed} flags {hit} "
                  f"{'ok' if good else 'WRONG'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
