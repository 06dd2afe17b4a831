"""What a run's samples must agree with (check-target): the worker's own elapsed time, and a known delay.

A sample is the time of one call in ns (PROTOCOL.md, `run`); the timed calls run back to back inside
`elapsed_ns`, so the samples' sum can neither exceed it nor be a small part of it. A wrong unit (microseconds)
or a made-up constant breaks one of the two by orders of magnitude; a known delay on the server's replies
(delay_relay.py) pins the unit against the clock of the harness.
"""

from __future__ import annotations

import numpy as np

# The samples' sum over the time the timed calls took: at most this over 1 (the clock reads of a sample lie
# inside elapsed_ns; the slack is rounding) ...
SUM_OVER_ELAPSED_MAX = 1.01
# ... and at least this: the loop between two calls is a few clock reads, but on a loaded 2-vCPU machine a
# scheduler slice or a JVM safepoint between calls can take milliseconds, next to oneway calls of a
# microsecond; an echo's reply is compared outside its sample, interpreted at first in a JVM (java-nio's first
# echo run: 0.29). A unit off by 1000 lands far below each.
SUM_OVER_ELAPSED_MIN = {"twoway": 0.2, "echo": 0.05, "oneway": 0.02}
# Fewer distinct values than this in a run of at least MIN_CALLS_FOR_DISTINCT calls is a made-up sample.
MIN_DISTINCT = 5
MIN_CALLS_FOR_DISTINCT = 20


def timed_span_ns(answer: dict, mode: str) -> int:
    """The time the timed calls themselves took: elapsed_ns, less a oneway run's closing barrier."""
    span = int(answer["elapsed_ns"])
    if mode == "oneway":
        span -= int((answer.get("sync") or {}).get("wait_ns") or 0)
    return span


def check_against_elapsed(samples: np.ndarray, answer: dict, mode: str) -> str:
    """Raises AssertionError for samples that cannot be this run's; returns the ratio of their sum."""
    if samples.size >= MIN_CALLS_FOR_DISTINCT:
        distinct = np.unique(samples).size
        assert distinct >= MIN_DISTINCT, f"only {distinct} distinct sample values in {samples.size} calls"
    total = int(samples.sum())
    elapsed = int(answer["elapsed_ns"])
    assert total <= SUM_OVER_ELAPSED_MAX * elapsed, \
        f"the samples add up to {total} ns, more than the run's elapsed_ns {elapsed}"
    span = max(timed_span_ns(answer, mode), 1)
    ratio = total / span
    assert ratio >= SUM_OVER_ELAPSED_MIN[mode], (
        f"the samples add up to {total} ns, {ratio:.4f} of the {span} ns the timed calls took "
        f"(elapsed_ns{' less the closing sync' if mode == 'oneway' else ''}): not nanoseconds of these calls?")
    return f"sum/elapsed {ratio:.2f}"


def check_delayed_twoway(samples: np.ndarray, delay_ns: int, ceiling: int) -> str:
    """Every reply was held `delay_ns`: no sample can be shorter, and (in ns) none far longer."""
    low, med = int(samples.min()), int(np.median(samples))
    assert low >= delay_ns, f"a sample of {low} ns, below the {delay_ns} ns every reply was held: not ns?"
    assert med <= ceiling * delay_ns, f"median sample {med} ns, over {ceiling} x the {delay_ns} ns delay: not ns?"
    return f"min {low / 1e6:.1f} ms, p50 {med / 1e6:.1f} ms for a {delay_ns / 1e6:.0f} ms delay"


def check_oneway_returns_first(samples: np.ndarray, delay_ns: int) -> str:
    """A oneway call returns once the request is handed on, long before any reply could come back."""
    med = int(np.median(samples))
    assert med < delay_ns // 2, (
        f"median oneway sample {med / 1e6:.2f} ms with replies held {delay_ns / 1e6:.0f} ms: the oneway call "
        "waits for the server")
    return f"p50 {med / 1e3:.1f} us with replies held {delay_ns / 1e6:.0f} ms"
