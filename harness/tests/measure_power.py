"""Not a test: the power of `orbench compare` against a known answer, and its false alarms, on a quiet machine.

    cd harness && ../.venv/bin/python -m tests.measure_power [--pairs 5] [--aa 10] [--campaign quick] [--to 2200] [--history 3]

Quick-sized runs (the campaign's settings, its budget included) of the known-answer server c-socket-delay
against c-socket: `pairs` pairs whose delay changes from 2000 ns to 2200 ns (--to) between the two runs, then `aa`
pairs of two runs at 2000 ns. Each pair is compared; prints, per pair, whether the delay's row (its ORB-added
latency) was flagged, its change and its minimum detectable effect, and the counts: the change should be
flagged in most pairs (at least 4 of 5) and an A/A pair seldom (at most 1 of 10). All runs share one campaign
name, so each plans from the previous one. `history` runs of each delay come first, not compared: a results
directory with three earlier runs of a campaign on the host pools each run's interval with them, and compare then
tests a row over runs (summary/compare.py), as it would for a user who has run the campaign before.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from orbench.paths import campaigns_dir
from orbench.results.units import fmt_ns

from tests.measure_cuts import write_campaign

FROM_NS = 2000


def run(campaign: Path, results: Path) -> str:
    env = {**os.environ, "ORBENCH_RESULTS": str(results)}
    proc = subprocess.run([sys.executable, "-m", "orbench", "run", str(campaign), "--no-report"], env=env,
                          capture_output=True, text=True)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("results: ")), None)
    if line is None:
        sys.exit(f"{campaign}: the run failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return line.split(": ", 1)[1]


def compared(a: str, b: str, scratch: Path) -> tuple[bool, str, int]:
    """Whether the delay's row was flagged, a line about it, and how many rows were flagged in all."""
    out = scratch / "compare.json"
    subprocess.run([sys.executable, "-m", "orbench", "compare", a, b, "--json", str(out)], capture_output=True)
    result = json.loads(out.read_text())
    rows = [r for r in result["points"] if r["target"].startswith("c-socket-delay") and r.get("orb_added")]
    flagged = any(r["orb_added"].get("flag") for r in rows)
    text = "; ".join(f"{r['mode']} {r['payload_bytes']} B: change {fmt_ns(r['orb_added'].get('change_ns'))}, MDE "
                     f"{fmt_ns(r['orb_added'].get('mde_ns'))}{' FLAGGED' if r['orb_added'].get('flag') else ''}"
                     for r in rows)
    return flagged, text, int(result["flagged_rows"])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pairs", type=int, default=5)
    p.add_argument("--aa", type=int, default=10)
    p.add_argument("--campaign", default="quick", help="whose settings the runs take: a name, or a file (FILE.toml)")
    p.add_argument("--results", default="/tmp/orbench-power")
    p.add_argument("--to", type=int, default=2200, help="the changed delay, ns (from 2000)")
    p.add_argument("--history", type=int, default=0,
                   help="runs of each delay made first and not compared (3: every compared run has the earlier "
                        "runs its interval is pooled with)")
    args = p.parse_args()
    delays = (FROM_NS, args.to)
    results = Path(args.results)
    results.mkdir(parents=True, exist_ok=True)
    path = Path(args.campaign) if args.campaign.endswith(".toml") else campaigns_dir() / f"{args.campaign}.toml"
    data = tomllib.loads(path.read_text())
    files = {}
    for delay in delays:
        files[delay] = write_campaign({**data, "name": "power", "description": f"known answer at {delay} ns",
                                       "targets": [f"c-socket-delay@{delay}"]}, results / f"delay-{delay}.toml")
    for k in range(args.history):
        for delay in delays:
            print(f"history run {k + 1} at {delay} ns: {run(files[delay], results)}", flush=True)
    changed = 0
    for k in range(args.pairs):
        a, b = run(files[delays[0]], results), run(files[delays[1]], results)
        flagged, text, _ = compared(a, b, results)
        changed += flagged
        print(f"{delays[0]} -> {delays[1]} ns pair {k + 1}: {text}", flush=True)
    false = 0
    for k in range(args.aa):
        a, b = run(files[delays[0]], results), run(files[delays[0]], results)
        flagged, text, rows = compared(a, b, results)
        false += flagged
        print(f"A/A pair {k + 1}: {text} ({rows} rows flagged in all)", flush=True)
    print(f"\nthe {delays[1] - delays[0]} ns change flagged in {changed} of {args.pairs} pairs (goal: at least 4 of 5); the delay's row "
          f"flagged in {false} of {args.aa} A/A pairs (goal: at most 1 of 10)")


if __name__ == "__main__":
    main()
