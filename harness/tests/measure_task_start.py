"""Not a test: what a thread or a process started by the harness right before a trial does to that trial.

    cd harness && ../.venv/bin/python -m tests.measure_task_start [--size N] [--pairs N] [--calls N] [--placement P]

orbench's c-socket workers (oneway, split-core by default) run `calls`-call trials alternately with the plain C
reference of `orbench fidelity` (orbench-c-pingpong, slices mode) moving the same bytes. Before each orbench trial
the driver does one of: nothing; start a Python thread and join it; start a thread and leave it waiting through the
trial; run `sh -c true`; run `sh -c true` and then wait 100 ms. Per variant it prints the median over pairs of
orbench's trial p50 / the adjacent reference slice's p50, and the function-call interrupts (on x86 the IPIs of
remote wake-ups, /proc/interrupts CAL) the server's CPU took per orbench trial.

What it showed on a 2-vCPU KVM guest (kernel 6.18, haltpoll cpuidle), 16 B, three runs of 40, 20 and 40 pairs of
1000 calls (ratio; IPIs per trial): nothing 1.028-1.069 (95-140), a thread started and ended 1.084-1.120
(244-305), a thread left waiting 1.076-1.109 (218-314), a process 1.079-1.115 (212-316), a process then 100 ms
1.016-1.121 (36-64). The interrupt counts separate the variants in every run, the ratios in most: a task started
right before a trial about doubles the wake-up IPIs for tens of milliseconds. Why is not established here; the
harness starts no thread or process between a trial's readings and its calls (running/load_usage.py,
anatomy/sockdiag.py).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from orbench.hosts.placement import resolve
from orbench.running.fidelity_references import Pingpong
from orbench.stats.stats import read_samples
from orbench.targets.descriptor import get_target
from orbench.targets.workers import ClientWorker, ServerWorker


def function_call_irqs(cpus: set[int]) -> int:
    with open("/proc/interrupts") as f:
        header = f.readline().split()
        for line in f:
            fields = line.split()
            if fields and fields[0] == "CAL:":
                return sum(int(fields[1 + k]) for k in range(len(header)) if k in cpus)
    return 0


def process() -> None:
    subprocess.run(["sh", "-c", "true"], check=True)


def thread_ended() -> None:
    t = threading.Thread(target=lambda: None)
    t.start()
    t.join()


# Each variant: what runs before an orbench trial, and what after it (the thread left waiting is let go).
def nothing():
    return lambda: None


def thread_left_waiting():
    done = threading.Event()
    thread = threading.Thread(target=done.wait)
    thread.start()
    return lambda: (done.set(), thread.join())


def started_and_gone(start):
    def before():
        start()
        return lambda: None
    return before


def process_then_wait():
    process()
    time.sleep(0.1)
    return lambda: None


VARIANTS = {"nothing": nothing, "thread started and ended": started_and_gone(thread_ended),
            "thread left waiting": thread_left_waiting, "process": started_and_gone(process),
            "process, then 100 ms": process_then_wait}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=16)
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--placement", default="split-core")
    args = parser.parse_args()
    placement = resolve(args.placement)
    target = get_target("c-socket")
    scratch = Path(tempfile.mkdtemp(prefix="orbench-task-start-"))
    server = ServerWorker("c-socket", placement.prefix("server") + target.server_command("127.0.0.1", 0),
                          scratch / "server.log")
    client = ClientWorker("c-socket", placement.prefix("client") + target.client_command(), scratch / "client.log")
    # The plain C program of `orbench fidelity`'s c-pingpong-oneway row, started as that row starts it.
    plain = Pingpong("c-pingpong-oneway", "oneway", placement, "127.0.0.1", args.calls, scratch, scratch)
    try:
        client.call({"cmd": "hello"})
        client.call({"cmd": "connect", "endpoint": server.endpoint})
        plain.start()
        server_cpus = placement.cpus("server")

        def orbench_trial(warmup: int) -> tuple[float, int]:
            irqs = function_call_irqs(server_cpus)
            path = scratch / "orbench.i64"
            client.call({"cmd": "run", "mode": "oneway", "payload_type": "octets", "payload_bytes": args.size,
                         "calls": args.calls, "warmup": warmup, "samples_file": str(path), "sync_timeout_ms": 20000})
            return statistics.median(read_samples(path)), function_call_irqs(server_cpus) - irqs

        orbench_trial(10000)
        plain.measure(args.size, 0, 0, 10000)
        print(f"c-socket oneway {args.size} B {args.placement}, {args.pairs} pairs of {args.calls} calls against "
              f"orbench-c-pingpong; before each orbench trial:")
        for name, before in VARIANTS.items():
            ratios, irqs = [], []
            for k in range(args.pairs):
                reference = plain.measure(args.size, 0, k + 1, 200)
                after = before()
                p50, n = orbench_trial(200)
                after()
                ratios.append(p50 / reference.p50_ns)
                irqs.append(n)
            print(f"  {name:<26} orbench / plain p50 {statistics.median(ratios):.3f}   function-call IRQs on the "
                  f"server's CPU per trial {statistics.median(irqs):.0f}")
    finally:
        plain.stop()
        client.stop()
        server.stop()


if __name__ == "__main__":
    main()
