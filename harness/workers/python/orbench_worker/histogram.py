"""The soak histogram (PROTOCOL.md, "The histogram"): HdrHistogram's counts layout at 2 significant digits,
7296 buckets over 0 .. 2^63 - 1, so every worker and the harness agree on bucket i."""

from __future__ import annotations

import math

SUB_BUCKET_BITS = 7
BUCKETS = 7296


def bucket_of(value: int) -> int:
    if value < 256:
        return max(value, 0)
    shift = value.bit_length() - 1 - SUB_BUCKET_BITS
    return shift * 128 + (value >> shift)


def highest_in(index: int) -> int:
    if index < 256:
        return index
    shift = index // 128 - 1
    return ((index - shift * 128) << shift) + (1 << shift) - 1


class Histogram:
    def __init__(self) -> None:
        self.counts = [0] * BUCKETS
        self.total = 0
        self.min = 0
        self.max = 0

    def record(self, value: int) -> None:
        value = max(value, 0)
        self.counts[bucket_of(value)] += 1
        if self.total == 0 or value < self.min:
            self.min = value
        if value > self.max:
            self.max = value
        self.total += 1

    def add(self, other: Histogram) -> None:
        if other.total == 0:
            return
        for i, c in enumerate(other.counts):
            if c:
                self.counts[i] += c
        if self.total == 0 or other.min < self.min:
            self.min = other.min
        self.max = max(self.max, other.max)
        self.total += other.total

    def percentile(self, p: float) -> int:
        """The highest value of the bucket holding rank ceil(p/100 x count), capped at the exact maximum."""
        if self.total == 0:
            return 0
        rank = max(1, math.ceil(p / 100 * self.total))
        seen = 0
        for i, c in enumerate(self.counts):
            seen += c
            if seen >= rank:
                return min(highest_in(i), self.max)
        return self.max

    def stats(self) -> dict:
        return {"calls": self.total, "min_ns": self.min, "p50_ns": self.percentile(50),
                "p99_ns": self.percentile(99), "p999_ns": self.percentile(99.9), "max_ns": self.max}

    def sparse(self) -> list[list[int]]:
        return [[i, c] for i, c in enumerate(self.counts) if c]
