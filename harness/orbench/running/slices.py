"""The sliced design: one trial of each member of a unit (a socket baseline and the middleware measured against
it, schedule.round_units) made of slices a few milliseconds long, alternating between the members.

Why: a small VM's speed switches every fraction of a second (a c-socket trial's p50 at 1 B sat at 17.3-18.3 or
21.8-25.8 us, in runs of 6-15 trials of 1000 calls), and both sides of a pair move together. Two trials run one
after the other straddle a switch often enough that their difference read -3 to +5 us where the middleware
adds about 2. Slices of a few hundred calls alternating between the sides put the two halves of each pair
milliseconds apart, in the same phase far more often (Bulej et al., "Duet Benchmarking"; Abedi and Brecht,
"Conducting Repeatable Experiments in Highly Variable Cloud Computing Environments", run alternatives
interleaved for the same reason).

The order inside a trial is ABBA (B O O B B O ..., or the reverse, starting on a random side), so a drift over
the trial's few tens of milliseconds hits both sides alike; with several middleware on one baseline the
baseline sits in the middle (O1 B O2, O2 B O1, ...) and is next to each of them in every slice. Each slice is
one `run` command (harness/PROTOCOL.md): its untimed warm-up first (the trial's warm-up or rewarm for the first
slice, `slice_rewarm` calls for the later ones: the first calls after the other side's slice meet the caches it
left), then the timed calls, and for oneway the closing `sync` barrier, so no flood hands its backlog to the
other side's slice. The slices' samples are written one after the other into the trial's samples file, and the
trial's row keeps each slice's p50 and mean (`slice_p50s_ns`, `slice_means_ns`): slice k of a middleware pairs
with slice k of its baseline (summary/pairing.py). A point of N clients as threads slices the same way, each
slice N threads' calls (slice_calls per thread); its throughput is the trial's calls over its slices' spans.

Turns (`takes_turns`): when every member's client says it can take turns (PROTOCOL.md, "Turns") and runs on
this machine, a closed-loop trial of one client is one `run` per member, not one per slice (a oneway turn ends
with its closing barrier, as a oneway slice does): the clients hand the turn to each other through named pipes
in the same ABBA order, so the command's own cost (0.6-0.8 ms a C++ slice, 1.8-4.7 ms a JVM's) is paid once a
trial, and the slice's other side is a pipe's wake-up away.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from orbench.errors import WorkerError
from orbench.results.point import Point
from orbench.results.trial import Measurement, split_evenly
from orbench.running.cpu_usage import UsageReading
from orbench.running.flood import warm_in_pieces
from orbench.running.load_usage import LoadOverWindows
from orbench.running.measure import (
    ServiceReading,
    TrialPlan,
    failed_answer,
    fetched_samples,
    jain_fairness,
    jit_ms,
    jit_total,
    latency_fields,
    local_client_pid,
    local_warmup_s,
    measure_single,
    oneway_fields,
    run_command,
    start_load_sampler,
    trial_timeout_s,
)
from orbench.running.session import TargetSession
from orbench.running.wire_reading import WireReading
from orbench.stats.phases import BLOCK_CALLS, MIN_BLOCKS_KEPT
from orbench.targets.turns import TurnPipes, turn_plan

# Modes a unit can slice: a call per sample on one client (echo is a twoway with its reply checked).
SLICED_MODES = ("twoway", "oneway", "echo")


@dataclass(frozen=True)
class SliceMember:
    """One target's trial in a sliced unit: its workers, its point, and the trial's plan (all its timed calls,
    the first slice's warm-up, the trial's samples file)."""

    session: TargetSession
    point: Point
    plan: TrialPlan
    first_warmup: str = "rewarm"  # the time accounting's phase of the first slice's warm-up (full_warmup or rewarm)


class Companion(Protocol):
    """A side of a sliced trial that is not an orbench target: `orbench fidelity`'s reference programs, which
    make the same calls as the target with nothing of orbench around them. It takes its turn in the rotation
    like a member and keeps what its slices measured; its first slice of a trial runs its own warm-up."""

    def run_slice(self, index: int, calls: int, rewarm: int) -> None: ...


# The fewest calls a slice is cut to: two of the blocks a round trip's slice is read in (stats/phases.usual_blocks).
MIN_SLICE_CALLS = MIN_BLOCKS_KEPT * BLOCK_CALLS


def slice_sizes(calls: int, slice_calls: int) -> list[int]:
    """A trial's calls as slices of about slice_calls each (the remainder spread over the first ones), and at
    least two where each keeps MIN_SLICE_CALLS: a trial shorter than two slices (a budget may plan 500 calls
    where slices are 500) still alternates, in shorter slices, rather than run whole."""
    n = max(1, round(calls / slice_calls)) if slice_calls > 0 else 1
    if slice_calls > 0 and n < 2 and calls >= 2 * MIN_SLICE_CALLS:
        n = 2
    return [size for size in split_evenly(calls, n) if size > 0]


def slice_orders(members: int, slices: int, rng: random.Random) -> list[list[int]]:
    """Per slice, the order in which the members run it: ABBA, starting forward or reversed at random."""
    forward = list(range(members))
    flip = rng.random() < 0.5
    return [forward[::-1] if (k % 2 == 1) != flip else forward for k in range(slices)]


@dataclass
class _Collected:
    """What one member's slices gave so far."""

    samples: list[np.ndarray] = field(default_factory=list)
    elapsed_ns: int = 0
    messages: int = 0
    received_bytes: int = 0
    sync_complete: bool = True
    warmup_sync_complete: bool | None = None
    ended: Measurement | WorkerError | None = None  # a failed slice ends the member's trial
    files: list[Path] = field(default_factory=list)
    thread_calls: list[int] = field(default_factory=list)  # a point of N clients as threads: each one's calls
    load: LoadOverWindows = field(default_factory=LoadOverWindows)  # ... and who was busy during its slices
    service: ServiceReading | None = None
    wire: WireReading | None = None
    run_calls: int = 0  # warm-up and timed calls of its slices' run commands, every thread's
    jit_ms: list[int | None] = field(default_factory=list)  # each slice's client JIT time (measure.jit_ms)
    turns: int | None = None  # the turns its client took inside one run (_run_turns)


def takes_turns(members: list[SliceMember], companions: tuple[Companion, ...] = ()) -> bool:
    """Whether the members' trial can run in turns (module docstring): two or more members, no companions,
    every client local and saying `turns` in its hello, a closed-loop point of one client on one thread and
    object with the plain `in` shape."""
    if companions or len(members) < 2:
        return False
    point = members[0].point
    if point.mode not in TURN_MODES or point.clients != 1 or point.rate_hz or point.objects != 1 \
            or point.shape != "in":
        return False
    return all(m.session.hello.get("turns") is True and local_client_pid(m.session) is not None for m in members)


# After a member's run in turns failed, how long another still running may take to answer once released.
STUCK_AFTER_FAILURE_S = 10.0
# Modes whose slices can be turns: every mode a unit slices (a oneway turn ends with its barrier).
TURN_MODES = SLICED_MODES


def measure_sliced(members: list[SliceMember], slice_calls: int, slice_rewarm: int, rng: random.Random,
                   before_slice: Callable[[SliceMember], None] = lambda member: None,
                   companions: tuple[Companion, ...] = (), turns: bool = False) -> list[Measurement | WorkerError]:
    """Each member's trial, its calls in slices alternating with the other members' (ABBA). A member whose
    slice fails ends there (its Measurement says why, or the WorkerError that calls for fresh workers), and the
    others go on without it. `turns`: the slices as turns (the caller found that takes_turns holds).
    `before_slice`: called with the member whose slice comes next, one `run` per slice (the runner stops the
    other targets' workers, as for a whole trial). `companions` take their turns after the members in the
    rotation, a slice of as many calls each time; a companion's error ends the trial (it is raised)."""
    sizes = slice_sizes(members[0].plan.calls, slice_calls)
    collected = [_Collected() for _ in members]
    reading = UsageReading(members[0].session.runtime.usage_hosts())
    for member, got in zip(members, collected):
        got.wire = WireReading(local_client_pid(member.session))
    orders = slice_orders(len(members) + len(companions), len(sizes), rng)
    if turns:
        assert takes_turns(members, companions)
        _warm_and_run_turns(members, sizes, orders, slice_rewarm, collected)
        orders = []
    for k, order in enumerate(orders):
        for i in order:
            if i >= len(members):
                with members[0].plan.phases.phase("companions"):
                    companions[i - len(members)].run_slice(k, sizes[k], slice_rewarm)
                continue
            member, got = members[i], collected[i]
            if got.ended is not None:
                continue
            # The first slice: the trial's warm-up or rewarm, and never fewer calls than a later slice gets.
            warmup = max(member.plan.warmup, slice_rewarm) if k == 0 else slice_rewarm
            path = member.plan.samples_file.with_name(f"{member.plan.samples_file.stem}.s{k}.i64")
            plan = replace(member.plan, calls=sizes[k], warmup=warmup, samples_file=path, anatomy="off")
            got.files.append(path)
            member.plan.phases.warmup_phase = member.first_warmup if k == 0 else "rewarm"
            before_slice(member)
            try:
                if k == 0:  # a oneway warm-up in pieces, but for the one the slice carries (flood.py)
                    plan, failed = warm_in_pieces(measure_single, member.session, member.point, plan)
                    if failed is not None:
                        got.ended = failed
                        continue
                _run_slice(member, plan, got)
            except WorkerError as exc:
                got.ended = exc
    usage = reading.end()
    end_unix = time.time()
    out: list[Measurement | WorkerError] = []
    for member, got in zip(members, collected):
        out.append(got.ended if got.ended is not None else _measurement(member, got, sizes, usage.as_fields(),
                                                                          end_unix))
        for path in got.files:
            path.unlink(missing_ok=True)
    return out


def _warm_and_run_turns(members: list[SliceMember], sizes: list[int], orders: list[list[int]], slice_rewarm: int,
                        collected: list[_Collected]) -> None:
    """A oneway warm-up's pieces first, each member's alone (flood.py; the last piece goes with its first turn),
    then the turns of the members whose pieces went through."""
    live: list[int] = []
    runs: list[SliceMember] = []
    for i, (member, got) in enumerate(zip(members, collected)):
        member.plan.phases.warmup_phase = member.first_warmup
        plan = replace(member.plan, warmup=max(member.plan.warmup, slice_rewarm))
        plan, failed = warm_in_pieces(measure_single, member.session, member.point, plan)
        if failed is not None:
            got.ended = failed
            continue
        live.append(i)
        runs.append(replace(member, plan=plan))
    if runs:
        renumbered = [[live.index(i) for i in order if i in live] for order in orders]
        _run_turns(runs, sizes, renumbered, slice_rewarm, [collected[i] for i in live])


def _run_turns(members: list[SliceMember], sizes: list[int], orders: list[list[int]], slice_rewarm: int,
               collected: list[_Collected]) -> None:
    """The members' slices as turns inside one `run` each (module docstring). A member whose run fails ends its
    trial, and the others are given every turn they still wait for, so they finish at once (their trials then
    pair with no one of that member's)."""
    turns = turn_plan(len(members), orders, sizes)
    first = members[0]
    clock = first.plan.phases
    clock.warmup_phase = first.first_warmup
    plans = [replace(m.plan, anatomy="off",
                     samples_file=m.plan.samples_file.with_name(f"{m.plan.samples_file.stem}.turns.i64"))
             for m in members]
    # A member's run takes at most its own trial's time and the others' (its waits for their turns): a longer
    # one means a member died or hangs. A turn waits at most for the others' whole runs.
    own_s = [trial_timeout_s(plan, 0.0) for plan in plans]
    timeout_s = sum(own_s)
    answers: dict[int, dict[str, Any] | WorkerError] = {}
    with TurnPipes(len(members)) as pipes:
        last = turns[-1][0]
        sent = time.perf_counter()
        for i, (member, plan, got) in enumerate(zip(members, plans, collected)):
            got.files.append(plan.samples_file)
            if got.service is None:
                got.service = ServiceReading(member.session.server)
            command = run_command(member.session, member.point, plan)
            command["turns"] = pipes.turns_field(turns, i, sizes, slice_rewarm,
                                                 int((timeout_s - own_s[i]) * 1000) or 1)
            try:
                member.session.client.send(command)
            except WorkerError as exc:
                answers[i] = exc
        # Wait on the client with the trial's last turn, the one to answer first; every quarter second, whether
        # another one failed (its answer came early, or it died): then everyone still running gets all the turns
        # it could wait for, so the trial ends at once. No tighter polling: the harness's wake-ups would land on
        # the measured CPU.
        everyone = list(range(len(members)))
        others = [i for i in everyone if i != last]
        failed_early = any(isinstance(answers.get(i), WorkerError) for i in everyone)

        def watch_others() -> None:
            nonlocal failed_early
            if not failed_early and any(members[i].session.client.has_line() or not members[i].session.client.alive()
                                        or not members[i].session.server.alive() for i in others):
                failed_early = True
                pipes.give(everyone, len(turns))

        if failed_early:
            pipes.give(everyone, len(turns))
        if last not in answers:
            answers[last] = _receive(members[last], timeout_s, watch_others)
        last_failed = isinstance(answers[last], WorkerError) or not answers[last].get("ok")
        # The trial's last turn is over: the others may read their counters and answer (all their turns, if it
        # ended early). After a failure, one that does not answer soon is stuck in a call: its workers are
        # started afresh (the WorkerError), not waited for a whole trial's time.
        pipes.give([i for i in others if i not in answers], len(turns) if last_failed and not failed_early else 1)
        for i in others:
            if i not in answers:
                answers[i] = _receive(members[i], min(own_s[i], STUCK_AFTER_FAILURE_S) if last_failed else own_s[i])
    round_trip = time.perf_counter() - sent
    elapsed = warmups = calls = 0
    for i, (member, plan, got) in enumerate(zip(members, plans, collected)):
        answer = answers[i]
        if isinstance(answer, WorkerError):
            got.ended = answer
            continue
        failed = failed_answer(answer, member.session.server)
        if failed is not None:
            got.ended = failed
            continue
        rewarmed = slice_rewarm * max(0, int((answer.get("turns") or {}).get("count") or 0) - 1)
        elapsed += int(answer.get("elapsed_ns") or 0)
        warmups += plan.warmup + rewarmed
        calls += plan.calls
        with clock.phase("samples"):
            samples = fetched_samples(member.session, plan.samples_file, plan.store_root, plan.calls)
        got.samples = list(np.split(samples, np.cumsum(sizes)[:-1]))
        received = answer.get("received") or {}
        got.elapsed_ns = int(answer.get("elapsed_ns") or 0)
        got.jit_ms.append(jit_ms(answer))
        got.run_calls = plan.warmup + rewarmed + plan.calls
        got.turns = int((answer.get("turns") or {}).get("count") or 0) or None
        if member.point.mode == "oneway":
            got.sync_complete = bool((answer.get("sync") or {}).get("complete"))
            if "warmup_sync" in answer:
                got.warmup_sync_complete = bool(answer["warmup_sync"].get("complete"))
        got.messages = int(received.get("messages") or 0)
        got.received_bytes = int(received.get("bytes") or 0)
    # One exchange for all members: their timed calls, warm-ups, and the rest (hand-overs, answers) as samples.
    clock.run_command(round_trip, elapsed, warmups, calls)


def _receive(member: SliceMember, timeout_s: float, on_wait: Callable[[], None] | None = None
             ) -> dict[str, Any] | WorkerError:
    """A member's answer to its run in turns, or the WorkerError that ended it."""
    assert member.session.client is not None and member.session.server is not None
    try:
        return member.session.client.receive(timeout_s, watch=[member.session.server], on_wait=on_wait)
    except WorkerError as exc:
        return exc


def _run_slice(member: SliceMember, plan: TrialPlan, got: _Collected) -> None:
    session, clock = member.session, plan.phases
    assert session.client is not None and session.server is not None
    threads = _threads(member.point)
    sampler = start_load_sampler(session, [session.client], [session.hello]) if threads > 1 else None
    if got.service is None:
        got.service = ServiceReading(session.server)
    sent, sent_ns = time.perf_counter(), time.monotonic_ns()
    try:
        answer = session.client.call(run_command(session, member.point, plan),
                                     timeout=trial_timeout_s(plan, 0.0, threads), watch=[session.server])
    finally:
        if sampler is not None:
            sampler.stop()
    round_trip = time.perf_counter() - sent
    failed = failed_answer(answer, session.server)
    if failed is not None:
        got.ended = failed
        return
    elapsed = int(answer.get("elapsed_ns") or 0)
    clock.run_command(round_trip, elapsed, plan.warmup, plan.calls,
                      local_warmup_s(session.client, answer.get("start_ns"), sent_ns), clients=threads)
    with clock.phase("samples"):
        got.samples.append(fetched_samples(session, plan.samples_file, plan.store_root, plan.calls * threads))
    if threads > 1:
        each = [int(n) for n in answer.get("thread_calls") or ()]
        got.thread_calls = [a + b for a, b in zip(got.thread_calls, each)] if got.thread_calls else each
    if sampler is not None:
        start, end = answer.get("start_ns"), answer.get("end_ns")
        got.load.add(sampler, int(start) if start is not None else None, int(end) if end is not None else None,
                     plan.warmup, plan.calls)
    received = answer.get("received") or {}
    got.elapsed_ns += elapsed
    got.jit_ms.append(jit_ms(answer))
    got.run_calls += threads * (plan.warmup + plan.calls)
    got.messages += int(received.get("messages") or 0)
    got.received_bytes += int(received.get("bytes") or 0)
    if member.point.mode == "oneway":
        got.sync_complete &= bool((answer.get("sync") or {}).get("complete"))
        if "warmup_sync" in answer:
            done = bool(answer["warmup_sync"].get("complete"))
            got.warmup_sync_complete = done if got.warmup_sync_complete is None else got.warmup_sync_complete and done


def _threads(point: Point) -> int:
    """A point of N clients as threads is one client making its calls on N threads, each a slice's calls."""
    return point.clients if point.clients_as == "threads" else 1


def _measurement(member: SliceMember, got: _Collected, sizes: list[int], usage: dict[str, Any],
                 end_unix: float) -> Measurement:
    """The member's trial row: its slices' samples in one file, in the order they ran, and each slice's p50 and
    mean beside the whole trial's figures."""
    plan, point = member.plan, member.point
    samples = np.concatenate(got.samples)
    with plan.phases.phase("samples"):
        plan.samples_file.parent.mkdir(parents=True, exist_ok=True)
        samples.astype("<i8").tofile(plan.samples_file)
    calls = int(samples.size)
    fields: dict[str, Any] = {
        "status": "ok", "calls": calls, "warmup": plan.warmup, "samples_file": plan.samples_record,
        **latency_fields(samples), "elapsed_ns": got.elapsed_ns or None,
        "received_messages": got.messages, "received_bytes": got.received_bytes,
        "trial_end_unix": round(end_unix, 4), **usage,
        "slice_calls": max(sizes), "slice_p50s_ns": tuple(float(np.median(s)) for s in got.samples),
        "slice_means_ns": tuple(round(float(np.mean(s)), 1) for s in got.samples),
        "slice_sizes": tuple(int(s.size) for s in got.samples),
        "out_segs_per_call": got.wire.per_call(got.run_calls) if got.wire is not None else None,
        "client_jit_ms": jit_total(got.jit_ms), "slice_turns": got.turns,
    }
    if got.elapsed_ns:
        fields["aggregate_calls_per_s"] = round(calls / got.elapsed_ns * 1e9, 1)
    if got.thread_calls:  # a point of N threads: each one's calls, and who was busy over its slices
        fields["client_calls"] = tuple(got.thread_calls)
        fields["fairness"] = jain_fairness([float(n) for n in got.thread_calls])
        fields.update(got.load.fields())
    if got.service is not None:
        fields.update(got.service.fields())
    if point.mode == "oneway":
        fields.update(oneway_fields(calls, got.messages, got.received_bytes, got.elapsed_ns, got.sync_complete))
        if got.warmup_sync_complete is not None:
            fields["warmup_sync_complete"] = got.warmup_sync_complete
    return Measurement(**fields)
