"""The C socket server's --serial mode (PROTOCOL.md, "Load servers"), the known answer for load: one thread
serves every connection one request at a time and counts each payload-carrying request's service time. Real
server, real clients over loopback."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from orbench.stats.stats import read_samples
from orbench.targets.conformance import Conformance, format_checks
from orbench.targets.descriptor import get_target
from orbench.targets.workers import ClientWorker, ServerWorker

from tests.conftest import require_targets

SPIN_NS = 200_000        # far above the server's own cost per request, so a service time below it is a bug
CALLS, WARMUP = 40, 5
# Two clients calling at once, each call a long spin: far longer than any skew between the clients' starts or
# any wait for a CPU, so one at a time and both at once tell apart by latency without a tight timing.
SLOW_SPIN_NS = 100_000_000
SLOW_CALLS = 4


def service(server: ServerWorker, at_least: int = 0) -> dict:
    """The stats answer's `service`; waits (briefly) until it counts `at_least` requests: the last one is
    added once its reply's write has returned, which may be after the client has the reply."""
    deadline = time.monotonic() + 5
    while True:
        moments = (server.stats() or {}).get("service")
        assert moments is not None, "a serial server's stats answer has no service"
        if moments["requests"] >= at_least or time.monotonic() > deadline:
            return moments
        time.sleep(0.02)


def start(name: str, tmp_path: Path, tag: str, clients: int = 1) -> tuple[ServerWorker, list[ClientWorker]]:
    target = get_target(name)
    server = ServerWorker(name, target.server_command("127.0.0.1"), tmp_path / f"{tag}-server.log")
    workers = [ClientWorker(name, target.client_command(), tmp_path / f"{tag}-client-{k}.log") for k in range(clients)]
    for w in workers:
        assert w.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}})["ok"]
    return server, workers


def run(client: ClientWorker, mode: str, calls: int, warmup: int, path: Path) -> dict:
    answer = client.call({"cmd": "run", "mode": mode, "payload_type": "octets", "payload_bytes": 1000,
                          "calls": calls, "warmup": warmup, "samples_file": str(path), "sync_timeout_ms": 20000},
                         timeout=120)
    assert answer["ok"], answer
    return answer


def test_service_counts_every_payload_carrying_request_and_its_spin(tmp_path):
    require_targets("c-socket-serial")
    server, (client,) = start(f"c-socket-serial@{SPIN_NS}", tmp_path, "moments")
    try:
        assert server.ready["worker"]["serial"] is True and server.ready["worker"]["delay_ns"] == SPIN_NS
        first = service(server)
        expected = first["requests"]
        for mode in ("twoway", "echo", "oneway"):
            run(client, mode, CALLS, WARMUP, tmp_path / f"{mode}.i64")
            expected += CALLS + WARMUP   # resets, counters and sync barriers are not payload-carrying
            now = service(server, at_least=expected)
            assert now["requests"] == expected, (mode, now, expected)
        served = now["requests"] - first["requests"]
        mean = (now["busy_ns"] - first["busy_ns"]) / served
        mean_square = (now["busy_sq_ns2"] - first["busy_sq_ns2"]) / served
        assert mean >= SPIN_NS, mean
        assert mean_square >= mean * mean * (1 - 1e-9), (mean_square, mean)  # E[S^2] >= E[S]^2
    finally:
        client.stop()
        server.stop()


def two_clients_at_once(name: str, tmp_path: Path) -> tuple[float, float, ServerWorker, list[ClientWorker]]:
    """Both clients run SLOW_CALLS twoway calls at the same time: their total calls per second over the wall
    time of both runs (which holds more than the calls, so it can only understate the rate), and the longest
    first call of the two."""
    server, clients = start(name, tmp_path, name.replace("@", "-"), clients=2)
    paths = [tmp_path / f"{name}-{k}.i64" for k in range(2)]
    threads = [threading.Thread(target=run, args=(c, "twoway", SLOW_CALLS, 0, p)) for c, p in zip(clients, paths)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rate = 2 * SLOW_CALLS / (time.monotonic() - began)
    return rate, float(max(read_samples(p)[0] for p in paths)), server, clients


def test_a_serial_server_serves_one_request_at_a_time(tmp_path):
    require_targets("c-socket-serial", "c-socket-delay")
    capacity = 1e9 / SLOW_SPIN_NS   # one request per spin, at best
    rate, _, server, clients = two_clients_at_once(f"c-socket-serial@{SLOW_SPIN_NS}", tmp_path)
    try:
        moments = service(server, at_least=2 * SLOW_CALLS)
        assert moments["requests"] == 2 * SLOW_CALLS
        assert moments["busy_ns"] >= 2 * SLOW_CALLS * SLOW_SPIN_NS
    finally:
        for w in (*clients, server):
            w.stop()
    # One at a time: the two clients together get no more than one spin's worth of calls per second. (Whether
    # their first calls met is up to the scheduler on a loaded machine, so the first calls are not compared.)
    assert rate <= capacity, f"{rate:.1f} calls/s from a server of {capacity:.1f} calls/s at most"
    # The thread-per-connection server with the same spin serves both at once: two calls are in service at a time.
    rate, _, server, clients = two_clients_at_once(f"c-socket-delay@{SLOW_SPIN_NS}", tmp_path)
    for w in (*clients, server):
        w.stop()
    assert rate > capacity, f"{rate:.1f} calls/s: the threaded server did not serve both clients at once"


def test_serial_is_refused_with_the_stall_hook(tmp_path):
    require_targets("c-socket")
    target = get_target("c-socket").with_server_args(("--serial", "--stall-after", "5"))
    try:
        ServerWorker("c-socket", target.server_command("127.0.0.1"), tmp_path / "server.log")
    except Exception as exc:  # WorkerError: the start error line, naming the argument
        assert "--stall-after" in str(exc) and "--serial" in str(exc), exc
    else:
        raise AssertionError("the server started with --serial and --stall-after")


@pytest.mark.slow
def test_check_target_passes_for_the_serial_server(tmp_path):
    require_targets("c-socket-serial")
    target = get_target("c-socket-serial@50000")
    checks = Conformance(target, log_dir=tmp_path).run()
    assert all(c.passed for c in checks), format_checks(target, checks)
    assert any(c.name == "serial server counts every request's service time" for c in checks)
