"""Stalls: a trial where a few calls take most of its time (a TAO 32 KB oneway trial once spent 97% of its 7 s
in 34 calls of about 208 ms). Its p50 can look fine while the trial says little about steady state, so it is
named even then."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# A stalled call takes this many times the trial's median or more.
STALL_FACTOR = 10.0
# The stalled calls together take at least this share of the trial's time...
STALL_SHARE = 0.5
# ... and are few: at most this share of the calls (more would be a second mode, not a stall) ...
FEW_CALLS_SHARE = 0.02
# ... and add up to this much at least: a trial of a thousand 1 us oneway calls is 1 ms long, and a scheduler
# hiccup of a few ms (which any VM has now and then) is most of it without being a stall worth a warning.
STALL_MIN_NS = 10e6


@dataclass(frozen=True)
class Stall:
    calls: int        # how many calls stalled
    of_calls: int     # of how many
    share: float      # their share of the trial's summed call time, 0..1
    longest_ns: float


def find_stall(samples: np.ndarray) -> Stall | None:
    """The trial's stall, or None when no few calls took most of its time."""
    if samples.size == 0:
        return None
    median = float(np.median(samples))
    slow = samples[samples >= STALL_FACTOR * median]
    total = float(samples.sum())
    if slow.size == 0 or total <= 0 or slow.size > FEW_CALLS_SHARE * samples.size:
        return None
    share = float(slow.sum()) / total
    if share < STALL_SHARE or float(slow.sum()) < STALL_MIN_NS:
        return None
    return Stall(int(slow.size), int(samples.size), share, float(slow.max()))
