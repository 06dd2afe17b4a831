"""Not a test: what the default anatomy collection costs a trial's p50, measured side by side in one run.

    cd harness && ../.venv/bin/python -m tests.measure_anatomy_cost [TARGET ...] [--trials N] [--calls N]

Per target, one pair of workers (same-core placement) runs twoway trials alternately with the default collection
(anatomy.reading.AnatomyReading, as every trial: a snapshot of both processes, their sockets and the namespace's
TCP counters, and the server's stats line, before the `run` command and after its answer) and without it, in
ABBA order so drift hits both alike. Prints each side's median p50, the median of the paired ratios
(with / without), and how long the reading before a trial takes.
The workers' own heap counters (the C++ counting malloc, the JVM's allocation counters) are always on: their
cost is inside both sides (the C++ counter's own cost per allocation is printed by the ctest
test_allocation_counter).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from orbench.anatomy.reading import AnatomyReading, Workers
from orbench.anatomy.snapshot import local_shell
from orbench.hosts.placement import resolve
from orbench.stats.stats import read_samples
from orbench.targets.descriptor import get_target
from orbench.targets.workers import ClientWorker, ServerWorker


def measure(name: str, trials: int, calls: int, payload: int, scratch: Path) -> dict:
    target = get_target(name)
    placement = resolve("same-core")
    server = ServerWorker(name, placement.prefix("server") + target.server_command("127.0.0.1", 0),
                          scratch / f"{name}-server.log")
    client = ClientWorker(name, placement.prefix("client") + target.client_command(), scratch / f"{name}-client.log")
    try:
        client.call({"cmd": "hello"})
        client.call({"cmd": "connect", "endpoint": server.endpoint})
        warmup = 10000 if target.language == "java" else 1000
        run = {"cmd": "run", "mode": "twoway", "payload_type": "octets", "payload_bytes": payload, "calls": calls,
               "warmup": warmup, "samples_file": str(scratch / "s.i64"), "sync_timeout_ms": 20000}
        client.call(run, timeout=600)  # JIT and caches warm before either side counts
        p50 = {True: [], False: []}
        snapshot_s: list[float] = []
        for k in range(trials):
            for collect in ((True, False) if k % 2 == 0 else (False, True)):
                reading = None
                if collect:  # exactly what a trial does (running/measure.py): the same reading, both ends
                    started = time.monotonic()
                    reading = AnatomyReading(Workers(client.pid, server.pid, local_shell, local_shell, True),
                                             server.stats)
                    snapshot_s.append(time.monotonic() - started)
                answer = client.call(run, timeout=600)
                assert answer["ok"], answer
                if reading is not None:
                    reading.end(run["calls"] + run["warmup"], run["calls"], answer.get("memory"))
                p50[collect].append(float(statistics.median(read_samples(scratch / "s.i64"))))
        ratios = [a / b for a, b in zip(p50[True], p50[False], strict=True)]
        return {"target": name, "with_us": statistics.median(p50[True]) / 1000,
                "without_us": statistics.median(p50[False]) / 1000, "ratio": statistics.median(ratios),
                "snapshot_ms": statistics.median(snapshot_s) * 1000}
    finally:
        client.call({"cmd": "quit"}, timeout=10)
        client.stop()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("targets", nargs="*", default=["c-socket", "omniorb", "java-socket", "jacorb", "glassfish"])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--payload", type=int, default=1)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="orbench-anatomy-cost-"))
    print(f"load before: {os.getloadavg()}")
    print(f"{'target':12} {'p50 with':>10} {'without':>10} {'with/without':>13} {'snapshot':>9}")
    for name in args.targets:
        r = measure(name, args.trials, args.calls, args.payload, scratch)
        print(f"{r['target']:12} {r['with_us']:8.2f}us {r['without_us']:8.2f}us {r['ratio']:13.4f} "
              f"{r['snapshot_ms']:7.1f}ms")
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
