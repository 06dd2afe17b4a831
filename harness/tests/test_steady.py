"""The steady-state rule before timing (running/steady.py): what ends the chunks, and the chunk's statistic."""

import time

import numpy as np
from orbench.results.point import Point
from orbench.results.trial import Measurement, Trial
from orbench.running.steady import (
    Chunk,
    SteadyState,
    chunk_p50,
    chunk_p50_se,
    warm_until_jit_quiet,
    warm_until_steady,
)
from orbench.summary.run_checks import _launch_warnings, jit_warnings


def rule(max_s: float | None = None) -> SteadyState:
    return SteadyState(cv_pct=2.0, chunk_calls=100, window=3, max_calls=100 * 1000, max_s=max_s)


def test_chunks_end_once_the_last_window_agrees():
    p50s = iter([500.0, 300.0, 200.0, 201.0, 200.0, 999.0])
    record = warm_until_steady(rule(), 1000, lambda n, w: Chunk(Measurement(status="ok", p50_ns=next(p50s))))
    assert record.reached and record.stopped_by == "steady" and record.chunk_p50s_ns == [500, 300, 200, 201, 200]


def test_the_time_bound_leaves_the_fixed_warm_up_out():
    """A JVM's fixed warm-up (here 0.3 s in the first chunk) must not use up the chunks' bound (0.1 s): the
    chunks after it still run, and are judged, until the bound."""
    def chunk(n: int, warmup: int) -> Chunk:
        time.sleep(0.3 if warmup else 0.002)
        return Chunk(Measurement(status="ok", p50_ns=100.0 + 50.0 * (n % 2)))  # never steady

    record = warm_until_steady(rule(max_s=0.1), 10000, chunk)
    assert record.stopped_by == "max_s" and len(record.chunk_p50s_ns) > 3 and record.cv_pct is not None
    assert record.seconds >= 0.4


def test_a_chunks_statistic_leaves_out_the_restart_of_a_oneway_flood():
    samples = np.array([9000] * 100 + [1000] * 200, dtype=np.int64)
    assert chunk_p50(samples) == 1000.0 and float(np.median(samples)) == 1000.0
    samples = np.array([9000] * 100 + [1000] * 100 + [1100] * 100, dtype=np.int64)
    assert chunk_p50(samples) == 1050.0 and float(np.median(samples)) == 1100.0


def test_oneway_chunks_end_within_their_own_noise_but_not_while_they_fall():
    """A flood whose chunk p50s jump by 10% with calls as noisy inside each chunk is steady (for a oneway
    point only); chunks still falling, each steady inside, are not."""
    rng = np.random.default_rng(7)

    def flood(n: int, warmup: int) -> Chunk:
        # Past the skipped first third, four runs of calls at 0.8, 1.2, 0.9 and 1.1 times the chunk's level: a
        # p50 at the level, a standard error of 9% of it; the levels alternate by 10% from chunk to chunk.
        level = 10000.0 * (1.0 + 0.1 * (n % 2))
        samples = np.repeat(np.array([1.0, 0.8, 1.2, 0.9, 1.1]) * level, [100, 50, 50, 50, 50]).astype(np.int64)
        return Chunk(Measurement(status="ok", p50_ns=chunk_p50(samples)), chunk_p50_se(samples))

    ten = SteadyState(cv_pct=2.0, chunk_calls=100, window=3, max_calls=1000)
    assert warm_until_steady(ten, 0, flood, "twoway").stopped_by == "max_calls"  # the 2% rule alone: to the bound
    record = warm_until_steady(ten, 0, flood, "oneway")
    assert record.stopped_by == "within_noise" and len(record.chunk_p50s_ns) == 3
    assert all(se is not None and se > 0 for se in record.chunk_se_ns)

    def falling(n: int, warmup: int) -> Chunk:
        samples = np.full(300, 50000 - 5000 * min(n, 8), dtype=np.int64) + rng.integers(0, 20, 300)
        return Chunk(Measurement(status="ok", p50_ns=chunk_p50(samples)), chunk_p50_se(samples))

    record = warm_until_steady(rule(), 0, falling, "oneway")
    assert record.stopped_by == "steady" and len(record.chunk_p50s_ns) == 11  # only once it stopped falling


def test_a_jvms_later_point_warms_until_a_chunk_compiles_nothing():
    """The chunks end at the first one in which neither JVM finished a compilation, whatever its p50."""
    jit = iter([41, 7, 0, 3])
    record = warm_until_jit_quiet(rule(), lambda n, w: Chunk(Measurement(status="ok", p50_ns=100.0 + n),
                                                              jit_ms=next(jit)))
    assert record.reached and record.stopped_by == "jit_quiet"
    assert record.chunk_jit_ms == [41, 7, 0] and record.steady_calls == 300 and record.warmup_calls == 0


def test_jit_quiet_chunks_stop_at_the_bound_or_where_nothing_is_known():
    def compiling(n: int, warmup: int) -> Chunk:
        time.sleep(0.002)
        return Chunk(Measurement(status="ok", p50_ns=100.0), jit_ms=5)

    record = warm_until_jit_quiet(rule(max_s=0.05), compiling)
    assert record.stopped_by == "max_s" and not record.reached and len(record.chunk_jit_ms) >= 2
    bounded = SteadyState(cv_pct=2.0, chunk_calls=100, window=3, max_calls=300)
    assert warm_until_jit_quiet(bounded, compiling).stopped_by == "max_calls"
    # A worker without a JIT (jit_ms None) has nothing to wait for: one chunk.
    unknown = warm_until_jit_quiet(rule(), lambda n, w: Chunk(Measurement(status="ok", p50_ns=100.0)))
    assert unknown.stopped_by == "jit_quiet" and unknown.chunk_jit_ms == [None]
    failed = warm_until_jit_quiet(rule(), lambda n, w: Chunk(Measurement(status="failed", error="died")))
    assert failed.stopped_by == "error" and failed.error == "died"


def test_a_jvm_timed_while_compiling_is_named_by_its_trials():
    def trials(target: str, jit: list[int | None]) -> list[Trial]:
        point = Point(placement="same-core", mode="twoway", payload_type="octets", payload_bytes=1, target=target)
        return [Trial(seq=k, point=point, trial=k, status="ok", client_jit_ms=ms) for k, ms in enumerate(jit)]

    found = jit_warnings([trials("glassfish", [0, 12, 30, 0]), trials("jacorb", [0, 0, 0, 4]),
                          trials("c-socket", [None, None])])
    assert [(w.kind, w.where, w.severity) for w in found] == [("JIT at work", "glassfish", 0.5)]
    assert "2 of 4 timed trials (median 21 ms in those)" in found[0].text


def test_a_jit_that_never_went_quiet_is_named_as_such():
    record = {"placement": "same-core", "mode": "twoway", "payload_type": "octets", "payload_bytes": 1024,
              "target": "glassfish", "launch": 1, "warmup_calls": 0, "steady_calls": 2000, "reached": False,
              "cv_pct": None, "chunk_jit_ms": [286, 40, 12, 9], "stopped_by": "max_s", "seconds": 0.52}
    (found,) = _launch_warnings({"launches": [{}, {}], "steady_state": [record]}, {})
    assert found.kind == "not steady" and found.where.endswith("L2")
    assert "its JIT still finished 9 ms of compiles in the last chunk" in found.text and "0.52 s" in found.text
