"""The TCP data segments per call read around every trial (running/wire_reading.py), on a real loopback
connection of this process: a closed loop of 1-byte calls sends one segment per call."""

from __future__ import annotations

import os
import socket
import threading

from orbench.anatomy.snapshot import process_socket_inodes
from orbench.anatomy.sockdiag import socket_counters, socket_ids, tcp_sockets
from orbench.running.wire_reading import WireReading


def test_a_closed_loop_of_one_byte_calls_reads_one_segment_per_call():
    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    server, _ = listener.accept()

    def echo() -> None:
        while data := server.recv(1):
            server.sendall(data)

    thread = threading.Thread(target=echo, daemon=True)
    thread.start()
    try:
        # This process holds both ends: the reading counts the segments both sent, a request and its reply.
        reading = WireReading(os.getpid())
        for _ in range(200):
            client.sendall(b"x")
            assert client.recv(1) == b"x"
        assert reading.per_call(200) == 2.0
        assert reading.per_call(0) is None
        # One socket asked for by its id reads what a dump of every socket reads.
        inodes = process_socket_inodes(os.getpid())
        dumped = tcp_sockets() or {}
        for inode, found in socket_ids(inodes).items():
            one = socket_counters(found)
            assert one is not None and one.data_segs_out == dumped[inode].data_segs_out
        assert sum(dumped[i].data_segs_out for i in inodes if i in dumped) >= 400
    finally:
        client.close()
        thread.join(timeout=5)
        server.close()
        listener.close()


def test_a_client_not_on_this_machine_is_not_read():
    assert WireReading(None).per_call(100) is None


def test_an_older_run_keeps_the_segments_its_anatomy_trials_read():
    """Before schema 17 only the trials that read the anatomy had the figure (wire_out_segs, over the same warm-up
    and timed calls): upgraded, they carry it as out_segs_per_call, and the others read none."""
    from orbench.results.upgrade import upgrade

    _, rows = upgrade({"schema_version": 16}, [{"wire_out_segs": "0.161"}, {"wire_out_segs": ""}, {}])
    assert [r["out_segs_per_call"] for r in rows] == ["0.161", "", ""]
