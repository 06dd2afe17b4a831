"""`make bench-fidelity`: orbench's C socket baseline against an independent tool, sockperf's ping-pong, with
the same CPU placement and message sizes, in one run; prints the ratio per size.

Like with like: sockperf's ping-pong echoes each message (the same size back) and reports half the round trip
(RTT/2). orbench's `twoway` sends an empty 24-byte reply, so the comparison uses orbench's `echo` mode (the
payload comes back, after a 24-byte header+preamble), halved. sockperf's message is the payload plus orbench's
12-byte request header, so the request carries the same bytes on the wire; orbench's reply is 12 bytes longer.
Both run pinned as the placement says (same-core: server and client on one CPU), and they alternate: after each
orbench trial at a size, one sockperf run at that size.
"""

from __future__ import annotations

import argparse
import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from orbench.campaign.spec import read_campaign
from orbench.errors import UserError
from orbench.hosts.placement import resolve
from orbench.results.store import RunStore, write_json_atomic
from orbench.results.summary import write_summary
from orbench.results.trial import Trial
from orbench.running.runner import Runner

HEADER_BYTES = 12  # orbench's OBSK request header (harness/PROTOCOL.md)
# sockperf's TCP ping-pong refuses messages near 64 KiB on this build; sizes stay below.
SIZES = [16, 128, 1024, 4096, 16384, 32168]
_P50 = re.compile(r"percentile 50\.000 =\s*([\d.]+)")
_OBS = re.compile(r"Total (\d+) observations")

CAMPAIGN = """
name = "fidelity"
description = "c-socket echo vs sockperf ping-pong (make bench-fidelity)"
targets = ["c-socket"]
modes = ["echo"]
payload_bytes = {sizes}
placements = ["{placement}"]
trials = {trials}
calls = {calls}
warmup = 1000
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sockperf_p50_us(msg_bytes: int, seconds: float, placement: str, log: Path) -> tuple[float, int]:
    """One sockperf TCP ping-pong against its own server, both pinned per the placement: (p50 of RTT/2 in
    microseconds, observations)."""
    pl = resolve(placement)
    port = _free_port()
    with open(log, "a") as out:
        server = subprocess.Popen(pl.prefix("server") + ["sockperf", "server", "--tcp", "-i", "127.0.0.1", "-p",
                                                         str(port)], stdout=out, stderr=subprocess.STDOUT)
        try:
            time.sleep(0.5)
            proc = subprocess.run(pl.prefix("client") + ["sockperf", "ping-pong", "--tcp", "-i", "127.0.0.1", "-p",
                                                         str(port), "-m", str(msg_bytes), "-t", str(seconds)],
                                  capture_output=True, text=True, timeout=seconds + 60)
        finally:
            server.terminate()
            server.wait(timeout=10)
        out.write(proc.stdout + proc.stderr)
    m, n = _P50.search(proc.stdout + proc.stderr), _OBS.search(proc.stdout + proc.stderr)
    if proc.returncode != 0 or not m:
        raise UserError(f"sockperf ping-pong -m {msg_bytes} failed (exit {proc.returncode}); its output is in {log}")
    return float(m.group(1)), int(n.group(1)) if n else 0


def run_fidelity(sizes: list[int] = SIZES, placement: str = "same-core", trials: int = 5, calls: int = 5000,
                 sockperf_seconds: float = 2.0, root: Path | None = None) -> tuple[RunStore, list[dict[str, Any]]]:
    """orbench's c-socket echo trials and sockperf runs alternate (trial, sockperf run, trial, ...), so the
    machine's drift hits both; each pair gives one ratio, and the row reports their median and range."""
    if shutil.which("sockperf") is None:
        raise UserError("sockperf not found (apt-get install sockperf, or: make deps)")
    sockperf_runs: dict[int, list[tuple[int, float, int]]] = {size: [] for size in sizes}

    def after_trial(runner: Runner, trial: Trial) -> None:
        # The orbench workers sit idle (blocked in read) while sockperf runs.
        msg = trial.point.payload_bytes + HEADER_BYTES
        p50, n = sockperf_p50_us(msg, sockperf_seconds, placement, runner.store.logs_dir / f"sockperf-{msg}B.log")
        sockperf_runs[trial.point.payload_bytes].append((trial.trial, p50 * 1e3, n))

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fidelity.toml"
        path.write_text(CAMPAIGN.format(sizes=sizes, placement=placement, trials=trials, calls=calls))
        campaign = read_campaign(path)
        store = RunStore.create(campaign.name, root)
        Runner(campaign, store, on_trial_done=after_trial).run()
    write_summary(store)
    trial_p50 = {(t.point.payload_bytes, t.trial): float(t.p50_ns or 0) for t in store.read_trials() if t.ok}
    rows = []
    for size in sizes:
        pairs = [(trial_p50[(size, t)] / 2, sp) for t, sp, _n in sockperf_runs[size] if (size, t) in trial_p50]
        ratios = [o / sp for o, sp in pairs]
        rows.append({
            "payload_bytes": size, "sockperf_msg_bytes": size + HEADER_BYTES, "pairs": len(pairs),
            "orbench_half_rtt_p50_ns": float(np.median([o for o, _ in pairs])) if pairs else None,
            "sockperf_half_rtt_p50_ns": float(np.median([sp for _, sp in pairs])) if pairs else None,
            "orbench_trials_half_rtt_p50_ns": [o for o, _ in pairs],
            "sockperf_runs_p50_ns": [sp for _, sp in pairs],
            "sockperf_observations": sum(n for _t, _sp, n in sockperf_runs[size]),
            "ratio_orbench_over_sockperf": float(np.median(ratios)) if ratios else None,
            "ratio_range": [min(ratios), max(ratios)] if ratios else None,
        })
    write_json_atomic(store.path / "fidelity.json", {"placement": placement, "rows": rows, "note": __doc__})
    store.mark_latest()
    return store, rows


def format_rows(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'payload':>8} {'sockperf -m':>11} {'orbench echo/2 p50':>19} {'sockperf RTT/2 p50':>19} {'ratio':>6}"
             "  (median of paired ratios; range)"]
    for r in rows:
        ob = r["orbench_half_rtt_p50_ns"]
        if r["sockperf_half_rtt_p50_ns"] is None:
            lines.append(f"{r['payload_bytes']:>7}B  no paired measurement")
            continue
        ratio = r["ratio_orbench_over_sockperf"]
        lines.append(f"{r['payload_bytes']:>7}B {r['sockperf_msg_bytes']:>10}B "
                     f"{'-' if ob is None else f'{ob / 1e3:.2f} us':>19} {r['sockperf_half_rtt_p50_ns'] / 1e3:>16.2f} us "
                     f"{'-' if ratio is None else f'{ratio:.2f}':>6}"
                     + ("" if not r["ratio_range"] else f"  [{r['ratio_range'][0]:.2f}, {r['ratio_range'][1]:.2f}]"))
    return "\n".join(lines)


NAME = "fidelity"
HELP = "orbench's C socket baseline vs sockperf ping-pong, ratio per size"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sizes", help="payload sizes, comma separated (default 16,128,1024,4096,16384,32168)")
    p.add_argument("--placement", default="same-core", choices=["same-core", "split-core", "unpinned"])
    p.add_argument("--trials", type=int, default=5,
                   help="orbench trials per size, each followed by one sockperf run (default 5)")
    p.add_argument("--calls", type=int, default=5000, help="orbench calls per trial")
    p.add_argument("--results", metavar="DIR", help="results store (default: results/ in the checkout)")


def run(args: argparse.Namespace) -> int:
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else SIZES
    store, rows = run_fidelity(sizes, placement=args.placement, trials=args.trials, calls=args.calls,
                               root=Path(args.results) if args.results else None)
    print(format_rows(rows))
    print(f"results: {store.path}")
    return 0
