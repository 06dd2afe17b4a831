"""Invariants a run's numbers must keep, checked on the summary's points: where one fails, the number the report
builds on (a baseline) is suspect, not the middleware that looks fast or slow against it.

- A middleware is never faster than its socket baseline: an ORB-added interval entirely below zero says the
  baseline does work the middleware's path does not (on a 2-vCPU VM, orbench's C socket baseline once received
  into a buffer a few bytes ahead of the kernel's source page offset, and the kernel's copy ran 10x slower).
- A C socket baseline is no slower than another language's (Java, Python) at the same point: the C p50 less
  the other's, paired by trial as ORB-added latency is, with its interval entirely above zero says the same of
  the C baseline. Paired, because this machine's speed changes under both by 25% for a second at a time (on a
  2-vCPU KVM guest one c-socket launch's trial p50s switched between 17.6 and 22-25 us in runs of 6-15 trials),
  and a target's trials run in the same rounds as the other's.

Both hold for one client's closed loop, where a call's latency is the work on its path. Under load (several
clients, a rate, a sweep step) it is mostly the wait in the server's queue, which each server's threading model
sets: in a scale run, omniORB with a pool of 4 threads served 64 client threads with a p50 959 us below the C
baseline's, whose thread per connection ran 64 threads on one CPU. There the invariants say nothing about a
baseline's work, and are not checked.

Each warning names a cause from the oneway receivers' throughput, the segments each trial's client sent and the
anatomy counters of both points (anatomy/), or says it is unexplained. The causes, measured at split-core on a 2-vCPU VM:

- Backpressure (oneway): a receiver that falls far behind its sender (JacORB's server at 32k messages/s
  against java-socket's 149k) is always busy, so the sender's writes wake nobody and most of them are cheap; the
  sends that block on the full buffer are in the mean client time (11.0 against 7.3 us), not in the p50 (3.3
  against 6.7 us) the pairing compares.
- Wake-ups: a receiver that keeps up sleeps between messages and is woken (a voluntary context switch) for each,
  and the sender pays for waking a CPU; one that falls behind finds several messages waiting and takes them in
  one read. So the faster, leaner receiver can make its sender look slower.
- Coalescing (oneway): a sender whose messages mostly join data already queued on its connection sends them in
  fewer TCP segments, and each send costs it less of the loopback path (omniORB's client at split-core: 0.16-0.26
  segments per 1 B message and 1.9-2.4 us of CPU per call, where c-socket's sent 1.0 and spent 4.6 us; at
  same-core c-socket's coalesced too, 0.04-0.18 segments, and spent 1.1-1.6 us). It can hold in some trials and
  not others (omniORB at split-core 128 B: trial p50s of 1.0-1.4 us at 0.09-0.48 segments per message, 3.7-5.4
  us at 0.43-1.0), so every trial's segments (trials.csv out_segs_per_call) are read: coalescing is named when
  the faster side's median trial coalesced, or when the pairing without its coalesced trials no longer puts the slower side's number in
  doubt. An older run's trials carry the segments only where they read the anatomy (results/upgrade.py).
- Waiting, not work (twoway): the slower side's two workers spent no more CPU per call than the faster side's, so
  its extra latency is time neither of them ran, waiting to be woken, which the host decides (c-socket at
  split-core twoway 4 KB: 62.9 us against java-socket's 58.9 us, for 49.1 us of CPU per call, client and server,
  against 59.4 us: at split-core each call wakes the other CPU twice). Where it spent more, but by under half of
  what it is slower by, most of the gap is still waiting (python-socket against omniORBpy at split-core twoway
  16 B: 4.88 us slower, for 1.28 us more CPU per call).
"""

from __future__ import annotations

from statistics import median

from orbench.results.point import Point
from orbench.results.run_warnings import RunWarning
from orbench.summary.model import Anatomy, PointSummary
from orbench.summary.pairing import paired_difference
from orbench.summary.point_summary import TrialEvidence

SOCKET_KIND = "socket"
# Voluntary context switches per call (both workers; per message of the receiver in oneway) by which the slower
# side must exceed the faster one, and by this ratio, for wake-ups to be named as the cause: a wake-up of another
# CPU costs the waker microseconds in a VM, so a few hundredths per call show in a p50 of a few microseconds.
WAKEUP_GAP_PER_CALL = 0.03
WAKEUP_RATIO = 1.2
# The faster side's oneway receiver at under this share of the slower side's messages/s: backpressure. Above it,
# only with the faster side's mean client time the higher (gRPC C++ split-core oneway 32 KB against c-socket: p50
# 8.5-9.4 us against 13.7-13.9, mean 21.0-22.5 against 12.6, its receiver 40-43k messages/s against 79k; runs
# 20261130-195514-vm, -214605-vm).
BACKPRESSURE_SHARE = 0.5
# A trial of the faster side whose client sent under this share of the slower side's (median) TCP segments per
# call coalesced (a fifth fewer or more).
COALESCING_SHARE = 0.8
# The slower side's extra CPU per call (both workers) at under this share of its extra latency: mostly waiting.
WORK_SHARE = 0.5


def invariant_warnings(points: dict[Point, PointSummary], evidence: TrialEvidence) -> list[RunWarning]:
    """The warnings of both invariants over the summary's points (kind, language, orb_added_latency_ns) and
    what their trials say one by one (p50s for the pairing, segments for a cause)."""
    return _below_baseline(points, evidence) + _c_slower_than_other_languages(points, evidence)


def _below_baseline(points: dict[Point, PointSummary], evidence: TrialEvidence) -> list[RunWarning]:
    out = []
    for point, summary in points.items():
        added = summary.orb_added_latency_ns
        if not point.is_base_load or added is None or added.ci95_high is None or added.ci95_high >= 0:
            continue
        high, low, estimate = added.ci95_high, added.ci95_low or 0.0, added.estimate or 0.0
        cause = cause_text(points, slow=point.replace(target=added.baseline), fast=point, evidence=evidence,
                           gap_ns=-estimate)
        out.append(RunWarning(
            "baseline suspect", point.label,
            f"faster than its baseline {added.baseline}: added latency {estimate / 1e3:+.2f} us, "
            f"interval [{low / 1e3:+.2f}, {high / 1e3:+.2f}] us entirely below zero; the baseline "
            f"does work the middleware does not, its number is suspect; {cause}", -high))
    return out


def _c_slower_than_other_languages(points: dict[Point, PointSummary], evidence: TrialEvidence) -> list[RunWarning]:
    trial_p50 = evidence.p50
    sockets = [p for p, s in points.items() if p.is_base_load and s.kind == SOCKET_KIND and p in trial_p50]
    out = []
    for point in sockets:
        if points[point].language not in ("c", "c++"):
            continue
        # Against every other language's socket baseline (Java, Python, ...): C's is the floor of them all.
        for other in sockets:
            if points[other].language in ("c", "c++") or other.group != point.group:
                continue
            slower = paired_difference(trial_p50[point], trial_p50[other])
            if slower is None or slower["ci95_low"] is None or slower["ci95_low"] <= 0:
                continue
            low, high, estimate = slower["ci95_low"], slower["ci95_high"], slower["estimate"]
            theirs = points[other].p50_ci95_ns
            if theirs is None or not theirs.estimate:
                continue
            cause = cause_text(points, slow=point, fast=other, evidence=evidence, gap_ns=estimate)
            out.append(RunWarning(
                "baseline suspect", point.label,
                f"C socket baseline slower than {other.target}: its p50 {estimate / 1e3:+.2f} us over theirs "
                f"({theirs.estimate / 1e3:.2f} us) paired by trial, interval [{low / 1e3:+.2f}, {high / 1e3:+.2f}] us "
                f"entirely above zero; the C baseline's number is suspect; {cause}", low / theirs.estimate))
    return out


def cause_text(points: dict[Point, PointSummary], slow: Point, fast: Point, evidence: TrialEvidence,
               gap_ns: float) -> str:
    """Why `slow` took longer per call than `fast` at the same point (by `gap_ns`), as far as the oneway
    receivers' throughput, the trials' TCP segments and the anatomy counters tell."""
    slow_summary, fast_summary = points.get(slow), points.get(fast)
    backpressure = _backpressure(slow, slow_summary, fast, fast_summary, far_behind=True)
    if backpressure:
        return backpressure
    coalesced = _coalescing(slow, fast, evidence)
    if coalesced:
        return coalesced
    # A receiver less far behind, after coalescing: the trials' segments are the more direct evidence.
    backpressure = _backpressure(slow, slow_summary, fast, fast_summary, far_behind=False)
    if backpressure:
        return backpressure
    oneway = slow.mode == "oneway"
    slow_switches = _switches_per_call(slow_summary, oneway)
    fast_switches = _switches_per_call(fast_summary, oneway)
    if slow_switches is None or fast_switches is None:
        return "cause unexplained (no anatomy counters for both; campaign key anatomy = \"counters\")"
    whose = "receiver wake-ups per message" if oneway else "voluntary context switches per call"
    counts = f"{whose}: {slow.target} {slow_switches:.2f}, {fast.target} {fast_switches:.2f}"
    if slow_switches - fast_switches >= WAKEUP_GAP_PER_CALL and slow_switches >= WAKEUP_RATIO * fast_switches:
        return (f"cause: wake-ups ({counts}): {slow.target}'s receiver keeps up and sleeps between messages, "
                f"so its sender pays for waking it more often")
    return _waiting(slow, slow_summary, fast, fast_summary, gap_ns) or f"cause unexplained ({counts})"


def _cpu_per_call(summary: PointSummary | None) -> float | None:
    """Both workers' CPU per call (anatomy medians), or None without both."""
    anatomy = None if summary is None else summary.anatomy
    if anatomy is None:
        return None
    client, server = anatomy.median("client_cpu_us"), anatomy.median("server_cpu_us")
    return None if client is None or server is None else client + server


def _waiting(slow: Point, slow_summary: PointSummary | None, fast: Point,
             fast_summary: PointSummary | None, gap_ns: float) -> str | None:
    """Waiting where the slower side's extra CPU per call (the most of the gap its work can be) is under
    WORK_SHARE of the gap: none of it ("waiting, not work") or some ("mostly waiting")."""
    # Twoway only: a closed loop's call is its two workers' work plus their waits, all of it inside the p50.
    if slow.mode != "twoway":
        return None
    slow_cpu, fast_cpu = _cpu_per_call(slow_summary), _cpu_per_call(fast_summary)
    if slow_cpu is None or fast_cpu is None:
        return None
    extra_us = slow_cpu - fast_cpu
    cpu = f"CPU per call, client and server: {slow.target} {slow_cpu:.2f} us, {fast.target} {fast_cpu:.2f} us"
    if extra_us <= 0:
        return (f"cause: waiting, not work ({cpu}): {slow.target}'s workers work no more per call, so its extra "
                f"latency is time neither ran, waiting to be woken")
    if extra_us * 1e3 >= WORK_SHARE * gap_ns:
        return None
    return (f"cause: mostly waiting ({cpu}: {extra_us:.2f} us more work per call, under half of the "
            f"{gap_ns / 1e3:.2f} us it is slower by): the rest of {slow.target}'s extra latency is time neither of "
            f"its workers ran, waiting to be woken")


def _coalescing(slow: Point, fast: Point, evidence: TrialEvidence) -> str | None:
    """Coalescing, trial by trial: the faster side's trials whose client sent under COALESCING_SHARE of the
    slower side's (median) segments per call. Named when that is the faster side's usual state (its median trial),
    or when those trials are where it gained and the pairing without them is no longer entirely below zero (the faster side
    less the slower)."""
    slow_segs, fast_segs = evidence.segs.get(slow, {}), evidence.segs.get(fast, {})
    if slow.mode != "oneway" or not slow_segs or not fast_segs or fast not in evidence.p50 or slow not in evidence.p50:
        return None
    typical, theirs = median(slow_segs.values()), median(fast_segs.values())
    coalesced = {k for k, v in fast_segs.items() if v < COALESCING_SHARE * typical}
    if not coalesced:
        return None
    why = (f"{fast.target}'s sends joined data already queued on its connection, each costing its sender less of "
           f"the loopback path")
    if theirs < COALESCING_SHARE * typical:
        # No client-CPU test: a middleware's client does more per call than a socket's, and a JVM's compiles in the
        # first launch, whose trial reads the anatomy (JacORB split-core oneway 128 B: 74.4 us of client CPU per
        # call against java-socket's 9.2, at 0.25 segments per call against 1.01).
        return (f"cause: coalescing in {len(coalesced)} of {len(fast_segs)} trials ({fast.target}'s client sent "
                f"{theirs:.2f} TCP segments per call in its median trial, {slow.target}'s {typical:.2f}): {why}")

    def kept(values: dict) -> dict:
        return {k: v for k, v in values.items() if k[:2] not in coalesced}

    # A minority of trials coalesced: they must be where the faster side gained, their paired differences below
    # the others' (else dropping them would only leave too few pairs for an interval that excludes zero).
    fast_p50, slow_p50 = evidence.p50[fast], evidence.p50[slow]
    gaps = {k: fast_p50[k] - slow_p50[k] for k in set(fast_p50) & set(slow_p50)}
    inside = [v for k, v in gaps.items() if k in coalesced]
    outside = [v for k, v in gaps.items() if k not in coalesced]
    if not inside or not outside or median(inside) >= median(outside):
        return None
    rest = paired_difference(kept(fast_p50), kept(slow_p50),
                             kept(evidence.slices.get(fast, {})), kept(evidence.slices.get(slow, {})))
    if rest is None or rest.get("ci95_high") is None or rest["ci95_high"] < 0:
        return None
    low, high = rest["ci95_low"], rest["ci95_high"]
    in_them = sorted(v for k, v in fast_segs.items() if k in coalesced)
    return (f"cause: coalescing in {len(coalesced)} of {len(fast_segs)} trials ({fast.target}'s client sent "
            f"{in_them[0]:.2f}-{in_them[-1]:.2f} TCP segments per call in them, {slow.target}'s {typical:.2f}); "
            f"without those trials {fast.target} less {slow.target} reads {rest['estimate'] / 1e3:+.2f} us "
            f"[{low / 1e3:+.2f}, {high / 1e3:+.2f}]: in them {why}")


def _backpressure(slow: Point, slow_summary: PointSummary | None, fast: Point,
                  fast_summary: PointSummary | None, far_behind: bool) -> str | None:
    """Backpressure as the cause: with `far_behind`, the faster side's receiver under BACKPRESSURE_SHARE of the
    slower side's rate; else under its rate with the faster side's mean client time the higher."""
    if slow.mode != "oneway" or slow_summary is None or fast_summary is None:
        return None
    slow_oneway, fast_oneway = slow_summary.oneway, fast_summary.oneway
    if slow_oneway is None or fast_oneway is None:
        return None
    slow_rate, fast_rate = slow_oneway.receiver_throughput_msgs_per_s, fast_oneway.receiver_throughput_msgs_per_s
    if not slow_rate or not fast_rate:
        return None
    fast_mean = fast_oneway.client_time_per_call_ns.mean / 1e3
    slow_mean = slow_oneway.client_time_per_call_ns.mean / 1e3
    # A receiver less far behind is the cause too when the faster side's mean client time is the higher one: its
    # p50 counts the sends that found room, its mean also the ones that waited for the receiver.
    if far_behind and fast_rate >= BACKPRESSURE_SHARE * slow_rate:
        return None
    if not far_behind and not (fast_rate < slow_rate and fast_mean > slow_mean):
        return None
    rates = (f"cause: backpressure ({fast.target}'s receiver took {fast_rate / 1e3:.0f}k messages/s, "
             f"{slow.target}'s {slow_rate / 1e3:.0f}k): {fast.target}'s sends find its receiver busy and wake nobody")
    if fast_mean > slow_mean:
        return (f"{rates}; those that block on the full buffer are in its mean client time ({fast_mean:.2f} us "
                f"against {slow_mean:.2f} us), not in the p50")
    # A receiver that reads requests ahead of dispatching them (a middleware's own request queue) keeps the
    # socket drained while it falls behind: its sender neither wakes it nor blocks, and the mean is low too.
    return (f"{rates}, nor block: its receiver drains the socket ahead of dispatching (mean client time "
            f"{fast_mean:.2f} us against {slow_mean:.2f} us); compare the receivers' throughput, not the client time")


def _switches_per_call(summary: PointSummary | None, oneway: bool) -> float | None:
    anatomy: Anatomy | None = None if summary is None else summary.anatomy
    if anatomy is None:
        return None
    client, server = anatomy.median("client_vcsw"), anatomy.median("server_vcsw")
    if oneway:
        return server
    if client is None or server is None:
        return None
    return client + server
