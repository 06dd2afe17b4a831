"""check-target's steps on what a worker does in time, not only in total, and on what a server does for more than
one client (harness/targets/README.md, "Adding an ORB", step Check):

- while a paced run's calls are made, the server's own count (its `stats` answer, read by the harness on the
  server's stdin, never through the client) rises with them, and at the end it is what the client's answer says:
  a oneway client that holds its calls back until the closing sync, or a twoway client that answers calls
  without a round trip, is seen here, however consistent its answer is;
- several clients of one server, at once: their runs overlap and the server counts them all;
- the IDL's shutdown(): the client has its reply, then the server process ends by itself.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

from orbench.errors import WorkerError
from orbench.stats.stats import read_samples
from orbench.targets.descriptor import Target
from orbench.targets.workers import ClientWorker, ServerWorker

# The paced run: PACED_CALLS calls at PACED_RATE_HZ (0.4 s), no warm-up (so the server's count starts at 0 with
# the run's own reset), the server's count read every POLL_S meanwhile. At least MIN_COUNTS_DURING distinct
# counts strictly between none and all of the calls must be seen while the run goes on: one call every 4 ms
# keeps the count rising through about a hundred polls, where calls held back jump from 0 to all at the end.
PACED_RATE_HZ = 250
PACED_CALLS = 100
PACED_PAYLOAD = 100
POLL_S = 0.01
MIN_COUNTS_DURING = 3
# Several clients of one server: CLIENTS processes, each CLIENT_CALLS twoway calls after CLIENT_WARMUP, started
# together (PROTOCOL.md, "Load: several clients") and paced at PACED_RATE_HZ, so that their timed calls last
# long enough to overlap on a loaded machine (closed loop, a fast client can end before another is scheduled).
# The start barrier holds each until all have made their warm-up calls: a server that serves one connection
# at a time never completes it. A client whose connect or run gets no answer within CLIENTS_TIMEOUT_S is
# waiting for a server that serves someone else.
CLIENTS = 3
CLIENT_CALLS = 50
CLIENT_WARMUP = 5
CLIENTS_TIMEOUT_S = 30.0
# After shutdown()'s reply, the server process must be gone within this many seconds.
SHUTDOWN_SECONDS = 10.0


class Conformance(Protocol):
    """What these steps use of check-target's Conformance (conformance.py, which calls them)."""

    target: Target
    log_dir: Path

    def _validate(self, value: dict, definition: str) -> None: ...

    def _server(self, tag: str, args: tuple[str, ...] = ()) -> ServerWorker: ...

    def _client(self, tag: str) -> ClientWorker: ...


def _received(server: ServerWorker) -> dict:
    stats = server.stats()
    assert stats is not None, "the server does not answer the stats command (stdin_commands), which every " \
                              "orbench server must for this step"
    received = stats.get("received")
    assert isinstance(received, dict), f"the server's stats answer has no received counters: {stats}"
    return received


def arrivals_in_time(conformance: Conformance, client: ClientWorker, server: ServerWorker, mode: str) -> str:
    """A paced `mode` run while the harness reads the server's count: it rises during the run, and ends where
    the client's answer says."""
    answer = client.call({"cmd": "reset_counters"}, watch=[server])
    assert answer["ok"], f"reset_counters: {answer.get('error_kind')}: {answer.get('error')}"
    assert _received(server)["messages"] == 0, "the server's count is not 0 after reset_counters"
    counts: list[int] = []
    failed: list[BaseException] = []
    done = threading.Event()

    def poll() -> None:
        try:
            while not done.is_set():
                counts.append(int(_received(server)["messages"]))
                done.wait(POLL_S)
        except (AssertionError, WorkerError) as exc:
            failed.append(exc)

    path = conformance.log_dir / f"in-time-{mode}.i64"
    reader = threading.Thread(target=poll, daemon=True)
    reader.start()
    try:
        answer = client.call({"cmd": "run", "mode": mode, "payload_type": "octets", "payload_bytes": PACED_PAYLOAD,
                              "calls": PACED_CALLS, "warmup": 0, "rate_hz": PACED_RATE_HZ,
                              "samples_file": str(path), "sync_timeout_ms": 10000}, timeout=60, watch=[server])
    finally:
        done.set()
        reader.join()
    if failed:
        raise failed[0]
    if not answer["ok"]:
        raise AssertionError(f"error answer: {answer.get('error_kind')}: {answer.get('error')}")
    conformance._validate(answer, "run_answer")
    assert read_samples(path).size == PACED_CALLS, f"the samples file does not hold {PACED_CALLS} values"
    own = _received(server)
    said = answer["received"]
    assert own["messages"] == PACED_CALLS and own["bytes"] == PACED_CALLS * PACED_PAYLOAD, (
        f"the server itself counted {own['messages']} messages and {own['bytes']} bytes for {PACED_CALLS} calls of "
        f"{PACED_PAYLOAD} B (the client's answer says {said['messages']} and {said['bytes']}): calls answered "
        "without reaching the server")
    assert (said["messages"], said["bytes"]) == (own["messages"], own["bytes"]), \
        f"the client's answer says received {said}, the server itself {own}"
    during = sorted({n for n in counts if 0 < n < PACED_CALLS})
    assert len(during) >= MIN_COUNTS_DURING, (
        f"while the {PACED_CALLS} calls ran ({PACED_RATE_HZ:.0f} a second), {len(counts)} reads of the server's "
        f"count saw {_shown(counts)}: the calls reached it only at the end (held back until the closing sync?)")
    return f"the server's count seen rising at {len(during)} of {len(counts)} reads during the run"


def _shown(counts: list[int]) -> str:
    """A run of reads, repeats folded: 0 x 38, 100 x 2."""
    out: list[list[int]] = []
    for n in counts:
        if out and out[-1][0] == n:
            out[-1][1] += 1
        else:
            out.append([n, 1])
    return ", ".join(f"{n} x {k}" if k > 1 else str(n) for n, k in out[:12]) + (" ..." if len(out) > 12 else "")


def several_clients(conformance: Conformance, keep: dict | None = None) -> str:
    """CLIENTS client processes on one server of its own, their twoway runs started together: each connects and
    is served, the runs overlap, and the server counts every call of every client. `keep`: where it passes on
    its server and first client, connected, when it passed (the shutdown step's pair: fewer process starts)."""
    server = conformance._server("clients")
    clients = [conformance._client(f"clients-{k}") for k in range(CLIENTS)]
    passed = False
    try:
        for k, c in enumerate(clients):
            try:
                answer = c.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}},
                                timeout=CLIENTS_TIMEOUT_S, watch=[server])
            except WorkerError as exc:
                raise AssertionError(f"client {k + 1} of {CLIENTS}, connecting while {k} are connected: {exc} "
                                     "(does the server serve one connection at a time?)") from None
            assert answer["ok"], f"client {k + 1} connect: {answer.get('error_kind')}: {answer.get('error')}"
        answer = clients[0].call({"cmd": "reset_counters"}, timeout=CLIENTS_TIMEOUT_S, watch=[server])
        assert answer["ok"], f"reset_counters: {answer.get('error_kind')}: {answer.get('error')}"

        def run(k: int) -> dict:
            return clients[k].call({"cmd": "run", "mode": "twoway", "payload_type": "octets",
                                    "payload_bytes": PACED_PAYLOAD, "calls": CLIENT_CALLS, "warmup": CLIENT_WARMUP,
                                    "clients": CLIENTS, "rate_hz": PACED_RATE_HZ, "samples_file": str(conformance.log_dir / f"clients-{k}.i64"),
                                    "sync_timeout_ms": int(CLIENTS_TIMEOUT_S * 1000) // 2},
                                   timeout=CLIENTS_TIMEOUT_S, watch=[server])

        with ThreadPoolExecutor(CLIENTS) as pool:
            answers = list(pool.map(run, range(CLIENTS)))
        total = CLIENTS * (CLIENT_WARMUP + CLIENT_CALLS)
        for k, a in enumerate(answers):
            if not a["ok"]:
                raise AssertionError(f"client {k + 1}: error answer: {a.get('error_kind')}: {a.get('error')}")
            conformance._validate(a, "run_answer")
            assert (a.get("start_barrier") or {}).get("complete") and (a.get("sync") or {}).get("complete"), \
                f"client {k + 1}: a barrier did not complete: start {a.get('start_barrier')}, closing {a.get('sync')}"
            assert a["received"]["messages"] == total, \
                f"client {k + 1}: the group's count is {a['received']['messages']}, expected {total}"
        own = _received(server)["messages"]
        assert own == total, f"the server itself counted {own} messages, the {CLIENTS} clients made {total}"
        # Every client's timed calls began before any client's ended (one clock per host, PROTOCOL.md).
        latest_start = max(a["start_ns"] for a in answers)
        earliest_end = min(a["end_ns"] for a in answers)
        assert latest_start < earliest_end, "the clients' timed calls did not overlap: served one after another"
        passed = True
        return f"{CLIENTS} clients x {CLIENT_CALLS} calls, overlapping {(earliest_end - latest_start) / 1e6:.1f} ms"
    finally:
        kept = passed and keep is not None
        if kept:
            keep["pair"] = (server, clients[0])
        for c in clients[1:] if kept else clients:
            c.stop()
        if not kept:
            server.stop()


def shutdown_request(conformance: Conformance, pair: tuple[ServerWorker, ClientWorker] | None = None) -> str:
    """The client asks its server's shutdown() (command shutdown_server): the reply comes, then the server
    process ends with status 0 by itself, its stdin still open. `pair`: a server and a client connected to it
    (several_clients'), else a pair of its own."""
    server, client = pair or (conformance._server("shutdown"), conformance._client("shutdown"))
    try:
        if pair is None:
            answer = client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}}, watch=[server])
            assert answer["ok"], f"connect: {answer.get('error_kind')}: {answer.get('error')}"
        answer = client.call({"cmd": "shutdown_server"}, watch=[server])
        if not answer["ok"]:
            raise AssertionError(f"shutdown_server: {answer.get('error_kind')}: {answer.get('error')}")
        started = time.monotonic()
        try:
            code = server.proc.wait(timeout=SHUTDOWN_SECONDS)
        except Exception:
            raise AssertionError(f"the server still runs {SHUTDOWN_SECONDS:.0f} s after it answered shutdown()") \
                from None
        assert code == 0, f"the server exited with status {code} after shutdown()"
        return f"the server ended {time.monotonic() - started:.2f} s after its reply"
    finally:
        client.stop()
        server.stop()
