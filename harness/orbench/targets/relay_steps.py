"""What check-target's steps through the delay relay (delay_relay.py) share: the client connected through it and
back again, and the check that calls made at once (on threads, or AMI calls outstanding) overlapped.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

import numpy as np

from orbench.targets.delay_relay import DelayRelay
from orbench.targets.families import endpoint_form
from orbench.targets.workers import ClientWorker, ServerWorker

# Calls made one at a time through the relay take calls x (the delay + what the relay and the host add); calls
# that overlap must take at most this share of that (ideally 1 / the calls at once: threads, or replies
# outstanding; omniORB's client opens at most 5 connections to a server, so its 8 outstanding read about 0.25).
OVERLAP_MAX = 0.6
# The one-at-a-time reference: this many plain twoway calls through the same relay, just before the overlapped
# run. Measured, not taken as the delay, because on a loaded host (CI runs three tests at once on two vCPUs) the
# relay's threads add tens of ms to each reply: omniORB's 16 calls in 4 rounds read 251 ms there, 82 ms on a quiet
# 2-vCPU VM.
ONE_AT_A_TIME_CALLS = 4


class PlainRuns(Protocol):
    """check-target's plain run, its answer and samples checked against the contract (conformance.py)."""

    def _run(self, client: ClientWorker, server: ServerWorker, mode: str, ptype: str, size: int, calls: int,
             warmup: int, timeout: float = 120) -> tuple[dict, np.ndarray]: ...


@contextmanager
def through_relay(host: str, family: str, client: ClientWorker, server: ServerWorker,
                  delay_ns: int) -> Iterator[DelayRelay]:
    """`client` connected to `server` through a relay on `host` that holds every reply `delay_ns`; on leaving,
    connected straight to `server` again (whatever happened inside) and the relay closed."""
    form = endpoint_form(family)
    relay = DelayRelay(host, form.port_of(server.endpoint), delay_ns / 1e9)
    try:
        answer = client.call({"cmd": "connect", "endpoint": form.with_port(server.endpoint, relay.port), "options": {}},
                             timeout=60, watch=[server])
        assert answer["ok"], f"connect through the relay: {answer.get('error_kind')}: {answer.get('error')}"
        yield relay
    finally:
        back = client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}}, watch=[server])
        relay.close()
        assert back["ok"], f"reconnect after the relay: {back}"


def one_call_ns(conformance: PlainRuns, client: ClientWorker, server: ServerWorker) -> int:
    """Inside `through_relay`: the median of ONE_AT_A_TIME_CALLS plain twoway calls, one at a time (after one
    untimed), on the host as it is now."""
    _, samples = conformance._run(client, server, "twoway", "octets", 100, ONE_AT_A_TIME_CALLS, 1)
    return int(np.median(samples))


def check_overlap(samples: np.ndarray, answer: dict, calls: int, delay_ns: int, made: str, one_ns: int) -> str:
    """A run of `calls` calls made `made` (e.g. "on 4 threads") through a relay that held every reply `delay_ns`:
    each sample is at least the delay, and the run took at most OVERLAP_MAX of its calls one at a time, each
    taking `one_ns` (one_call_ns, measured beside it)."""
    assert samples.size == calls and int(samples.min()) >= delay_ns, \
        f"{samples.size} samples, the shortest {int(samples.min())} ns, with replies held {delay_ns} ns"
    one_at_a_time = calls * max(one_ns, delay_ns)
    took = int(answer["elapsed_ns"])
    assert took <= OVERLAP_MAX * one_at_a_time, (
        f"{calls} calls {made} took {took / 1e6:.0f} ms with replies held {delay_ns / 1e6:.0f} ms: "
        f"one at a time takes {one_at_a_time / 1e6:.0f} ms ({one_ns / 1e6:.1f} ms each, measured beside it), "
        f"so they did not overlap")
    return (f"{calls} calls in {took / 1e6:.0f} ms (one at a time: {one_at_a_time / 1e6:.0f} ms, "
            f"{one_ns / 1e6:.1f} ms each)")
