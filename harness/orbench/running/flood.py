"""What a oneway flood may hand a server before a sync: its warm-up goes out in pieces, each closed by its own
sync, and the planner gives a trial no more calls than a server has been seen to hold.

A worker's `run` sends its warm-up calls, then waits at a barrier for the server to have counted them
(PROTOCOL.md, "sync"). A server that reads requests off the socket faster than it serves them keeps every one
read and not yet served in its heap: GlassFish's did, and a JVM's fixed warm-up of 5000 oneways of 64 KB (320 MB)
filled its 256 MB heap; the server thrashed in full collections and stopped answering (a live set of 249 MB,
GC pauses back to back), and the runner restarted it after 10 s without an answer. In four middleware runs of
2026-11-30 that was the first same-core point of a GlassFish launch whenever it was oneway 32 KB or 64 KB
(runs 20261130-153008-vm, -161928-vm, -190150-vm, -195514-vm), about a minute each time. The pieces make the same
calls in the same order; only the barriers between them are new.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from orbench.results.point import Point
from orbench.results.trial import Measurement
from orbench.running.measure import TrialPlan
from orbench.running.session import TargetSession

# The payload bytes of one piece: 256 calls of 64 KB, a quarter of TRIAL_BYTES. A choice, checked: with it the
# 5000-call warm-up at 64 KB and 32 KB left GlassFish's server without a full collection (run 20261130-213937-vm).
PIECE_BYTES = 16 * 2**20
# The payload bytes of a trial's timed calls the planner may choose at a oneway point (running/planning.py). A
# sequential trial is one flood (a sliced one syncs after every slice, but a trial that reads the anatomy is never
# sliced): GlassFish's server went through a 1000-call trial of 64 KB with one full collection (run
# 20261130-221246-vm), and stopped answering in a 4000-call one (-221445-vm: 621 full collections).
TRIAL_BYTES = 64 * 2**20

Measure = Callable[[TargetSession, Point, TrialPlan], Measurement]


def pieces(warmup: int, payload_bytes: int) -> list[int]:
    """`warmup` calls as pieces of at most PIECE_BYTES of payload (and at least one call) each, in order; the
    last is the one the measured run itself carries."""
    per = max(1, PIECE_BYTES // max(1, payload_bytes))
    if warmup <= per:
        return [warmup]
    whole, rest = divmod(warmup, per)
    return [per] * whole + ([rest] if rest else [])


def most_calls(payload_bytes: int, least: int) -> int:
    """The most timed calls a planned trial at a oneway point of this size gets (TRIAL_BYTES), never under
    `least`."""
    return max(least, TRIAL_BYTES // max(1, payload_bytes))


def warm_in_pieces(measure: Measure, session: TargetSession, point: Point,
                   plan: TrialPlan) -> tuple[TrialPlan, Measurement | None]:
    """At a oneway point, runs all but the last piece of `plan`'s warm-up as untimed runs of their own; returns
    the plan that carries the last piece, and the measurement of a piece that failed (the trial then fails with
    it), else None."""
    if point.mode != "oneway":
        return plan, None
    *before, last = pieces(plan.warmup, point.payload_bytes)
    if before:
        view = plan.phases.warmup_only()
        for calls in before:
            m = measure(session, point, replace(plan, calls=calls, warmup=0, anatomy="off", clock=view))
            if m.status != "ok":
                return plan, m
    return replace(plan, warmup=last), None


def bounded(measure: Measure) -> Measure:
    """`measure` with a oneway warm-up sent in pieces (warm_in_pieces); the measurement still records the whole
    warm-up."""

    def run(session: TargetSession, point: Point, plan: TrialPlan) -> Measurement:
        carried, failed = warm_in_pieces(measure, session, point, plan)
        if failed is not None:
            return failed
        m = measure(session, point, carried)
        return replace(m, warmup=plan.warmup) if carried.warmup != plan.warmup and m.warmup is not None else m

    return run
