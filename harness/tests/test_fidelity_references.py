"""The plain references of `orbench fidelity` read as the socket baselines do (each read takes what has arrived,
the messages are cut out of it): whatever the reads return, every request but a oneway gets one 24-byte reply.
A bug here hangs a fidelity row or drops replies, so each server gets a stream cut at awkward places."""

from __future__ import annotations

import socket
import struct
import subprocess
import time

import pytest
from orbench.paths import repo_root
from orbench.running.fidelity_references import _PINGPONGS, _free_port, _wait_listening, pingpong_command

from tests.conftest import missing

TWOWAY, ONEWAY, FLUSH = 1, 2, 3


def _command(language: str) -> list[str]:
    path, _, make_target = _PINGPONGS[language]
    if not (repo_root() / path).is_file():
        missing(f"{path} (make {make_target})")
    return pingpong_command(language)


def _message(kind: int, size: int) -> bytes:
    return struct.pack("<III", kind, 0, size) + bytes(i & 0xFF for i in range(size))


def _read(sock: socket.socket, n: int) -> bytes:
    got = b""
    while len(got) < n:
        chunk = sock.recv(n - len(got))
        assert chunk, f"the server closed the connection after {len(got)} of {n} reply bytes"
        got += chunk
    return got


@pytest.mark.parametrize("language", ["c", "java", "python"])
def test_every_request_but_a_oneway_is_answered_however_the_stream_is_cut(language, tmp_path):
    port = _free_port("127.0.0.1")
    log = tmp_path / "server.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(_command(language) + ["server", "127.0.0.1", str(port)], stdin=subprocess.PIPE,
                                  stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_listening("127.0.0.1", port, server, f"{language} reference server", log)
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        with sock:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            # A burst of small oneways and a twoway in one send: one read brings several messages.
            sock.sendall(b"".join(_message(ONEWAY, 16) for _ in range(50)) + _message(TWOWAY, 16))
            assert _read(sock, 24) == bytes(24)
            # Large messages (above the 16 KB read bound), a header cut in two, a body sent in pieces.
            stream = _message(ONEWAY, 65536) + _message(ONEWAY, 40000) + _message(TWOWAY, 32168) + _message(FLUSH, 0)
            for start, end in ((0, 5), (5, 12), (12, 70000), (70000, 70001), (70001, len(stream))):
                sock.sendall(stream[start:end])
                time.sleep(0.01)
            assert _read(sock, 48) == bytes(48)
            # Twoways one at a time, each answered before the next.
            for size in (1, 4096, 65536):
                sock.sendall(_message(TWOWAY, size))
                assert _read(sock, 24) == bytes(24)
            sock.settimeout(0.2)
            with pytest.raises(TimeoutError):
                sock.recv(1)  # nothing more: no reply to a oneway
    finally:
        server.stdin.close()
        server.wait(timeout=10)
