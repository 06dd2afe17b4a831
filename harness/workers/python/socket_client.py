"""The Python socket baseline's client (target python-socket), the floor omniORBpy is measured against: one
write per request (header and payload built once, in one page-aligned buffer), replies read with recv_into into
one preallocated page-aligned buffer, whatever is available at a time; TCP_NODELAY on unless the option set says
otherwise."""

from __future__ import annotations

import socket
import struct
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import socket_wire as w  # noqa: E402
from orbench_worker.client import ClientBinding, run_client  # noqa: E402
from orbench_worker.errors import WorkerError  # noqa: E402
from orbench_worker.payloads import counted_bytes, octets  # noqa: E402
from orbench_worker.run import Call  # noqa: E402
from orbench_worker.spec import ConnectOptions, RunSpec  # noqa: E402

# Extra time over a sync's own timeout before a silent server counts as lost.
IO_TIMEOUT_MARGIN_S = 30.0


class SocketConnection:
    def __init__(self, sock: socket.socket, split_writes: bool):
        self.sock = sock
        # With Nagle on, timed requests go out as header then body, two writes, as a GIOP layer may.
        self.split_writes = split_writes
        self.reply = w.page_aligned(64 * 1024)
        self.reply_view = memoryview(self.reply)

    def close(self) -> None:
        self.sock.close()

    @contextmanager
    def timed_loop(self) -> Iterator[None]:
        """No socket timeouts for the timed calls: a blocking call with one arms a kernel timer each time it waits
        (PROTOCOL.md, "No timer per call"); the control requests keep theirs."""
        set_io_timeout(self.sock, 0)
        try:
            yield
        finally:
            set_io_timeout(self.sock, IO_TIMEOUT_MARGIN_S)

    def _read_reply(self, size: int, got: int = 0) -> None:
        """Reads the rest of a reply of `size` bytes of which `got` are in the buffer: whatever is available."""
        if size > len(self.reply):
            self.reply_view.release()
            self.reply = w.page_aligned(size)
            self.reply_view = memoryview(self.reply)
        if got == 0:
            got = self.sock.recv_into(self.reply_view, size)
        while got < size:
            n = self.sock.recv_into(self.reply_view[got:], size - got)
            if n == 0:
                raise ConnectionError("the server closed the connection")
            got += n

    def _control(self, kind: int, body: bytes, reply_body: int) -> memoryview:
        self.sock.sendall(w.header(kind, len(body)) + body)
        self._read_reply(w.REPLY_BYTES + reply_body)
        status = w.PREAMBLE.unpack_from(self.reply, w.HEADER_BYTES)[1]
        if self.reply[7] != w.REPLY | kind or status != 0:
            raise WorkerError("remote", f"server answered kind {self.reply[7]:#x} status {status} to request {kind}")
        return self.reply_view[w.REPLY_BYTES:w.REPLY_BYTES + reply_body]

    def reset_counters(self) -> None:
        self._control(w.RESET, b"", 0)

    def shutdown(self) -> None:
        self._control(w.SHUTDOWN, b"", 0)

    def counters(self) -> tuple[int, int]:
        return w.COUNTERS_REPLY.unpack(self._control(w.COUNTERS, b"", w.COUNTERS_REPLY.size))

    def sync(self, expected: int, timeout_ms: int) -> tuple[bool, tuple[int, int]]:
        set_io_timeout(self.sock, timeout_ms / 1000 + IO_TIMEOUT_MARGIN_S)
        try:
            complete, m, b = w.SYNC_REPLY.unpack(
                self._control(w.SYNC, w.SYNC_BODY.pack(expected, timeout_ms), w.SYNC_REPLY.size))
        finally:
            set_io_timeout(self.sock, IO_TIMEOUT_MARGIN_S)
        return bool(complete), (m, b)

    def prepare(self, spec: RunSpec) -> Call:
        """Every payload type is plain bytes here: the bytes an ORB's server would count for it."""
        kind = {"oneway": w.ONEWAY, "twoway": w.TWOWAY, "echo": w.ECHO}[spec.mode]
        payload = octets(counted_bytes(spec.payload_type, spec.payload_bytes))
        request = w.page_aligned(w.HEADER_BYTES + len(payload))
        request[:] = w.header(kind, len(payload)) + payload
        head, body = memoryview(request)[:w.HEADER_BYTES], memoryview(request)[w.HEADER_BYTES:]
        sendall, read = self.sock.sendall, self._read_reply
        reply_size = w.REPLY_BYTES + (len(payload) if kind == w.ECHO else 0)
        if reply_size > len(self.reply):
            self.reply_view.release()
            self.reply = w.page_aligned(reply_size)
            self.reply_view = memoryview(self.reply)
        recv_into, view = self.sock.recv_into, self.reply_view
        # One function per case, so a timed call is the write(s) and one read when the reply is all there (a
        # twoway's 24 bytes always are), and nothing else.
        if self.split_writes:
            def send(_):
                sendall(head)
                sendall(body)

            def call(_):
                sendall(head)
                sendall(body)
                got = recv_into(view, reply_size)
                if got < reply_size:
                    read(reply_size, got)
        else:
            def send(_):
                sendall(request)

            def call(_):
                sendall(request)
                got = recv_into(view, reply_size)
                if got < reply_size:
                    read(reply_size, got)
        if kind == w.ONEWAY:
            # Unsplit, the socket's own sendall is the call: no Python frame of ours between the clock reads
            # (16 and 64 KB oneways against a plain program: 1.04-1.08x with a closure around it, 1.01-1.05x without).
            return Call(send, None) if self.split_writes else Call(sendall, request)

        def check(_) -> None:
            if self.reply[7] != w.REPLY | kind or (
                    kind == w.ECHO and self.reply_view[w.REPLY_BYTES:reply_size] != payload):
                raise WorkerError("remote", "the reply is not the one sent for")
        return Call(call, None, check)


def set_io_timeout(sock: socket.socket, seconds: float) -> None:
    timeval = struct.pack("ll", int(seconds), int(seconds % 1 * 1e6))
    for opt in (socket.SO_RCVTIMEO, socket.SO_SNDTIMEO):
        sock.setsockopt(socket.SOL_SOCKET, opt, timeval)


def connect(endpoint: str, options: ConnectOptions) -> SocketConnection:
    if options.sync_scope is not None:
        raise WorkerError("unsupported", 'option "sync_scope": a socket baseline has no oneway sync scope')
    try:
        host, port = w.parse_endpoint(endpoint)
    except ValueError as exc:
        raise WorkerError("usage", str(exc)) from None
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        if options.socket_buffer_bytes:
            for opt in (socket.SO_SNDBUF, socket.SO_RCVBUF):
                sock.setsockopt(socket.SOL_SOCKET, opt, options.socket_buffer_bytes)
        sock.settimeout(IO_TIMEOUT_MARGIN_S)
        sock.connect((host, port))
        # Blocking from here: Python's own timeouts poll() before every recv, a syscall the C baseline does not
        # make; the kernel's SO_RCVTIMEO/SO_SNDTIMEO bound a silent server instead.
        sock.settimeout(None)
        set_io_timeout(sock, IO_TIMEOUT_MARGIN_S)
        nodelay = options.tcp_nodelay is not False
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1 if nodelay else 0)
    except OSError as exc:
        sock.close()
        raise WorkerError("transport", f"connect {endpoint}: {exc}") from None
    conn = SocketConnection(sock, split_writes=not nodelay)
    conn.reset_counters()
    return conn


def error_kind(exc: BaseException) -> str | None:
    return "transport" if isinstance(exc, OSError) else None


if __name__ == "__main__":
    sys.exit(run_client(ClientBinding(target=sys.argv[sys.argv.index("--target") + 1] if "--target" in sys.argv
                                      else "python-socket", connect=connect, error_kind=error_kind)))
