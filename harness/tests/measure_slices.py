"""How many calls a slice needs before its calls are at their level: the measurement behind `slice_rewarm`.

Runs a campaign (quick by default) with `slice_rewarm = 0` and one launch, then reads every sliced trial's
samples: for each slice after a trial's first (the first gets the trial's own warm-up), call i's latency over the
slice's median, for i = 0 .. 49, and prints per target and mode the median of those ratios by position, and the
first position from which every later one is within 2% of 1 (a oneway flood's calls also by their mean).

    cd harness && ../.venv/bin/python -m tests.measure_slices [CAMPAIGN] [--runs RUN_DIR ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np
from orbench.paths import campaigns_dir, repo_root
from orbench.results.store import RunStore

POSITIONS = 50
WITHIN = 0.02


def run_campaign(name: str) -> Path:
    """The campaign with no rewarm between slices and one launch; its run directory."""
    path = Path(name) if name.endswith(".toml") else campaigns_dir() / f"{name}.toml"
    text = path.read_text()
    keys = {"slice_rewarm": "0", "launches": "1", "max_launches": "2"}
    lines = [line for line in text.splitlines() if line.split("=")[0].strip() not in keys]
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as out:
        out.write("\n".join(lines + [f"{k} = {v}" for k, v in keys.items()]) + "\n")
    done = subprocess.run([sys.executable, "-m", "orbench", "run", out.name, "--no-report"], cwd=repo_root() / "harness",
                          capture_output=True, text=True)
    print(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "", file=sys.stderr)
    for line in done.stdout.splitlines() + done.stderr.splitlines():
        if line.startswith("results: "):
            return Path(line.split("results: ", 1)[1].strip())
    raise SystemExit(f"no run directory in the output:\n{done.stdout}\n{done.stderr}")


def ratios(run_dir: Path) -> dict[tuple[str, str], list[np.ndarray]]:
    """Per (target, mode): for every slice after a trial's first, its first POSITIONS calls over its median."""
    out: dict[tuple[str, str], list[np.ndarray]] = defaultdict(list)
    for t in RunStore(run_dir).read_trials():
        if not t.ok or not t.slice_p50s_ns or not t.slice_calls:
            continue
        samples = np.fromfile(run_dir / str(t.samples_file), dtype="<i8").astype(float)
        sizes = _sizes(int(t.calls or 0), len(t.slice_p50s_ns))
        start = sizes[0]
        for size in sizes[1:]:
            part = samples[start:start + size]
            start += size
            if part.size > POSITIONS:
                out[(t.point.target, t.point.mode)].append(part[:POSITIONS] / np.median(part))
    return out


def _sizes(calls: int, slices: int) -> list[int]:
    base, extra = divmod(calls, slices)
    return [base + (1 if k < extra else 0) for k in range(slices)]


def settled_at(curve: np.ndarray) -> int:
    """The first position from which every later median ratio is within WITHIN of 1."""
    outside = np.nonzero(np.abs(curve - 1.0) > WITHIN)[0]
    return 0 if outside.size == 0 else int(outside[-1]) + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("campaign", nargs="?", default="quick")
    parser.add_argument("--runs", nargs="*", type=Path, help="read these runs instead of running the campaign")
    args = parser.parse_args()
    runs = args.runs or [run_campaign(args.campaign)]
    found: dict[tuple[str, str], list[np.ndarray]] = defaultdict(list)
    for run in runs:
        for key, rows in ratios(run).items():
            found[key].extend(rows)
    print(f"{'target':14} {'mode':7} {'slices':>6}  median ratio of call i to its slice's median (i = 0, 1, 2, 5, "
          f"10, 20, 49)   settled at")
    for (target, mode), rows in sorted(found.items()):
        curve = np.median(np.vstack(rows), axis=0)
        cells = " ".join(f"{curve[i]:.3f}" for i in (0, 1, 2, 5, 10, 20, 49))
        print(f"{target:14} {mode:7} {len(rows):6}  {cells}   {settled_at(curve)}")


if __name__ == "__main__":
    main()
