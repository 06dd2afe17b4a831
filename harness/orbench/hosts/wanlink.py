"""A userspace WAN link for test hosts on kernels without `tc netem` (sch_netem): one TUN device per network
namespace, and this process moves every IPv4 packet from one device to the device that owns its destination
address, after a delay, with a random loss and a rate limit per direction. The kernels at both ends are real
TCP/IP stacks; only the wire is emulated (like netem, but in a process).

    python -m orbench.hosts.wanlink CONFIG.json      (as root; prints "ready" once every device exists)

CONFIG: {"delay_ms": 1.0, "loss": 0.005, "rate_mbit": 100,
         "links": [{"netns": "", "ifname": "obt0", "address": "10.200.9.254"},
                   {"netns": "ns1", "ifname": "eth0", "address": "10.200.9.1"}, ...]}
The devices vanish when this process ends (they are not persistent), so killing it is the whole clean-up.
Addresses are configured by the caller (`ip addr add` after "ready").

Delay precision: a writer thread sleeps on a condition variable (nanosecond timeouts, unlike epoll's
milliseconds); on this kind of machine packets leave within about 0.1 ms of their due time.
"""

from __future__ import annotations

import ctypes
import fcntl
import heapq
import json
import os
import random
import select
import struct
import sys
import threading
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
CLONE_NEWNET = 0x40000000
MAX_PACKET = 65536

_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


def open_tun(netns: str, ifname: str) -> int:
    """A TUN device named ifname inside network namespace netns ("" = this one), opened from this thread."""
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        if netns:
            target = os.open(f"/var/run/netns/{netns}", os.O_RDONLY)
            try:
                _setns(target)
            finally:
                os.close(target)
        fd = os.open("/dev/net/tun", os.O_RDWR)
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", ifname.encode(), IFF_TUN | IFF_NO_PI))
        return fd
    finally:
        _setns(home)
        os.close(home)


class Link:
    def __init__(self, delay_ms: float, loss: float, rate_mbit: float):
        self.delay_s = delay_ms / 1000.0
        self.loss = loss
        self.byte_s = 8.0 / (rate_mbit * 1e6) if rate_mbit else 0.0
        self.by_address: dict[bytes, int] = {}
        self.free_at: dict[int, float] = {}   # per output device: when its emulated wire is free again
        self.queue: list[tuple[float, int, int, bytes]] = []
        self.cond = threading.Condition()
        self.seq = 0

    def route(self, packet: bytes) -> None:
        if len(packet) < 20 or packet[0] >> 4 != 4:
            return  # IPv4 only; the test hosts have no IPv6 addresses on these devices
        out = self.by_address.get(packet[16:20])
        if out is None or (self.loss and random.random() < self.loss):
            return
        now = time.monotonic()
        start = max(now, self.free_at.get(out, 0.0))
        self.free_at[out] = start + len(packet) * self.byte_s
        with self.cond:
            self.seq += 1
            heapq.heappush(self.queue, (self.free_at[out] + self.delay_s, self.seq, out, packet))
            self.cond.notify()

    def writer(self) -> None:
        while True:
            with self.cond:
                while not self.queue or self.queue[0][0] > time.monotonic():
                    self.cond.wait(None if not self.queue else self.queue[0][0] - time.monotonic())
                _due, _seq, out, packet = heapq.heappop(self.queue)
            try:
                os.write(out, packet)
            except OSError:
                pass  # the device is down (a cut link): the packet is lost, as on a wire

    def reader(self, fds: list[int]) -> None:
        poller = select.epoll()
        for fd in fds:
            poller.register(fd, select.EPOLLIN)
        while True:
            for fd, _ev in poller.poll():
                try:
                    self.route(os.read(fd, MAX_PACKET))
                except OSError:
                    pass


def main(config_path: str) -> None:
    config = json.loads(open(config_path).read())
    sys.setswitchinterval(0.0001)  # two busy threads must hand over in well under the emulated delay
    link = Link(config.get("delay_ms", 0.0), config.get("loss", 0.0), config.get("rate_mbit", 0.0))
    fds = []
    for entry in config["links"]:
        fd = open_tun(entry["netns"], entry["ifname"])
        link.by_address[bytes(int(x) for x in entry["address"].split("."))] = fd
        fds.append(fd)
    threading.Thread(target=link.writer, daemon=True).start()
    print("ready", flush=True)
    link.reader(fds)


if __name__ == "__main__":
    main(sys.argv[1])
