"""The WAN measurement: the twoway p50 table of loopback next to two namespace hosts (netns.py) joined by a
kernel veth bridge and by an emulated WAN link (1 ms each way), for omniORB / c-socket and JacORB / java-socket.

    sudo .venv/bin/python -m orbench.hosts.measure_wan [RESULTS_DIR]

Prints one table per run and the results directories. Takes about 10 minutes on a 2-core VM.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from orbench.hosts.netns import Lab, netem_missing, why_no_lab
from orbench.results.point import Point

CAMPAIGN = """
name = "{name}"
targets = ["omniorb", "jacorb"]
modes = ["twoway"]
payload_bytes = [1, 1024, 32768]
trials = {trials}
calls = {calls}
warmup = {warmup}
jvm_warmup = {jvm_warmup}
host_pairs = {pairs}
{ssh}
{hosts}
"""


def run(lab: Lab, name: str, pairs: str, results: Path, **sizes: int) -> Path:
    text = CAMPAIGN.format(name=name, pairs=pairs, ssh=lab.campaign_ssh(),
                           hosts=lab.campaign_hosts(Path("/tmp/orbench-measure")), **sizes)
    path = Path(tempfile.mkdtemp()) / f"{name}.toml"
    path.write_text(text)
    out = subprocess.run([sys.executable, "-m", "orbench", "run", str(path), "--no-report", "--results", str(results)],
                         capture_output=True, text=True)
    print(out.stdout, file=sys.stderr)
    if out.returncode != 0:
        print(out.stderr[-3000:], file=sys.stderr)
    return (results / name / "latest").resolve()


def table(run_dirs: dict[str, Path]) -> str:
    rows = ["| link | target | 1 B | 1 KB | 32 KB |", "|---|---|---|---|---|"]
    for label, run_dir in run_dirs.items():
        summary = json.loads((run_dir / "summary.json").read_text())
        by = {Point.from_record(p): p for p in summary["points"]}
        for pair in sorted({k.host_pair for k in by}, key=lambda p: p != "local"):
            for target in ("c-socket", "omniorb", "java-socket", "jacorb"):
                cells = []
                for size in (1, 1024, 32768):
                    p = by.get(Point(host_pair=pair, placement="same-core", mode="twoway", payload_type="octets",
                                     payload_bytes=size, target=target))
                    lat = (p or {}).get("latency_ns")
                    cells.append(f"{lat['p50'] / 1000:.1f} us" if lat else "-")
                    added = (p or {}).get("orb_added_latency_ns") or {}
                    if added.get("estimate") is not None:
                        cells[-1] += f" (+{added['estimate'] / 1000:.1f})"
                where = "loopback" if pair == "local" else f"{label} ({pair})"
                rows.append(f"| {where} | {target} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main() -> None:
    if why_no_lab():
        sys.exit(f"cannot make namespace hosts: {why_no_lab()}")
    results = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="orbench-wan-"))
    runs: dict[str, Path] = {}
    with tempfile.TemporaryDirectory() as tmp:
        lab = Lab.create(Path(tmp) / "bridge")
        try:
            runs["veth bridge"] = run(lab, "lan", '[["local", "local"], ["alpha", "beta"]]', results,
                                      trials=3, calls=2000, warmup=500, jvm_warmup=10000)
        finally:
            lab.close()
        wan = {"delay_ms": 1.0, "loss": 0.0, "rate_mbit": 0}
        lab = Lab.create(Path(tmp) / "wan", wan=None if not netem_missing() else wan)
        try:
            if not netem_missing():
                lab.netem("delay 1ms")
            runs["1 ms each way" + (" (tunlink)" if netem_missing() else " (netem)")] = run(
                lab, "wan", '[["alpha", "beta"]]', results, trials=3, calls=1000, warmup=200, jvm_warmup=3000)
        finally:
            lab.close()
    print(table(runs))
    for label, path in runs.items():
        print(f"{label}: {path}")


if __name__ == "__main__":
    main()
