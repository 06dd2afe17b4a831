"""check-target's steps for load at scale (PROTOCOL.md, "Load at scale"): a client that claims `threads` makes a
run's calls on that many threads at once, every numbered call once, and a client that claims `objects` calls
every object it is asked to (the server's `objects_called` says which were called), in the order asked.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import numpy as np

from orbench.stats.stats import read_samples
from orbench.targets import relay_steps, sample_checks
from orbench.targets.descriptor import Target
from orbench.targets.workers import ClientWorker, ServerWorker

THREADS = 4
THREAD_CALLS = 200
THREAD_WARMUP = 10
THREAD_PAYLOAD = 100
# Through the relay that holds every reply: THREADS x RELAY_THREAD_CALLS calls, which must overlap (relay_steps.py).
RELAY_THREAD_CALLS = 10
RELAY_THREAD_WARMUP = 2
OBJECTS = 50
OBJECT_CALLS = 200          # four times round the objects
RANDOM_OBJECT_CALLS = 20    # fewer than the objects: random order reaches fewer distinct ones than round-robin
RANDOM_OBJECT_SEED = 17
MASK64 = (1 << 64) - 1


class Conformance(relay_steps.PlainRuns, Protocol):
    """What these steps use of check-target's Conformance (conformance.py, which calls them)."""

    target: Target
    host: str
    log_dir: Path

    def _validate(self, value: dict, definition: str) -> None: ...

    def _server(self, tag: str, args: tuple[str, ...] = ()) -> ServerWorker: ...

    def _client(self, tag: str) -> ClientWorker: ...


def splitmix64(seed: int) -> Iterator[int]:
    """SplitMix64 (Steele, Lea and Flood), the generator every worker draws a random object order from."""
    state = seed & MASK64
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        yield z ^ (z >> 31)


def random_objects(objects: int, calls: int, seed: int) -> list[int]:
    """The objects of calls 0 .. calls - 1 in `random` order: the i-th output mod objects."""
    draws = splitmix64(seed)
    return [next(draws) % objects for _ in range(calls)]


def _run(conformance: Conformance, client: ClientWorker, server: ServerWorker, tag: str,
         **fields: object) -> tuple[dict, np.ndarray]:
    """One run with these fields (mode, calls, threads, objects, ...); its answer, checked against the schema,
    and its samples."""
    path = conformance.log_dir / f"scale-{tag}.i64"
    command = {"cmd": "run", "payload_type": "octets", "payload_bytes": THREAD_PAYLOAD, "warmup": 0,
               "samples_file": str(path), "sync_timeout_ms": 10000, **fields}
    answer = client.call(command, timeout=120, watch=[server])
    if not answer["ok"]:
        raise AssertionError(f"error answer: {answer.get('error_kind')}: {answer.get('error')}")
    conformance._validate(answer, "run_answer")
    return answer, read_samples(path)


def _check_threads_answer(answer: dict, samples: np.ndarray, mode: str, threads: int, calls: int) -> str:
    total = threads * calls
    assert answer.get("threads") == threads, f"the answer says threads {answer.get('threads')}, not {threads}"
    assert samples.size == total, f"samples file has {samples.size} values, expected {threads} x {calls}"
    assert (samples > 0).all(), "samples file has non-positive latencies"
    assert answer["calls"] == total, f"the answer says calls {answer['calls']}, not {threads} x {calls}"
    per_thread = answer.get("thread_calls")
    assert isinstance(per_thread, list) and len(per_thread) == threads and sum(per_thread) == total, \
        f"thread_calls {per_thread} do not add up to {total} over {threads} threads"
    rx = answer["received"]
    assert rx["messages"] == total and rx["bytes"] == total * THREAD_PAYLOAD, \
        f"server counted {rx}, expected {total} messages of {THREAD_PAYLOAD} B"
    assert (answer.get("sync") or {}).get("complete"), "a run on threads without a complete closing sync"
    assert answer["end_ns"] - answer["start_ns"] == answer["elapsed_ns"], "elapsed_ns is not end_ns - start_ns"
    # Each thread's samples lie inside elapsed_ns: together at most `threads` times it.
    span = max(sample_checks.timed_span_ns(answer, mode), 1)
    ratio = int(samples.sum()) / span
    assert ratio <= sample_checks.SUM_OVER_ELAPSED_MAX * threads, \
        f"the samples add up to {ratio:.2f} x the timed span, more than {threads} threads can"
    assert ratio >= sample_checks.SUM_OVER_ELAPSED_MIN[mode], \
        f"the samples add up to {ratio:.4f} x the timed span: not nanoseconds of these calls?"
    distinct = np.unique(samples).size
    assert distinct >= sample_checks.MIN_DISTINCT, f"only {distinct} distinct sample values"
    return f"thread_calls {per_thread}, p50 {float(np.median(samples)) / 1000:.1f} us"


def threads_run(conformance: Conformance, client: ClientWorker, server: ServerWorker, mode: str) -> str:
    """THREADS x THREAD_CALLS calls of `mode`: every numbered call made and counted, the threads' counts adding
    up, the samples those of the calls."""
    answer, samples = _run(conformance, client, server, f"threads-{mode}", mode=mode, calls=THREAD_CALLS,
                           warmup=THREAD_WARMUP, threads=THREADS)
    assert (answer.get("warmup_sync") or {}).get("complete"), "no complete warm-up barrier (warmup_sync)"
    return _check_threads_answer(answer, samples, mode, THREADS, THREAD_CALLS)


def threads_overlap(conformance: Conformance, client: ClientWorker, server: ServerWorker, delay_ns: int) -> str:
    """A twoway run on THREADS threads through a relay that holds every reply `delay_ns`: each sample is at
    least the delay, and the run takes far less than its calls made one at a time would."""
    with relay_steps.through_relay(conformance.host, conformance.target.family, client, server, delay_ns):
        one_ns = relay_steps.one_call_ns(conformance, client, server)
        answer, samples = _run(conformance, client, server, "threads-relay", mode="twoway",
                               calls=RELAY_THREAD_CALLS, warmup=RELAY_THREAD_WARMUP, threads=THREADS)
        return relay_steps.check_overlap(samples, answer, THREADS * RELAY_THREAD_CALLS, delay_ns,
                                         f"on {THREADS} threads", one_ns)


def objects_runs(conformance: Conformance) -> str:
    """A server with OBJECTS objects: a round-robin run calls every one of them, a random one (from
    RANDOM_OBJECT_SEED) exactly the objects SplitMix64 draws, every call counted; with threads too when the
    client claims them."""
    server = conformance._server("objects", ("--objects", str(OBJECTS)))
    client = conformance._client("objects")
    try:
        assert server.answers_stats, "a server with objects must answer stats (objects_called)"
        objects = server.ready["worker"].get("objects")
        assert objects == OBJECTS, f"the ready line's worker says objects {objects}, the server got --objects {OBJECTS}"
        answer = client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}}, watch=[server])
        assert answer["ok"], f"connect: {answer.get('error_kind')}: {answer.get('error')}"
        runs = [("round-robin", {"mode": "twoway", "calls": OBJECT_CALLS, "warmup": 10,
                                 "objects": OBJECTS, "object_order": "round-robin"}, OBJECTS),
                ("random", {"mode": "twoway", "calls": RANDOM_OBJECT_CALLS, "objects": OBJECTS,
                            "object_order": "random", "seed": RANDOM_OBJECT_SEED},
                 len(set(random_objects(OBJECTS, RANDOM_OBJECT_CALLS, RANDOM_OBJECT_SEED))))]
        if conformance.target.client_threads:
            runs.append(("threads", {"mode": "oneway", "calls": OBJECT_CALLS // THREADS, "warmup": 5,
                                     "threads": THREADS, "objects": OBJECTS}, OBJECTS))
        out = []
        for tag, fields, want in runs:
            answer, samples = _run(conformance, client, server, f"objects-{tag}", **fields)
            calls = int(fields["calls"]) * int(fields.get("threads", 1))
            assert samples.size == calls, f"{tag}: {samples.size} samples, expected {calls}"
            assert answer["received"]["messages"] == calls, \
                f"{tag}: server counted {answer['received']['messages']} messages, expected {calls}"
            assert answer.get("objects") == OBJECTS and answer.get("object_order") == fields.get(
                "object_order", "round-robin"), f"{tag}: the answer says objects {answer.get('objects')} " \
                                                f"order {answer.get('object_order')}"
            stats = server.stats()
            called = (stats or {}).get("objects_called")
            assert called is not None, f"the server's stats line has no objects_called: {stats}"
            assert called == want, (f"{tag} run of {calls} calls over {OBJECTS} objects: the server saw "
                                    f"{called} objects called, expected {want}")
            out.append(f"{tag} {called}")
        return "objects called: " + ", ".join(out)
    finally:
        client.stop()
        server.stop()
