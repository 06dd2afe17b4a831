"""The send/recv-family counter preloaded into the workers (cpp/syscount, anatomy/syscount.py): its region read
by the snapshot script from real processes, None (never 0) without it, and the C socket baseline's real workers
counted at about one send and one recv per twoway call at each end. The counter's own cost and its corner
cases (threads, fork, errno) are in its ctest, cpp/tests/test_syscount.cpp."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from orbench.anatomy.delta import Window, process_delta, trial_fields
from orbench.anatomy.snapshot import take_snapshot
from orbench.anatomy.syscount import (
    COUNTERS,
    MAGIC,
    local_library,
    parse_region,
    preload_value,
    preloaded_env,
)
from orbench.paths import repo_root
from orbench.targets.descriptor import get_target
from orbench.targets.workers import ClientWorker, ServerWorker

from tests.conftest import missing, require_targets


def library() -> str:
    path = local_library(repo_root())
    if path is None:
        missing("cpp/build/liborbench-syscount.so is not built (make cpp)")
    return path


def region_words(pid: int, slots: list[list[int]], used: int | None = None) -> list[int]:
    used = len(slots) if used is None else used
    return [MAGIC, 1, pid, len(COUNTERS), 1024, used, 0, 0] + [c for slot in slots for c in slot]


def test_a_region_is_the_sum_of_its_slots_in_use():
    slots = [[1, 0, 0, 0, 2, 0, 0, 0], [5, 1, 1, 1, 7, 1, 1, 1], [100] * 8]
    calls = parse_region(" ".join(map(str, region_words(42, slots, used=2))), 42)
    assert calls is not None
    assert calls.calls == {"send": 6, "sendto": 1, "sendmsg": 1, "sendmmsg": 1, "recv": 9, "recvfrom": 1,
                           "recvmsg": 1, "recvmmsg": 1}
    assert (calls.sends, calls.recvs) == (9, 12)


@pytest.mark.parametrize("words", [
    [],                                                            # no region
    region_words(43, [[1] * 8]),                                   # another process's (inherited from a parent)
    [MAGIC + 1] + region_words(42, [[1] * 8])[1:],                 # not a region of this layout
    region_words(42, [[1] * 8], used=2),                           # cut short
    region_words(42, [[1] * 8], used=0),
])
def test_anything_but_a_whole_region_of_the_process_is_none(words):
    assert parse_region(" ".join(map(str, words)), 42) is None


def test_a_path_the_dynamic_linker_would_split_is_not_preloaded():
    assert preload_value("/a/lib.so") == "/a/lib.so"
    assert preload_value("/a/lib.so", "/b/other.so") == "/a/lib.so:/b/other.so"
    assert preload_value("/my dir/lib.so") is None and preload_value("/a:b/lib.so") is None
    assert preloaded_env(None, {"PATH": "/bin"}) is None


# A child that, on each stdin line "N", makes N send and N recv calls on a socket pair and says "done".
CHILD = textwrap.dedent("""
    import socket, sys
    a, b = socket.socketpair()
    buffer = bytearray(16)
    for line in sys.stdin:
        for _ in range(int(line)):
            a.send(b"x")
            b.recv_into(buffer)
        print("done", flush=True)
""")


def counted_child(env: dict | None):
    proc = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env=env)

    def do(n: int) -> None:
        proc.stdin.write(f"{n}\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "done"

    do(1)  # started: its imports are not in the window
    return proc, do


def test_a_preloaded_process_has_its_sends_and_recvs_read_by_the_snapshot():
    proc, do = counted_child(preloaded_env(library(), os.environ))
    try:
        before = take_snapshot([proc.pid], sockets=False).processes[proc.pid]
        do(500)
        after = take_snapshot([proc.pid], sockets=False).processes[proc.pid]
        d = process_delta(before, after)
        assert (d.send_calls, d.recv_calls) == (500, 500), d
        # The same snapshot as a remote host's (its script reads the region with od, as here).
        remote = take_snapshot([proc.pid], sockets=False, local=False).processes[proc.pid]
        assert (remote.send_calls, remote.recv_calls) == (after.send_calls, after.recv_calls)
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)


def test_without_the_counter_there_are_no_counts_not_zero_counts():
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    proc, do = counted_child(env)
    try:
        before = take_snapshot([proc.pid], sockets=False)
        do(10)
        after = take_snapshot([proc.pid], sockets=False)
        d = process_delta(before.processes[proc.pid], after.processes[proc.pid])
        assert d.send_calls is None and d.recv_calls is None and d.read_calls is not None
        fields = trial_fields(Window(proc.pid, proc.pid, before, after, before, after, True), 10, 10, None, None)
        assert fields["client_sends"] is None and fields["server_recvs"] is None
        assert fields["client_reads"] is not None
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)


def test_c_socket_makes_one_send_and_one_recv_per_twoway_call_at_each_end(tmp_path):
    """The C baseline's real workers, started as a campaign starts them (the counter preloaded): at 1 KB each
    twoway call is one send and one recv at each end, and no read- or write-family call."""
    require_targets("c-socket")
    env = preloaded_env(library(), os.environ)
    target = get_target("c-socket")
    server = ServerWorker("c-socket", target.server_command("127.0.0.1", 0), tmp_path / "server.log", env=env)
    client = ClientWorker("c-socket", target.client_command(), tmp_path / "client.log", env=env)
    try:
        assert client.call({"cmd": "connect", "endpoint": server.endpoint})["ok"]
        calls, warmup = 2000, 200
        pids = [client.pid, server.pid]
        before = take_snapshot(pids)
        answer = client.call({"cmd": "run", "mode": "twoway", "payload_type": "octets", "payload_bytes": 1024,
                              "calls": calls, "warmup": warmup, "samples_file": str(tmp_path / "s.i64"),
                              "sync_timeout_ms": 10000}, timeout=300)
        after = take_snapshot(pids)
        assert answer["ok"], answer
        made = calls + warmup
        fields = trial_fields(Window(client.pid, server.pid, before, after, before, after, True), made, calls,
                              answer.get("memory"), None)
        for role in ("client", "server"):
            # Every call and the run's three control requests (two resets, counters): one message each way.
            assert abs(fields[f"{role}_sends"] - 1) <= 0.01, fields
            assert abs(fields[f"{role}_recvs"] - 1) <= 0.01, fields
            # The command line and its answer are the only read and write (stdin, stdout).
            assert fields[f"{role}_reads"] < 0.01 and fields[f"{role}_writes"] < 0.01, fields
    finally:
        client.stop()
        server.stop()
