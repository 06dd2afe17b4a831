"""Not a test: whether a cut of a run's time moves its numbers, measured as A/B runs on a quiet machine.

    cd harness && ../.venv/bin/python -m tests.measure_cuts CUT [CUT ...] [--campaign quick] [--pairs 4] [--results DIR]
    cd harness && ../.venv/bin/python -m tests.measure_cuts code --other-checkout /path/to/main [--pairs 4]
    cd harness && ../.venv/bin/python -m tests.measure_cuts checkout --other-checkout /path/to/main [--pairs 4]

A is the campaign with the cut off, B with it on, both with fixed repetitions (the campaign's launches, trials
and calls: no budget, so both run the same repetitions); the runs alternate A B A B ... so drift hits both alike.
CUT is one or more of (several: A has all of them off, B all on):
- steady_max_s: steady-state chunks bounded by time (B) or by steady_max_calls only (A);
- anatomy_trials: the anatomy counters read on the first round only (B) or around every trial (A);
- rewarm: the campaign's rewarm and jvm_rewarm (B) against 1000 and 2000 calls (A, quick's values before);
- rewarm_modes: the rewarm before the later trials of the campaign's rewarm_modes only (B) or of every mode (A);
- steady_at: the steady-state chunks at each worker's first point of a launch only (B) or at every point (A);
- jvm_warmup: the campaign's fixed JVM warm-up (B) against 10000 calls (A, quick's value before);
- anatomy_payload_bytes: the anatomy read at the campaign's sizes only (B) or at every size (A);
- all: these together;
- code: this checkout (B) against another one (A, e.g. main before the cuts: the anatomy read in-process, the
  skip rule without a second pass over the samples), both on the other checkout's campaign file with every cut
  key left out;
- checkout: this checkout with its own campaign file (B) against another checkout with its own (A): a release
  of the campaign against the one before it, code and keys together.
Prints, per A/B pair, what `orbench compare` flags (a cut that moves no number flags about as many rows as the
A/A pairs do), each side's cross-run capture (`orbench agreement`), and each side's wall time and timed share.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from orbench.paths import campaigns_dir, repo_root
from orbench.results.store import open_run
from orbench.summary.agreement import agreement

# Per cut: the keys of its A side (off); B keeps the campaign's own values (on).
CUT_OFF: dict[str, dict[str, Any]] = {
    "steady_max_s": {"steady_max_s": None},
    "anatomy_trials": {"anatomy_trials": "all"},
    "rewarm": {"rewarm": 1000, "jvm_rewarm": 2000},
    "rewarm_modes": {"rewarm_modes": ["twoway", "oneway"]},
    "steady_at": {"steady_at": "every-point"},
    "jvm_warmup": {"jvm_warmup": 10000},
    "anatomy_payload_bytes": {"anatomy_payload_bytes": None},
}
CUT_OFF["all"] = {k: v for cut in list(CUT_OFF.values()) for k, v in cut.items()}
# Keys a checkout before the cuts does not know, left out of both sides of `code`.
NEW_KEYS = ("budget", "repetitions", "plan_from", "max_launches", "steady_max_s", "anatomy_trials", "steady_at",
            "anatomy_payload_bytes")


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        # A key that is not bare (c++) is quoted.
        return "{" + ", ".join(f"{k if re.fullmatch(r'[A-Za-z0-9_-]+', k) else json.dumps(k)} = {toml_value(v)}"
                               for k, v in value.items()) + "}"
    return repr(value)


def write_campaign(data: dict[str, Any], path: Path) -> Path:
    """A campaign's keys as TOML (tables written inline)."""
    path.write_text("".join(f"{k} = {toml_value(v)}\n" for k, v in data.items()))
    return path


def fixed(data: dict[str, Any], name: str, changes: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in data.items() if k not in ("budget", "repetitions")}
    out["name"] = name
    for k, v in changes.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = v
    return out


def run(orbench: list[str], campaign: Path, results: Path, checkout: Path) -> Path:
    """One run of `campaign` by `orbench`, which must be the orbench of `checkout`: a side that silently ran
    the other checkout's code would make the A/B an A/A."""
    env = {**os.environ, "ORBENCH_RESULTS": str(results)}
    proc = subprocess.run([*orbench, "run", str(campaign), "--no-report"], env=env, capture_output=True, text=True)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("results: ")), None)
    if line is None:
        sys.exit(f"{campaign}: the run failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    run_dir = Path(line.split(": ", 1)[1])
    ran = Path(json.loads((run_dir / "manifest.json").read_text())["command"][0]).resolve()
    if not ran.is_relative_to(checkout.resolve()):
        sys.exit(f"{run_dir}: ran the orbench at {ran}, not the one of {checkout} ({' '.join(orbench)}): make that "
                 f"command import its own checkout's harness (python -P, so the working directory does not win)")
    return run_dir


def flagged(orbench: list[str], a: Path, b: Path, scratch: Path) -> int:
    """Rows `orbench compare A B` flags."""
    out = scratch / "compare.json"
    subprocess.run([*orbench, "compare", str(a), str(b), "--json", str(out)], capture_output=True, text=True)
    return int(json.loads(out.read_text())["flagged_rows"])


def wall(run_dir: Path) -> tuple[float, float]:
    """A run's seconds end to end as its time accounting says (the runner, the summary), and the timed share."""
    account = json.loads((run_dir / "manifest.json").read_text()).get("time_accounting") or {}
    if not account:
        return float("nan"), float("nan")
    return (float(account["wall_s"]) + sum((account.get("after_run") or {}).values()),
            float(account["timed_share"]))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("cuts", nargs="+", choices=[*CUT_OFF, "code", "checkout"], metavar="CUT")
    p.add_argument("--campaign", default="quick", help="a campaign name, or a file (FILE.toml)")
    p.add_argument("--pairs", type=int, default=4)
    p.add_argument("--results", default="/tmp/orbench-cuts")
    p.add_argument("--other-checkout", help="with code or checkout: the checkout of side A")
    args = p.parse_args()
    args.cut = " ".join(args.cuts)
    if len(args.cuts) > 1 and {"code", "checkout"} & set(args.cuts):
        sys.exit("code and checkout each run alone")
    results = Path(args.results)
    results.mkdir(parents=True, exist_ok=True)
    here = [sys.executable, "-m", "orbench"]
    if args.cut in ("code", "checkout"):
        if not args.other_checkout:
            sys.exit(f"{args.cut}: give --other-checkout PATH (the checkout of side A)")
        other = Path(args.other_checkout)
    if args.cut == "checkout":
        mine = tomllib.loads((campaigns_dir() / f"{args.campaign}.toml").read_text())
        theirs = tomllib.loads((other / "harness" / "campaigns" / f"{args.campaign}.toml").read_text())
        a_side = (write_campaign(fixed(theirs, f"{args.campaign}-a", {}), results / "a.toml"),
                  [str(other / ".venv" / "bin" / "orbench")])
        b_side = (write_campaign(fixed(mine, f"{args.campaign}-b", {}), results / "b.toml"), here)
    elif args.cut == "code":
        data = tomllib.loads((other / "harness" / "campaigns" / f"{args.campaign}.toml").read_text())
        data = {k: v for k, v in data.items() if k not in NEW_KEYS}
        a_side = (write_campaign(fixed(data, f"{args.campaign}-a", {}), results / "a.toml"),
                  [str(other / ".venv" / "bin" / "orbench")])
        b_side = (write_campaign(fixed(data, f"{args.campaign}-b", {}), results / "b.toml"), here)
    else:
        path = Path(args.campaign) if args.campaign.endswith(".toml") else campaigns_dir() / f"{args.campaign}.toml"
        data = tomllib.loads(path.read_text())
        args.campaign = data["name"]
        off = {k: v for cut in args.cuts for k, v in CUT_OFF[cut].items()}
        a_side = (write_campaign(fixed(data, f"{args.campaign}-a", off), results / "a.toml"), here)
        b_side = (write_campaign(fixed(data, f"{args.campaign}-b", {}), results / "b.toml"), here)
    runs: dict[str, list[Path]] = {"A": [], "B": []}
    for k in range(args.pairs):
        for side, (campaign, orbench) in (("A", a_side), ("B", b_side)):
            checkout = other if side == "A" and args.cut in ("code", "checkout") else repo_root()
            runs[side].append(run(orbench, campaign, results, checkout))
            print(f"pair {k + 1}: {side} {runs[side][-1]}", flush=True)
    print(f"\n{args.cut}: A = cut off, B = cut on, {args.pairs} pairs, run alternately")
    ab = [flagged(here, a, b, results) for a, b in zip(runs["A"], runs["B"])]
    aa = [flagged(here, x, y, results) for side in "AB" for x, y in zip(runs[side][::2], runs[side][1::2])]
    print(f"rows flagged, A vs B: {ab}; A/A and B/B: {aa} (a cut that moves no number flags no more than A/A)")
    for side in "AB":
        total = agreement([open_run(r) for r in runs[side]]).overall()
        capture = f"cross-run capture {total.rate:.2f} ({total.held} of {total.pairs})" if total.rate is not None else ""
        walls = [wall(r) for r in runs[side]]
        print(f"{side}: wall {statistics.median(w for w, _ in walls):.0f} s (median; the code side's A: its checkout "
              f"may keep no accounting), timed share {statistics.median(s for _, s in walls):.0%}; {capture}")


if __name__ == "__main__":
    main()
