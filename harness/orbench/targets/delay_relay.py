"""A TCP relay between a client worker and its server that holds every byte from the server for a known time.

check-target runs a target's real client through it (conformance.py): a twoway sample cannot be shorter than
the delay, so a worker that reports microseconds, or a constant, is caught against a known answer; a oneway
call must return long before it, so a oneway that waits for a reply is caught too. The relay works for every
family, because only the server's port in the endpoint changes (endpoints.py): no server needs a delay of
its own.
"""

from __future__ import annotations

import collections
import socket
import threading
import time

CHUNK = 65536


class DelayRelay:
    """Listens on `host`, port chosen by the kernel; each accepted connection is paired with one to
    `host:upstream_port`. Client to server: passed on at once. Server to client: each chunk is sent
    `delay_s` after it arrived, in order."""

    def __init__(self, host: str, upstream_port: int, delay_s: float):
        self.host, self.upstream_port, self.delay_s = host, upstream_port, delay_s
        self.listener = socket.create_server((host, 0))
        self.port: int = self.listener.getsockname()[1]
        self._sockets: list[socket.socket] = [self.listener]
        self._closed = False
        threading.Thread(target=self._accept, daemon=True, name="delay-relay-accept").start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                down, _ = self.listener.accept()
            except OSError:
                return
            try:
                up = socket.create_connection((self.host, self.upstream_port), timeout=10)
            except OSError:
                down.close()
                continue
            up.settimeout(None)
            for s in (down, up):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._sockets += [down, up]
            threading.Thread(target=self._forward, args=(down, up), daemon=True).start()
            self._start_delayed(up, down)

    @staticmethod
    def _forward(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(CHUNK):
                dst.sendall(data)
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def _start_delayed(self, src: socket.socket, dst: socket.socket) -> None:
        # A reader that stamps each chunk and a sender that waits for its time, so two chunks that arrive
        # close together are both delayed by the same amount, not one after the other.
        chunks: collections.deque[tuple[float, bytes | None]] = collections.deque()
        ready = threading.Condition()

        def read() -> None:
            try:
                while data := src.recv(CHUNK):
                    with ready:
                        chunks.append((time.monotonic() + self.delay_s, data))
                        ready.notify()
            except OSError:
                pass
            with ready:
                chunks.append((time.monotonic() + self.delay_s, None))
                ready.notify()

        def send() -> None:
            while True:
                with ready:
                    while not chunks:
                        ready.wait()
                    due, data = chunks.popleft()
                while (left := due - time.monotonic()) > 0:
                    time.sleep(left)
                try:
                    if data is None:
                        dst.shutdown(socket.SHUT_WR)
                        return
                    dst.sendall(data)
                except OSError:
                    return

        threading.Thread(target=read, daemon=True).start()
        threading.Thread(target=send, daemon=True).start()

    def close(self) -> None:
        self._closed = True
        for s in self._sockets:
            try:
                s.close()
            except OSError:
                pass
