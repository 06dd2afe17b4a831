"""The steady-state rule before timing (running/steady.py): what ends the chunks, and the chunk's statistic."""

import time

import numpy as np
from orbench.results.trial import Measurement
from orbench.running.steady import SteadyState, chunk_p50, warm_until_steady


def rule(max_s: float | None = None) -> SteadyState:
    return SteadyState(cv_pct=2.0, chunk_calls=100, window=3, max_calls=100 * 1000, max_s=max_s)


def test_chunks_end_once_the_last_window_agrees():
    p50s = iter([500.0, 300.0, 200.0, 201.0, 200.0, 999.0])
    record = warm_until_steady(rule(), 1000, lambda n, w: Measurement(status="ok", p50_ns=next(p50s)))
    assert record.reached and record.stopped_by == "steady" and record.chunk_p50s_ns == [500, 300, 200, 201, 200]


def test_the_time_bound_leaves_the_fixed_warm_up_out():
    """A JVM's fixed warm-up (here 0.3 s in the first chunk) must not use up the chunks' bound (0.1 s): the
    chunks after it still run, and are judged, until the bound."""
    def chunk(n: int, warmup: int) -> Measurement:
        time.sleep(0.3 if warmup else 0.002)
        return Measurement(status="ok", p50_ns=100.0 + 50.0 * (n % 2))  # never steady

    record = warm_until_steady(rule(max_s=0.1), 10000, chunk)
    assert record.stopped_by == "max_s" and len(record.chunk_p50s_ns) > 3 and record.cv_pct is not None
    assert record.seconds >= 0.4


def test_a_chunks_statistic_leaves_out_the_restart_of_a_oneway_flood():
    samples = np.array([9000] * 100 + [1000] * 200, dtype=np.int64)
    assert chunk_p50(samples) == 1000.0 and float(np.median(samples)) == 1000.0
    samples = np.array([9000] * 100 + [1000] * 100 + [1100] * 100, dtype=np.int64)
    assert chunk_p50(samples) == 1050.0 and float(np.median(samples)) == 1100.0
