"""The anatomy collectors (orbench.anatomy) against real processes: a child that burns CPU, sleeps and writes,
and the C socket baseline's real workers, whose wire bytes are known to the byte."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time

import pytest
from orbench.anatomy.delta import Window, process_delta, trial_fields, wire_delta
from orbench.anatomy.netstat import TCP_EVENTS, parse_netstat, tcp_events
from orbench.anatomy.procfs import parse_stat
from orbench.anatomy.snapshot import local_shell, take_snapshot
from orbench.anatomy.sockdiag import tcp_sockets
from orbench.anatomy.strace import StraceError, StraceSession, parse_strace_summary
from orbench.anatomy.tcpinfo import parse_ss
from orbench.targets.descriptor import get_target
from orbench.targets.workers import ClientWorker, ServerWorker

from tests.conftest import require_targets

HEADER, REPLY = 12, 24  # the socket baselines' request header and empty twoway reply (PROTOCOL.md)
COUNTERS_REPLY = REPLY + 16

# A child that does, on each stdin line, what the line says: burn CPU in user space for n ms of wall time (the
# clock read is the vDSO's, no system call), sleep, write to /dev/null. It answers with its own CPU time in ns
# (getrusage through process_time_ns), the kernel's accounting seen from inside.
# "spawn" starts a thread that waits; "finish N" lets it burn N ms and end.
CHILD = textwrap.dedent("""
    import os, sys, threading, time
    null = os.open(os.devnull, os.O_WRONLY)

    def burn(ms):
        end = time.perf_counter() + ms / 1000
        while time.perf_counter() < end:
            pass

    go, waiting = threading.Event(), None
    for line in sys.stdin:
        what, n = line.split()
        n = int(n)
        if what == "burn":
            burn(n)
        elif what == "spawn":
            waiting = threading.Thread(target=lambda: (go.wait(), burn(go.ms)))
            waiting.start()
        elif what == "finish":
            go.ms = n
            go.set()
            waiting.join()
        elif what == "sleep":
            for _ in range(n):
                time.sleep(0.001)
        elif what == "write":
            for _ in range(n):
                os.write(null, b"x")
        print("done", time.process_time_ns(), flush=True)
""")


@pytest.fixture
def child():
    proc = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def do(what: str, n: int) -> int:
        proc.stdin.write(f"{what} {n}\n")
        proc.stdin.flush()
        done, cpu_ns = proc.stdout.readline().split()
        assert done == "done"
        return int(cpu_ns)

    do.pid = proc.pid
    do("write", 0)  # the interpreter has started: its imports are not in a test's window
    yield do
    proc.stdin.close()
    proc.wait(timeout=10)


def delta_of(pid: int, action) -> object:
    before = take_snapshot([pid], sockets=False).processes[pid]
    action()
    after = take_snapshot([pid], sockets=False).processes[pid]
    return process_delta(before, after)


def test_cpu_time_is_the_schedulers_exact_sum(child):
    cpu = {}
    d = delta_of(child.pid, lambda: cpu.update(start=child("burn", 0), end=child("burn", 300)))
    # What the child says it used between its two answers, against what the snapshots read: the snapshots'
    # window is wider by the child's reading of its first command and writing of its last answer.
    inside = cpu["end"] - cpu["start"]
    assert inside > 0.01e9, cpu  # it ran, even on a loaded machine
    assert inside <= d.cpu_ns <= inside + 5e6, (d, inside)
    # A busy loop in user space: the ticks that fell in it are user ticks.
    assert d.user_ns is not None and d.user_ns > 0.8 * d.cpu_ns, d


def test_a_thread_that_ends_in_the_window_keeps_its_cpu_time_and_is_counted(child):
    child("spawn", 0)
    cpu = {}

    def finish() -> None:
        cpu.update(start=child("burn", 0), end=child("finish", 200))
        # join() returns as the thread's code ends; the kernel may list its task a moment longer, and the
        # harness's own reading is fast enough to see it: wait until it is gone, as the test means.
        deadline = time.monotonic() + 5
        while len(os.listdir(f"/proc/{child.pid}/task")) > 1 and time.monotonic() < deadline:
            time.sleep(0.001)

    d = delta_of(child.pid, finish)
    inside = cpu["end"] - cpu["start"]
    # The process clock still has the ended thread's time; the per-thread figures no longer do.
    assert inside > 0.01e9 and inside <= d.cpu_ns <= inside + 5e6, (d, inside)
    assert d.threads_ended == 1, d


def test_sleeps_are_voluntary_switches_and_writes_are_write_calls(child):
    d = delta_of(child.pid, lambda: child("sleep", 50))
    assert 50 <= d.voluntary_switches <= 70, d
    d = delta_of(child.pid, lambda: child("write", 1000))
    # 1000 writes to /dev/null and one to stdout ("done"); reading the command is one read.
    assert 1000 <= d.write_calls <= 1010, d
    assert 1 <= d.read_calls <= 3, d


def test_a_remote_host_reads_the_cpu_clock_in_its_script(child):
    # The script's own python3 reads the clock on a remote host; the harness reads it here: the same clock.
    here = take_snapshot([child.pid], sockets=False).processes[child.pid].process_cpu_ns
    there = take_snapshot([child.pid], sockets=False, local=False).processes[child.pid].process_cpu_ns
    assert here is not None and there is not None and 0 <= there - here < 5e6


def test_a_gone_process_is_absent():
    proc = subprocess.Popen(["true"])
    proc.wait()
    assert proc.pid not in take_snapshot([proc.pid]).processes


def test_stat_parsing_survives_a_command_with_spaces_and_parentheses():
    line = "4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 100 0 0 0 37 23 0 0 20 0 30 0 123 456 789"
    assert parse_stat(line) == (37, 23)


def test_netstat_has_the_events_and_a_trial_without_traffic_has_none():
    with open("/proc/net/netstat") as a, open("/proc/net/snmp") as b:
        counters = parse_netstat(a.read() + b.read())
    assert "TcpExt.TCPTimeouts" in counters and "Tcp.RetransSegs" in counters
    assert set(tcp_events(counters, counters)) == {k for k in TCP_EVENTS if k in counters}
    assert all(v == 0 for v in tcp_events(counters, counters).values())


def test_ss_parsing():
    text = ("ESTAB 0      0      127.0.0.1:58440 127.0.0.1:45645 uid:0 ino:274039 sk:1001 cgroup:/ <->\n"
            "\t ts sack cubic wscale:7,7 rto:204 rtt:0.01/0 bytes_sent:100 bytes_retrans:12 bytes_acked:89 "
            "bytes_received:24 segs_out:9 segs_in:8 data_segs_out:7 data_segs_in:6 retrans:0/3 lastsnd:4\n"
            "ESTAB 0 0 [::ffff:127.0.0.1]:1 [::ffff:127.0.0.1]:2 ino:5 sk:1 <->\n")
    sockets = parse_ss(text)
    s = sockets[274039]
    assert (s.local, s.peer, s.bytes_out, s.bytes_received, s.data_segs_out, s.data_segs_in, s.retrans) == \
        ("127.0.0.1:58440", "127.0.0.1:45645", 88, 24, 7, 6, 3)
    assert sockets[5].peer == "[::ffff:127.0.0.1]:2" and sockets[5].bytes_out == 0


def test_sock_diag_reads_what_ss_reads():
    # The harness reads local sockets over netlink (sockdiag.py) instead of starting `ss`: the same counters.
    pairs = []
    for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
        listener = socket.socket(family)
        listener.bind((host, 0))
        listener.listen()
        client = socket.create_connection(listener.getsockname()[:2])
        server, _ = listener.accept()
        for _ in range(20):
            client.sendall(b"x" * 1500)
        server.sendall(b"y" * 7)
        time.sleep(0.05)
        pairs.append((listener, client, server))
    try:
        read = tcp_sockets()
        shown = parse_ss(subprocess.run(["ss", "-tinHe"], capture_output=True, text=True, check=True).stdout)
        assert read is not None
        for _, client, server in pairs:
            for sock in (client, server):
                inode = os.fstat(sock.fileno()).st_ino
                assert read[inode] == shown[inode]
            assert read[os.fstat(client.fileno()).st_ino].bytes_out == 30000
            assert read[os.fstat(server.fileno()).st_ino].data_segs_out == 1
    finally:
        for sockets in pairs:
            for sock in sockets:
                sock.close()


def test_a_local_snapshot_starts_no_process(child, monkeypatch):
    # A process started right before a trial slows it (sockdiag.py): reading this machine starts none.
    def refuse(*args, **kwargs):
        raise AssertionError(f"a local snapshot started a process: {args}")
    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    assert child.pid in take_snapshot([child.pid], sockets=True).processes


def test_strace_summary_parsing():
    text = """% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 79.34    0.304027        1339       227        71 futex
  6.36    0.024381          12      2019           read
------ ----------- ----------- --------- --------- ----------------
100.00    0.383180          79      2246        71 total
"""
    counts = parse_strace_summary(text)
    assert set(counts) == {"futex", "read"}
    assert (counts["futex"].calls, counts["futex"].errors, counts["read"].calls, counts["read"].errors) == \
        (227, 71, 2019, 0)


@pytest.fixture
def c_socket_pair(tmp_path):
    require_targets("c-socket")
    target = get_target("c-socket")
    server = ServerWorker("c-socket", target.server_command("127.0.0.1", 0), tmp_path / "server.log")
    client = ClientWorker("c-socket", target.client_command(), tmp_path / "client.log")
    hello = client.call({"cmd": "hello"})
    assert hello["pid"] == client.pid
    assert client.call({"cmd": "connect", "endpoint": server.endpoint})["ok"]
    yield server, client
    client.call({"cmd": "quit"})
    client.stop()
    server.stop()


def run_command(tmp_path, payload: int, calls: int, warmup: int) -> dict:
    return {"cmd": "run", "mode": "twoway", "payload_type": "octets", "payload_bytes": payload, "calls": calls,
            "warmup": warmup, "samples_file": str(tmp_path / "s.i64"), "sync_timeout_ms": 10000}


def test_c_baseline_wire_bytes_are_exact(c_socket_pair, tmp_path):
    server, client = c_socket_pair
    payload, calls, warmup = 100, 2000, 200
    pids = [client.pid, server.pid]
    before = take_snapshot(pids)
    answer = client.call(run_command(tmp_path, payload, calls, warmup), timeout=120)
    after = take_snapshot(pids)
    assert answer["ok"], answer
    wire = wire_delta(before.sockets[client.pid], after.sockets[client.pid])
    made = calls + warmup
    # The run's requests: every call, two resets and a counters request, each a 12-byte header plus its body;
    # the replies: a 24-byte empty reply per call and reset, 40 bytes for counters.
    assert wire.bytes_out == made * (HEADER + payload) + 3 * HEADER
    assert wire.bytes_in == made * REPLY + 2 * REPLY + COUNTERS_REPLY
    # One write per request with TCP_NODELAY and nothing in flight: one data segment each way per call.
    assert wire.segments_out == made + 3 and wire.segments_in == made + 3
    assert wire.retransmits == 0 and wire.sockets == 1
    # The server sees the mirror image on its own socket.
    server_wire = wire_delta(before.sockets[server.pid], after.sockets[server.pid])
    assert (server_wire.bytes_in, server_wire.bytes_out) == (wire.bytes_out, wire.bytes_in)

    fields = trial_fields(Window(client.pid, server.pid, before, after, before, after, True), made, calls,
                          answer.get("memory"), None)
    assert fields["wire_out_bytes"] == round((made * (HEADER + payload) + 36) / made, 2)
    # send/recv are not read/write calls (/proc/PID/io): the client's writes are its answer line only.
    assert fields["client_writes"] < 0.01
    assert fields["client_cpu_us"] > 0 and fields["server_cpu_us"] > 0
    # Blocking request-reply: each side sleeps in recv at most once per call, less when, unpinned, the answer
    # is already there (the client 0.28 per call on a 2-vCPU guest once the server's path was inline).
    assert 0 < fields["client_vcsw"] <= 1.1 and 0 < fields["server_vcsw"] <= 1.1
    # The C baseline's timed loop allocates nothing.
    assert fields["client_allocs"] == 0


def test_c_baseline_makes_one_send_and_one_recv_per_twoway_call(c_socket_pair, tmp_path):
    server, client = c_socket_pair
    calls = 2000
    sessions = []
    try:
        for pid in (client.pid, server.pid):
            sessions.append(StraceSession.attach(local_shell, pid, str(tmp_path / f"strace-{pid}.txt")))
    except StraceError as exc:
        for s in sessions:
            s.stop()
        if "not permitted" in str(exc) or "not installed" in str(exc) or os.geteuid() != 0:
            pytest.skip(f"strace cannot attach here: {exc}")
        raise
    started = time.monotonic()
    answer = client.call(run_command(tmp_path, 1, calls, 0), timeout=300)
    client_counts, server_counts = (s.stop() for s in sessions)
    assert answer["ok"], answer
    assert time.monotonic() - started < 120
    made = calls + 3  # and the two resets and the counters request
    for counts in (client_counts, server_counts):
        assert abs(counts["sendto"].calls / made - 1) <= 0.05, counts
        assert 1 <= counts["recvfrom"].calls / made <= 2.05, counts
