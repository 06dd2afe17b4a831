"""The Python worker kit (harness/workers/python/orbench_worker) agrees with the contract's shared definitions:
the same arrivals from a seed as C++ and Java, the same histogram buckets as HdrHistogram, the same elements."""

import os
import sys

import pytest
from hdrh.histogram import HdrHistogram
from orbench.paths import repo_root
from orbench.running.soak.intervals import SOAK_DIGITS, SOAK_HIGHEST_NS

sys.path.insert(0, str(repo_root() / "harness" / "workers" / "python"))

from orbench_worker.errors import WorkerError  # noqa: E402
from orbench_worker.histogram import Histogram, bucket_of, highest_in  # noqa: E402
from orbench_worker.pacing import (  # noqa: E402
    SPIN_CPU_SHARE,
    SPIN_NS,
    ArrivalSchedule,
    SplitMix64,
    spin_for_period,
    thread_slack_path,
    wait_until,
)
from orbench_worker.payloads import counted_bytes, elements  # noqa: E402
from orbench_worker.spec import parse_run_spec, take_load_spec  # noqa: E402


def test_splitmix64_gives_the_protocols_first_outputs():
    rng = SplitMix64(0)
    assert [rng.next(), rng.next()] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4]


def test_a_late_paced_call_still_sleeps_the_least_sleep():
    """The counting mode's least sleep (pacing.py says why): a deadline 1 ms past, a least sleep of 2 ms."""
    import time
    start = time.monotonic_ns()
    wait_until(start - 1_000_000, 2_000_000)
    assert time.monotonic_ns() - start >= 2_000_000


def test_a_paced_spin_keeps_to_its_share_of_the_cpus():
    """All of SPIN_NS at a low rate, no more than SPIN_CPU_SHARE of the process's CPUs at a high one."""
    assert spin_for_period(10_000_000) == SPIN_NS
    spin = spin_for_period(20_000)
    assert 0 < spin <= SPIN_CPU_SHARE * len(os.sched_getaffinity(0)) * 20_000
    assert spin_for_period(0) == 0


def test_a_paced_wait_sets_a_precise_timer_slack():
    """Each pacing thread sets its own timer slack to 1 ns (pacing.py says why); another thread keeps its own."""
    import threading
    import time
    seen: dict[str, str] = {}

    def slack() -> str:
        with open(thread_slack_path()) as f:
            return f.read().strip()

    def paced() -> None:
        with open(thread_slack_path(), "w") as f:
            f.write("50000")
        seen["before"] = slack()
        wait_until(time.monotonic_ns() + 100_000)
        seen["after"] = slack()

    def idle() -> None:
        with open(thread_slack_path(), "w") as f:
            f.write("50000")
        seen["other"] = slack()

    for work in (paced, idle):
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
    assert seen == {"before": "50000", "after": "1", "other": "50000"}


def test_poisson_gaps_average_the_period():
    schedule = ArrivalSchedule(1000.0, "poisson", 17)
    schedule.start_at(0)
    times = [schedule.next() for _ in range(20001)]
    assert times[0] == 0
    assert 0.97e6 < times[-1] / 20000 < 1.03e6


def test_every_bucket_is_hdrhistograms_counts_index():
    h = HdrHistogram(1, SOAK_HIGHEST_NS, SOAK_DIGITS)
    for value in [1, 255, 256, 257, 1000, 65535, 123_456_789, 2**40 + 12345, SOAK_HIGHEST_NS]:
        assert bucket_of(value) == h._counts_index_for(value), value
        assert highest_in(bucket_of(value)) >= value


def test_percentiles_never_below_the_value_and_within_one_128th():
    hist = Histogram()
    for v in range(1000, 101000, 100):
        hist.record(v)
    p50 = hist.percentile(50)
    assert 50900 <= p50 <= 50900 * (1 + 1 / 128)
    assert hist.percentile(100) == hist.max == 100900 and hist.min == 1000


def test_elements_are_the_protocols():
    assert elements("octets", 300)[255:258] == bytes([255, 0, 1])
    assert elements("longs", 12) == [0, -1640531535, 1013904226]
    assert elements("records", 40) == [(0, 0.0, 0, 0, 0), (1, 0.5, 1, 1, 0)]
    assert elements("strings", 32)[1] == "bcdefghijklmnopq"
    assert counted_bytes("records", 1) == 0 and counted_bytes("doubles", 1001) == 1000


def test_run_fields_are_checked_as_every_worker_checks_them():
    base = {"mode": "twoway", "payload_type": "octets", "payload_bytes": 8, "calls": 10, "samples_file": "/x"}
    with pytest.raises(WorkerError) as exc:
        parse_run_spec({**base, "mode": "sideways"}, ("twoway",), ("octets",), False)
    assert exc.value.kind == "usage"
    with pytest.raises(WorkerError) as exc:
        parse_run_spec({**base, "mode": "echo"}, ("twoway",), ("octets",), False)
    assert exc.value.kind == "unsupported"
    with pytest.raises(WorkerError):
        parse_run_spec({**base, "calls": 1.5}, ("twoway",), ("octets",), False)
    with pytest.raises(WorkerError):
        take_load_spec({"arrivals": "poisson"})


def test_the_socket_baselines_timed_calls_run_without_socket_timeouts():
    """PROTOCOL.md, "No timer per call": the kit's timed loop drops the socket's SO_RCVTIMEO/SO_SNDTIMEO (a kernel
    timer armed on every wait) and the control requests get them back."""
    import socket
    import struct

    from orbench_worker.run import timed_io
    from socket_client import IO_TIMEOUT_MARGIN_S, SocketConnection, set_io_timeout

    def timeouts(sock: socket.socket) -> list[float]:
        return [sum(x * k for x, k in zip(struct.unpack("ll", sock.getsockopt(socket.SOL_SOCKET, opt, 16)),
                                          (1, 1e-6))) for opt in (socket.SO_RCVTIMEO, socket.SO_SNDTIMEO)]

    a, b = socket.socketpair()
    with a, b:
        set_io_timeout(a, IO_TIMEOUT_MARGIN_S)
        conn = SocketConnection(a, split_writes=False)
        with timed_io(conn):
            assert timeouts(a) == [0, 0]
        assert timeouts(a) == [IO_TIMEOUT_MARGIN_S] * 2


def _page_offset(buf) -> int:
    import ctypes
    import mmap
    return ctypes.addressof(ctypes.c_char.from_buffer(buf)) % mmap.PAGESIZE


def test_the_python_socket_baseline_moves_bytes_through_page_aligned_buffers():
    """The kernel's receive copy runs many times slower into a buffer a few bytes off the sender's page offset
    (socket_wire.page_aligned): a bytearray read buffer made the baseline's 64 KB twoway 1.7 times a plain Python
    program's. The server's buffers, one grown for a message larger than any before, and the client's."""
    import socket
    import threading

    import socket_client
    import socket_server
    import socket_wire as w
    client_end, server_end = socket.socketpair()
    with client_end, server_end:
        conn = socket_server.Connection(server_end, socket_server.Counters(), stop=lambda: None)
        assert _page_offset(conn.buf) == 0 and _page_offset(conn.out) == 0
        served = threading.Thread(target=conn.serve, daemon=True)
        served.start()
        large = socket_server.READ_BUFFER + 4096
        client_end.sendall(w.header(w.TWOWAY, large) + bytes(large) + w.header(w.SHUTDOWN, 0))
        replies = b""
        while len(replies) < 2 * w.REPLY_BYTES:
            replies += client_end.recv(4096)
        served.join(10)
        assert replies[7] == w.REPLY | w.TWOWAY and len(conn.buf) >= large + w.HEADER_BYTES
        assert _page_offset(conn.buf) == 0
        client = socket_client.SocketConnection(client_end, split_writes=False)
        spec = parse_run_spec({"mode": "oneway", "payload_type": "octets", "payload_bytes": 65536, "calls": 1,
                               "samples_file": "/x"}, ("oneway",), ("octets",), False)
        request = client.prepare(spec).argument
        assert len(request) == w.HEADER_BYTES + 65536 and _page_offset(request) == 0
        assert _page_offset(client.reply) == 0
