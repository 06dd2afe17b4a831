"""Steady state before timing: a worker is warmed in untimed chunks until its latency stops moving.

A fixed warm-up count assumes the JIT (and the caches, the allocator, the socket buffers) is done after it; a
JVM may still be compiling, and JacORB's first pairs of a run were 10-15 us slower than its later ones after
10000 warm-up calls. Georges, Buytaert and Eeckhout ("Statistically Rigorous Java Performance Evaluation") time
a benchmark only once the coefficient of variation of its last few iterations is below a threshold; here an
iteration is a chunk of calls, its statistic the p50 of the chunk's later calls, and the bound keeps a worker that never settles
from eating the campaign (it is then timed anyway, and the summary warns).

A JVM's later points need the same. With the chunks at a worker's first point only (steady_at = "first-point"),
each later point's first trial of a launch ran code paths the JIT had not compiled yet (a new payload size is new
marshalling paths): over three middleware runs (20261130-154253-vm, -161928-vm, -165849-vm) that trial's p50 was
1.10-1.74x the same launch's later trials' for GlassFish, gRPC Java, JacORB and Ice Java (median per target and
mode), 1.00 for every C++ and Python target, and the launches' ORB-added values scattered with it (GlassFish
split-core twoway 1 KB: 296, 174, 110 and 101 us by launch, their first trials 474, 330, 250 and 163 us). So at
those points a JVM gets chunks until one in which neither of its JVMs finished a compilation
(warm_until_jit_quiet: the JIT's own accumulated compile time, PROTOCOL.md memory.jit_ms), within the same bound.
Barrett et al. ("Virtual Machine Warmup Blows Hot and Cold", OOPSLA 2017) found that a VM's benchmarks often
never reach a steady state; a quiet JIT is the cause this one removes, not a promise of a flat line.

A oneway flood's chunk p50 moves with how the receiver batches (from 16 KB, 10-40% from one 300-call chunk to
the next however warm), so a fixed threshold ends its chunks only at the bound. For oneway points the chunks
also count as steady when their p50s vary no more than twice the noise each chunk shows within itself
(NOISE_ALLOWANCE, chunk_p50_se): what is left is the flood's own noise, not a trend the chunks could still show.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from orbench.campaign.settings import Settings
from orbench.results.trial import Measurement

# Chunks the bound allows by default: enough for a JIT to settle at a new payload, few enough that a worker
# that never settles costs one or two trials' worth of time.
DEFAULT_MAX_CHUNKS = 20
# A chunk's statistic leaves out its first third: each chunk is a `run` of its own, and a oneway flood restarts
# after the warm-up's closing sync, its first 50-100 calls 2-12x slower than the rest (quick, 300-call chunks),
# which moved every chunk's p50 by a different amount and kept oneway workers from ever agreeing within 2%.
CHUNK_SKIP_FRACTION = 1 / 3


# A JVM whose JIT stayed busy through the bound at this many of a launch's points in a row gets no more JIT-quiet
# chunks in that launch: at a later point's first chunk GlassFish's JIT finished 286 ms of compiles and gRPC
# Java's 477 ms (medians), within 0.5 s they went quiet at 15 and 13 of 42 points, and their chunks took 51 s of
# the run's 379 (run 20261130-181153-vm, JVM targets at 4 sizes, 3 launches, no such limit); JacORB's, Ice
# Java's and java-socket's went quiet at 30-42 of 42. Two rather than one is a choice, not a measurement: one
# busy point may be a large size's first compiles, two in a row is a JIT that stays busy.
JIT_BUSY_POINTS = 2

# The modes whose chunks may also end within their own noise, and by how many times their standard error.
NOISE_MODES = ("oneway",)
NOISE_ALLOWANCE = 2.0
# The blocks a chunk's counted calls are cut into to see its own noise.
NOISE_BLOCKS = 4


def _counted(samples: np.ndarray) -> np.ndarray:
    """A chunk's calls past its first third (CHUNK_SKIP_FRACTION), the ones its statistic is taken over."""
    return samples[int(samples.size * CHUNK_SKIP_FRACTION):]


def chunk_p50(samples: np.ndarray) -> float:
    """A steady-state chunk's p50: over its counted calls (_counted)."""
    return float(np.median(_counted(samples)))


def chunk_p50_se(samples: np.ndarray) -> float | None:
    """The standard error of chunk_p50 from the chunk's own calls: the spread of the medians of NOISE_BLOCKS
    consecutive blocks of them, over sqrt(blocks). Blocks, not a bootstrap: a flood's calls come in runs (the
    receiver's batches), which independent draws would not see. None for too few calls."""
    counted = _counted(samples)
    if counted.size < 4 * NOISE_BLOCKS:
        return None
    medians = [float(np.median(b)) for b in np.array_split(counted, NOISE_BLOCKS)]
    return float(np.std(medians, ddof=1) / np.sqrt(NOISE_BLOCKS))


@dataclass(frozen=True)
class Chunk:
    """What one chunk gave: its measurement (p50_ns the chunk statistic) and, when known, that p50's standard
    error from within the chunk (chunk_p50_se)."""

    measurement: Measurement
    p50_se_ns: float | None = None
    jit_ms: int | None = None   # compile time both JVMs finished during the chunk's timed calls; None: unknown


@dataclass(frozen=True)
class SteadyState:
    """The campaign's steady-state criterion (keys steady_cv_pct, steady_chunk_calls, steady_window,
    steady_max_calls)."""

    cv_pct: float
    chunk_calls: int
    window: int
    max_calls: int
    max_s: float | None = None   # the chunks' bound by time (steady_max_s); None: by calls only

    @classmethod
    def from_settings(cls, settings: Settings) -> SteadyState | None:
        if settings.steady_cv_pct is None:
            return None
        chunk = settings.steady_chunk_calls or settings.calls
        return cls(cv_pct=settings.steady_cv_pct, chunk_calls=chunk, window=settings.steady_window,
                   max_calls=settings.steady_max_calls or DEFAULT_MAX_CHUNKS * chunk, max_s=settings.steady_max_s)


@dataclass
class SteadyRecord:
    """How one worker's warm-up at one point and launch went (the manifest's steady_state entries)."""

    warmup_calls: int          # the fixed warm-up before the first chunk
    chunk_calls: int
    window: int
    steady_calls: int = 0      # calls in chunks
    reached: bool = False
    cv_pct: float | None = None  # over the last `window` chunk p50s when it stopped
    chunk_p50s_ns: list[float] = field(default_factory=list)
    chunk_se_ns: list[float | None] = field(default_factory=list)  # each p50's standard error within its chunk
    error: str = ""
    seconds: float = 0.0       # what the chunks took, fixed warm-up included
    # "steady" (within cv_pct), "within_noise" (a oneway flood's chunks within their own noise), "jit_quiet"
    # (warm_until_jit_quiet), "max_calls", "max_s" or "error"
    stopped_by: str = ""
    chunk_jit_ms: list[int | None] = field(default_factory=list)  # warm_until_jit_quiet's chunks' jit_ms

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def took(self, c: Chunk) -> bool:
        """Records one chunk: its p50, that p50's standard error and its calls; False, with the record saying
        why, when it failed (the warm-up then ends: the trial that follows meets the same problem)."""
        m = c.measurement
        if m.status != "ok" or m.p50_ns is None:
            self.error, self.stopped_by = m.error or m.status, "error"
            return False
        self.chunk_p50s_ns.append(float(m.p50_ns))
        self.chunk_se_ns.append(None if c.p50_se_ns is None else round(c.p50_se_ns, 1))
        self.steady_calls += self.chunk_calls
        return True


def cv_pct(values: list[float]) -> float | None:
    """Coefficient of variation (sample standard deviation over mean), in percent."""
    x = np.asarray(values, dtype=float)
    if x.size < 2 or x.mean() <= 0:
        return None
    return float(x.std(ddof=1) / x.mean() * 100.0)


def within_noise(p50s: list[float], ses: list[float | None]) -> bool:
    """Whether chunk p50s vary (their sample standard deviation) no more than NOISE_ALLOWANCE times the mean of
    their standard errors within each chunk."""
    if len(p50s) < 2 or any(se is None for se in ses):
        return False
    return float(np.std(p50s, ddof=1)) <= NOISE_ALLOWANCE * float(np.mean(ses))


def warm_until_steady(rule: SteadyState, warmup: int, chunk: Callable[[int, int], Chunk],
                      mode: str = "twoway") -> SteadyRecord:
    """Runs chunk(number, warmup_calls) until the last rule.window chunk p50s vary at most rule.cv_pct (or, at a
    point of a mode in NOISE_MODES, no more than their own noise: within_noise), or the chunks' calls reach
    rule.max_calls, or (rule.max_s) their time does. The first chunk carries the fixed warm-up. A chunk that
    fails ends the warm-up (the record says why; the trial that follows meets the same problem and reports
    it)."""
    record = SteadyRecord(warmup_calls=warmup, chunk_calls=rule.chunk_calls, window=rule.window)

    def settled(c: Chunk) -> str | None:
        if len(record.chunk_p50s_ns) < rule.window:
            return None
        record.cv_pct = cv_pct(record.chunk_p50s_ns[-rule.window:])
        if record.cv_pct is not None and record.cv_pct <= rule.cv_pct:
            return "steady"
        if mode in NOISE_MODES and within_noise(record.chunk_p50s_ns[-rule.window:], record.chunk_se_ns[-rule.window:]):
            return "within_noise"
        return None

    # The time bound counts from the end of the first chunk: the fixed warm-up it carries (a JVM's 10000 calls,
    # 0.5-2 s while the JIT compiles) must not use it up, or a JVM's first point would get one chunk, unjudged.
    return _chunks(rule, record, chunk, warmup, settled, bound_from_first=True)


def warm_until_jit_quiet(rule: SteadyState, chunk: Callable[[int, int], Chunk]) -> SteadyRecord:
    """Runs chunk(number, 0) until a chunk in which no JIT compilation finished (its jit_ms 0), or the chunks'
    calls reach rule.max_calls, or their time rule.max_s (counted from the start: there is no fixed warm-up to
    spare). A chunk whose jit_ms is unknown ends the chunks (nothing to wait for); a failed one ends them as
    warm_until_steady's does."""
    record = SteadyRecord(warmup_calls=0, chunk_calls=rule.chunk_calls, window=1)

    def settled(c: Chunk) -> str | None:
        record.chunk_jit_ms.append(c.jit_ms)
        return None if c.jit_ms else "jit_quiet"

    return _chunks(rule, record, chunk, 0, settled, bound_from_first=False)


def _chunks(rule: SteadyState, record: SteadyRecord, chunk: Callable[[int, int], Chunk], warmup: int,
            settled: Callable[[Chunk], str | None], bound_from_first: bool) -> SteadyRecord:
    """The chunk loop both warm-ups share: chunk(number, warm-up calls), the first carrying `warmup`, until
    `settled` names why the chunks may end, a chunk fails, or a bound is reached: rule.max_calls, or rule.max_s
    counted from the first chunk's end (bound_from_first) or from the start."""
    started = time.monotonic()
    bound_from = None if bound_from_first else started
    try:
        while record.steady_calls < rule.max_calls:
            if rule.max_s is not None and bound_from is not None and record.chunk_p50s_ns and (
                    time.monotonic() - bound_from >= rule.max_s):
                record.stopped_by = "max_s"
                return record
            c = chunk(len(record.chunk_p50s_ns), warmup if not record.chunk_p50s_ns else 0)
            if not record.took(c):
                return record
            if bound_from is None:
                bound_from = time.monotonic()
            if (why := settled(c)) is not None:
                record.reached, record.stopped_by = True, why
                return record
        record.stopped_by = "max_calls"
        return record
    finally:
        record.seconds = round(time.monotonic() - started, 4)
