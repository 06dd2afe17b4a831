"""Not a test: what a thread or a process started by the harness right before a trial does to that trial.

    cd harness && ../.venv/bin/python -m tests.measure_task_start [--size N] [--pairs N] [--calls N] [--placement P]

orbench's c-socket workers (oneway, split-core by default) run `calls`-call trials alternately with the plain C
reference of `orbench fidelity` (orbench-c-pingpong, slices mode) moving the same bytes. Before each orbench trial
the driver does one of: nothing; start a Python thread and join it; start a thread and leave it waiting through the
trial; run `sh -c true`; run `sh -c true` and then wait 100 ms. Per variant it prints the median over pairs of
orbench's trial p50 / the adjacent reference slice's p50, and the function-call interrupts (on x86 the IPIs of
remote wake-ups, /proc/interrupts CAL) the server's CPU took per orbench trial.

What it showed on a 2-vCPU KVM guest (kernel 6.18, haltpoll cpuidle), 16 B, 40 pairs of 1000 calls: nothing
1.028 (140 IPIs per trial), a thread started and ended 1.084 (305), a thread left waiting 1.089 (314), a process
1.079 (310), a process then 100 ms 1.016 (64). Why a new task doubles the wake-up IPIs for tens of milliseconds is
not established here; the harness therefore starts no thread or process between a trial's readings and its calls
(running/load_usage.py, anatomy/sockdiag.py).
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from orbench.hosts.placement import resolve
from orbench.paths import repo_root
from orbench.running.fidelity import PINGPONG_EXECUTABLE, SliceClient
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


def nothing() -> None:
    pass


def thread_ended() -> None:
    t = threading.Thread(target=nothing)
    t.start()
    t.join()


def process() -> None:
    subprocess.run(["sh", "-c", "true"], check=True)


def process_then_wait() -> None:
    process()
    time.sleep(0.1)


class ThreadLeftWaiting:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.done.wait)

    def __call__(self) -> None:
        self.thread.start()

    def after(self) -> None:
        self.done.set()
        self.thread.join()


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
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pingpong = str(repo_root() / PINGPONG_EXECUTABLE)
    plain_server = subprocess.Popen(placement.prefix("server") + [pingpong, "server", "127.0.0.1", str(port)],
                                    stdin=subprocess.PIPE)
    time.sleep(0.3)
    plain = SliceClient(placement.prefix("client") + [pingpong, "slices", "127.0.0.1", str(port), "oneway"],
                        "plain", scratch / "plain.log", scratch)
    try:
        client.call({"cmd": "hello"})
        client.call({"cmd": "connect", "endpoint": server.endpoint})
        plain.start()
        server_cpus = placement.cpus("server")

        def orbench_trial(calls: int, warmup: int, before=nothing) -> tuple[float, int]:
            before()
            irqs = function_call_irqs(server_cpus)
            path = scratch / "orbench.i64"
            client.call({"cmd": "run", "mode": "oneway", "payload_type": "octets", "payload_bytes": args.size,
                         "calls": calls, "warmup": warmup, "samples_file": str(path), "sync_timeout_ms": 20000})
            irqs = function_call_irqs(server_cpus) - irqs
            if isinstance(before, ThreadLeftWaiting):
                before.after()
            return statistics.median(read_samples(path)), irqs

        orbench_trial(args.calls, 10000)
        plain.run(args.size, args.calls, 10000, "warm")
        variants = {"nothing": lambda: nothing, "thread started and ended": lambda: thread_ended,
                    "thread left waiting": ThreadLeftWaiting, "process": lambda: process,
                    "process, then 100 ms": lambda: process_then_wait}
        print(f"c-socket oneway {args.size} B {args.placement}, {args.pairs} pairs of {args.calls} calls against "
              f"orbench-c-pingpong; before each orbench trial:")
        for name, make in variants.items():
            ratios, irqs = [], []
            for k in range(args.pairs):
                reference = plain.run(args.size, args.calls, 200, f"ref{k}")
                p50, n = orbench_trial(args.calls, 200, make())
                ratios.append(p50 / reference.p50_ns)
                irqs.append(n)
            print(f"  {name:<26} orbench / plain p50 {statistics.median(ratios):.3f}   function-call IRQs on the "
                  f"server's CPU per trial {statistics.median(irqs):.0f}")
    finally:
        plain.stop()
        plain_server.stdin.close()
        plain_server.wait(timeout=10)
        client.stop()
        server.stop()


if __name__ == "__main__":
    main()
