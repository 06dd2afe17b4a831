"""The Python socket baseline's server (target python-socket): one thread per connection, each reading
what is available (up to BULK_READ_BYTES) into one preallocated, page-aligned buffer (recv_into) and answering
each request with one write."""

from __future__ import annotations

import socket
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import socket_wire as w  # noqa: E402
from orbench_worker.output import log  # noqa: E402
from orbench_worker.server import Counters, ServerArgs, Started, run_server  # noqa: E402

# The read buffer's first size; it grows (once per new largest message) to hold a whole message.
READ_BUFFER = 256 * 1024
# The most one read takes in (or the last message's size, if larger): a burst of small messages comes in with one
# call, while a message over this size is read to its end and no further, as the C baseline reads (in a flood of
# large oneways a partial message at the buffer's end was copied to its front, twice, every few messages).
BULK_READ_BYTES = 16 * 1024


class Connection:
    def __init__(self, sock: socket.socket, counters: Counters, stop):
        self.sock, self.counters, self.stop = sock, counters, stop
        self.buf = w.page_aligned(READ_BUFFER)
        self.out = w.page_aligned(READ_BUFFER)
        self.request_id = 0

    def reply(self, kind: int, body: bytes | memoryview = b"", status: int = 0) -> None:
        """One write: header, preamble and body copied into the preallocated reply buffer."""
        n = w.REPLY_BYTES + len(body)
        if n > len(self.out):
            self.out = w.page_aligned(n)
        w.HEADER.pack_into(self.out, 0, w.MAGIC, 1, 0, 1, w.REPLY | kind, n - w.HEADER_BYTES)
        w.PREAMBLE.pack_into(self.out, w.HEADER_BYTES, self.request_id, status, 0)
        if body:
            self.out[w.REPLY_BYTES:n] = body
        self.sock.sendall(memoryview(self.out)[:n])

    def control(self, kind: int, body: memoryview) -> bool:
        """A request other than ONEWAY and TWOWAY; False ends the connection."""
        counters = self.counters
        if kind == w.ECHO:
            counters.count(len(body))
            self.reply(kind, body)
        elif kind == w.SYNC and len(body) == w.SYNC_BODY.size:
            expected, timeout_ms = w.SYNC_BODY.unpack_from(body)
            complete, (m, b) = counters.wait_for(expected, timeout_ms)
            self.reply(kind, w.SYNC_REPLY.pack(complete, m, b))
        elif kind == w.COUNTERS and not body:
            self.reply(kind, w.COUNTERS_REPLY.pack(*counters.snapshot()))
        elif kind == w.RESET and not body:
            counters.reset()
            self.reply(kind)
        elif kind == w.SHUTDOWN and not body:
            self.reply(kind)
            self.stop()
            return False
        else:
            self.reply(kind, status=1)   # unknown kind or a control request of the wrong size
        return True

    def serve(self) -> None:
        """The hot path, kept to as little Python as a request allows (it is the floor omniORBpy's C++ core is
        measured against): one unpack of the header, the count inline, the twoway reply a prebuilt 24 bytes
        with the request id patched in, reads into the one buffer."""
        buf, start, filled = self.buf, 0, 0
        view = memoryview(buf)
        counters, lock = self.counters, self.counters.lock
        recv_into, sendall = self.sock.recv_into, self.sock.sendall
        unpack_header, HB = w.HEADER.unpack_from, w.HEADER_BYTES
        twoway_reply = bytearray(w.header(w.REPLY | w.TWOWAY, w.PREAMBLE.size) + bytes(w.PREAMBLE.size))
        patch_id = w.REQUEST_ID.pack_into
        rid = 0
        bulk = BULK_READ_BYTES  # what a read may take before a header is known: the last message's size, or more
        while True:
            # Every complete message in the buffer, then read whatever is available after them.
            need = HB
            while filled - start >= HB:
                magic, _, _, _, kind, length = unpack_header(buf, start)
                if magic != w.MAGIC:
                    log("bad magic: closing the connection")
                    return
                need = HB + length
                if filled - start < need:
                    break
                if kind == w.TWOWAY or kind == w.ONEWAY:
                    if kind == w.TWOWAY:
                        # The reply before the count, which a plain program does not make: counted first, under
                        # the lock, a 1 B round trip at split-core read 1.03-1.08 times a plain program's, 0.98-1.02
                        # with the plain server counting the same way (`orbench fidelity`, three runs each). A
                        # request on this connection after it (a sync, the counters) is read after the count.
                        patch_id(twoway_reply, HB, rid)
                        sendall(twoway_reply)
                    with lock:
                        counters.messages += 1
                        counters.bytes += length
                        if counters.waiters:
                            counters.cond.notify_all()
                else:
                    self.request_id = rid
                    if not self.control(kind, view[start + HB:start + need]):
                        return
                rid += 1
                start += need
                bulk = need if need > BULK_READ_BYTES else BULK_READ_BYTES
                need = HB
            if start == filled:
                start = filled = 0
                n = recv_into(view, bulk)
            else:
                if start + need > len(buf):
                    # A partial message that does not fit behind `start`: to the front of the buffer, a larger
                    # one when the message is larger than any so far.
                    rest = filled - start
                    if need > len(buf):
                        bigger = w.page_aligned(need)
                        bigger[:rest] = view[start:filled]
                        view.release()
                        buf = self.buf = bigger
                        view = memoryview(buf)
                    else:
                        view[:rest] = bytes(view[start:filled])
                    start, filled = 0, rest
                # A large message is read exactly to its end, so no partial one is left behind it to be moved.
                n = recv_into(view[filled:], start + need - filled if need > BULK_READ_BYTES else min(bulk, len(buf) - filled))
            if n == 0:
                return
            filled += n


def start(args: ServerArgs, counters: Counters, stop) -> Started:
    listener = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if args.options.socket_buffer_bytes:
        # On the listening socket before bind, so accepted sockets inherit it and the window is sized for it.
        for opt in (socket.SO_SNDBUF, socket.SO_RCVBUF):
            listener.setsockopt(socket.SOL_SOCKET, opt, args.options.socket_buffer_bytes)
    listener.bind((args.host, args.port))
    listener.listen(64)
    nodelay = args.options.tcp_nodelay is not False

    def accept() -> None:
        while True:
            sock, _ = listener.accept()
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1 if nodelay else 0)
            threading.Thread(target=serve, args=(sock,), daemon=True).start()

    def serve(sock: socket.socket) -> None:
        try:
            Connection(sock, counters, stop).serve()
        except OSError as exc:
            log(f"connection ended: {exc}")
        finally:
            sock.close()

    threading.Thread(target=accept, daemon=True).start()
    port = listener.getsockname()[1]
    return Started(endpoint=f"tcp://{args.host}:{port}")


if __name__ == "__main__":
    run_server("python-socket", start, allowed_options=("tcp_nodelay", "socket_buffer_bytes"))
