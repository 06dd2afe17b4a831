"""The reference of `orbench fidelity`'s Python socket rows, written as plainly as a user would with the socket
module and sharing nothing with the python-socket worker or its kit: the bytes of orbench-c-pingpong (a 12-byte
header of kind, 0 and payload length, little-endian, and the payload in one sendall; a 24-byte reply).

    fidelity_pingpong.py server HOST PORT    serves one connection after another until its stdin closes
    fidelity_pingpong.py client HOST PORT twoway|oneway PAYLOAD_BYTES CALLS WARMUP SAMPLES_FILE
    fidelity_pingpong.py slices HOST PORT twoway|oneway    one connection, the client's run per stdin line
                                                           "PAYLOAD_BYTES CALLS WARMUP SAMPLES_FILE", "done" after each

The client writes one little-endian int64 (ns, time.perf_counter_ns) per timed call to SAMPLES_FILE; oneway ends
with a FLUSH round trip and prints the receiver's messages/s from the first timed call to its reply."""

import mmap
import select
import socket
import struct
import sys
import time

TWOWAY, ONEWAY, FLUSH = 1, 2, 3
HEADER = struct.Struct("<III")


def page_aligned(size):
    """A buffer at the start of a page (an anonymous mmap), as orbench-c-pingpong's aligned_alloc(4096): the
    kernel's receive copy runs several times slower into a buffer a few bytes ahead of the sender's page offset,
    and a bytes object or bytearray lands at whatever offset malloc gives it. The reference is the fast case."""
    return mmap.mmap(-1, size)


def read_exactly(sock, view):
    got = 0
    while got < len(view):
        n = sock.recv_into(view[got:])
        if n == 0:
            raise EOFError
        got += n


BULK, CAPACITY = 16 * 1024, 2 << 20


def serve_connection(sock, view):
    """Reads as orbench's socket baselines do (PROTOCOL.md, "How a socket baseline reads and writes"), so that a
    fidelity row compares the same calls: each recv asks for what has arrived, up to 16 KB or the last message's
    size if larger, and the messages are cut out of the buffer; a message known to be larger is read exactly to its
    end."""
    reply = bytes(24)
    begin = end = last = 0
    while True:
        length = 0
        while end - begin >= HEADER.size:
            kind, _, length = HEADER.unpack_from(view, begin)
            if end - begin < HEADER.size + length:
                break
            begin += HEADER.size + length
            last = HEADER.size + length
            if kind != ONEWAY:
                sock.sendall(reply)
        if begin == end:
            begin = end = 0
        message_end, bulk = begin + HEADER.size + length, max(last, BULK)
        large = end - begin >= HEADER.size and message_end - begin > BULK
        if (message_end if large else end + bulk) > CAPACITY:  # a partial message to the front
            view[:end - begin] = view[begin:end]
            end, message_end, begin = end - begin, message_end - begin, 0
        n = sock.recv_into(view[end:], message_end - end if large else bulk)
        if n == 0:
            raise EOFError
        end += n


def serve(host, port):
    listener = socket.create_server((host, port), backlog=4)
    view = memoryview(page_aligned(CAPACITY))
    while True:
        ready, _, _ = select.select([listener, sys.stdin], [], [])
        if sys.stdin in ready:
            return  # stdin readable or closed: whoever started us is done
        sock, _ = listener.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            serve_connection(sock, view)
        except (EOFError, OSError):
            sock.close()


def connect(host, port):
    sock = socket.create_connection((host, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def run(sock, mode, payload_bytes, calls, warmup, samples_file):
    """One run on an open connection: `warmup` untimed calls, then `calls` timed ones."""
    oneway = mode == "oneway"
    request = page_aligned(HEADER.size + payload_bytes)
    request[:] = HEADER.pack(ONEWAY if oneway else TWOWAY, 0, payload_bytes) + bytes(i & 0xFF for i in range(payload_bytes))
    flush = HEADER.pack(FLUSH, 0, 0)
    reply = memoryview(bytearray(24))
    samples = [0] * calls
    clock, sendall = time.perf_counter_ns, sock.sendall
    first = 0
    for i in range(warmup + calls):
        if i == warmup:
            if oneway:  # the oneway warm-up is read before timing starts
                sendall(flush)
                read_exactly(sock, reply)
            first = clock()
        before = clock()
        sendall(request)
        if not oneway:
            read_exactly(sock, reply)
        if i >= warmup:
            samples[i - warmup] = clock() - before
    if oneway:
        sendall(flush)
        read_exactly(sock, reply)
        print(f"receiver_msgs_per_s {calls * 1e9 / (clock() - first):.1f}")
    with open(samples_file, "wb") as out:
        out.write(struct.pack(f"<{calls}q", *samples))


def slices(host, port, mode):
    """One connection, one run per stdin line ("PAYLOAD_BYTES CALLS WARMUP SAMPLES_FILE"), each answered with
    "done": the harness alternates these runs with its own worker's trials."""
    sock = connect(host, port)
    for line in sys.stdin:
        payload_bytes, calls, warmup, samples_file = line.split()
        run(sock, mode, int(payload_bytes), int(calls), int(warmup), samples_file)
        print("done", flush=True)


def main(argv):
    if len(argv) == 4 and argv[1] == "server":
        serve(argv[2], int(argv[3]))
    elif len(argv) == 9 and argv[1] == "client":
        run(connect(argv[2], int(argv[3])), argv[4], int(argv[5]), int(argv[6]), int(argv[7]), argv[8])
    elif len(argv) == 5 and argv[1] == "slices":
        slices(argv[2], int(argv[3]), argv[4])
    else:
        sys.exit("usage: fidelity_pingpong.py server HOST PORT | "
                 "client HOST PORT twoway|oneway PAYLOAD_BYTES CALLS WARMUP SAMPLES_FILE | slices HOST PORT twoway|oneway")


if __name__ == "__main__":
    main(sys.argv)
