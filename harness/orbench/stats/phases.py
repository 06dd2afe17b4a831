"""The host's speed, read off a baseline's slices: does it run in two modes, and what does a middleware add in
each?

On a small cloud VM the speed of everything switches between a fast and a slow mode every fraction of a second
(a c-socket slice's p50 at 1 B reads ~14 us or ~17 us), and a middleware's added latency moves with it (omniORB
added about 1.4 us in the fast mode, 2.1-2.4 us in the slow one). Every baseline slice of the sliced design
(running/slices.py) is a reading of the host's speed taken milliseconds from the middleware's slice it pairs
with. This module splits those readings into modes when they form two groups, so the summary can say per point
what the middleware adds in each mode instead of averaging an unknown mix of them.

The split: Otsu's threshold on the logarithm of the baseline's slice values (slice_values; the cut that maximizes
the variance between the two sides), kept when the two sides are apart by Ashman's D >= 3 (|m1 - m2| sqrt(2) / sqrt(s1^2 +
s2^2); Ashman, Bird and Zepp, "Detecting bimodality in astronomical datasets", take D > 2 for two components
fitted to the data, but the halves of one normal sample split at Otsu's cut already read D ~ 2.7 whatever its
spread: their means lie 0.8 sd either side of the middle, their own sds are 0.6 sd), their medians at least
MIN_MODE_RATIO apart (halves of one mode with a 1% spread lie under 2% apart) and the smaller side holds at least
MIN_MODE_SHARE of the slices. On a 2-vCPU VM the fast mode sat at 13.6-13.9 us (1 B to 1 KB, each within 1%) and
the slow one spread over 16-19 us: D 3.8-6.9, 1.2-1.3x apart.

What a middleware adds differs between the modes (omniORB at 1 B: about 1.5 us fast, 2.2 us slow), and a launch's
share of each mode is chance. Moving each slow-mode pair by the point's step (`slow_step`: the slow pairs' median
difference less the fast ones') gives launch values that read as if every slice ran fast. It is not the headline:
tried on four quick runs (runs 20261129-000210-vm to -000810-vm) it narrowed omniORB's twoway intervals (median
half-width 497 -> 419 ns) but the step itself moved from run to run (-540 to +520 ns at 1 B), and one run's
interval held another's estimate in 44% of the cases against 77% without it. The summary gives each mode's
figures (`by_host_speed`) beside the headline instead.

What does go into the headline is a scale, not a step: each pair's difference times the usual baseline level
over the pair's own baseline slice (`speed_scaled`), nothing fitted. A middleware's added cost is work, which
takes longer when the host is slow, as its baseline's does; the baseline slice taken milliseconds from it says
how much slower. Known answers on a 2-vCPU AMD EPYC VM with a made slow mode like its own (a process streaming
memory on the other vCPU in alternating 0.3 s periods: the baseline's slices 1.19-1.34x slower in 19-37% of
them; six runs each, omniORB, a counted work loop (c-socket-work@6000) and a 2 us clock spin (c-socket-delay)
against c-socket, 1 B to 16 KB): scaled, the runs' sd of omniORB's estimate fell from 47-955 to 17-335 ns and
the work loop's from 79-180 to 42-102 ns; the clock spin, which takes 2 us at any speed, read 1.95-1.99 us
scaled against 1.98-2.00 as measured, so a known answer's delay (a target with known_added_ns) is never
scaled. Sixteen quick runs of that VM summarized both ways: twoway ORB-added half-widths 0.41-0.81 of the
unscaled ones, the runs' sd lower in 15 of 18 rows, cross-run capture 0.78 against 0.80
(harness/campaigns/README.md, "Speed-scaled pairs").

The headline is what the middleware adds with the host at its usual speed (`settled_pairs`): the pairs of a
stretch of slices whose two baseline slices both read it, which needs no split into modes (a slow mode of 8% of
the slices is too small for Otsu's cut to keep, yet one launch caught in it read 2.0 us against 1.5). Leaving the
other pairs out, and a launch that had none, took omniORB's 1 B half-width in two quick-sized runs from 772 to
167 ns and from 496 to 100 ns, and left runs without a slow stretch as they were.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from orbench.results.point import Point
from orbench.results.trial import Trial
from orbench.stats.intervals import median_interval
from orbench.stats.stats import fast_end, read_samples

MIN_SLICES = 20          # fewer baseline slices than this: no split is tried
MIN_MODE_SHARE = 0.1     # the smaller mode must hold at least this share of the slices
MODES_APART = 3.0        # Ashman's D of Otsu's two sides at or above which they are two modes
MIN_MODE_RATIO = 1.10    # and the slow side's median at least this many times the fast side's


@dataclass(frozen=True)
class SpeedModes:
    """Two speed modes of a host, from one baseline point's slice values."""

    threshold_ns: float   # a slice value above it was taken in the slow mode
    fast_p50_ns: float    # the median slice value in each mode
    slow_p50_ns: float
    slow_share: float     # of the slices
    separation: float     # Ashman's D of the two sides (log scale)
    slices: int

    @property
    def slow_over_fast(self) -> float:
        return self.slow_p50_ns / self.fast_p50_ns

    def is_slow(self, p50_ns: float) -> bool:
        return p50_ns > self.threshold_ns


def speed_modes(p50s_ns: Sequence[float]) -> SpeedModes | None:
    """The two modes of a baseline's slice values, or None when they form one group (or are too few to tell)."""
    values = np.sort(np.asarray([v for v in p50s_ns if v > 0], dtype=float))
    n = int(values.size)
    if n < MIN_SLICES:
        return None
    logs = np.log(values)
    least = max(2, math.ceil(MIN_MODE_SHARE * n))
    best, cut = -1.0, 0
    for i in range(least, n - least + 1):
        between = i * (n - i) * (logs[:i].mean() - logs[i:].mean()) ** 2
        if between > best:
            best, cut = between, i
    if cut == 0:
        return None
    low, high = logs[:cut], logs[cut:]
    spread = math.sqrt(low.var(ddof=1) + high.var(ddof=1))
    separation = math.inf if spread == 0 else math.sqrt(2) * (high.mean() - low.mean()) / spread
    if separation < MODES_APART or math.exp(float(np.median(high)) - float(np.median(low))) < MIN_MODE_RATIO:
        return None
    return SpeedModes(threshold_ns=float(math.sqrt(values[cut - 1] * values[cut])),
                      fast_p50_ns=float(np.median(values[:cut])), slow_p50_ns=float(np.median(values[cut:])),
                      slow_share=(n - cut) / n, separation=round(separation, 2), slices=n)


@dataclass(frozen=True)
class ModeAdded:
    """What a middleware adds over its baseline in one speed mode: the median of the slice pairs whose
    baseline slice was taken in that mode, with its sign-test interval over those pairs (within the run: not
    over launches)."""

    mode: str             # fast or slow
    share: float          # of the point's slice pairs
    baseline_p50_ns: float
    estimate: float
    ci95_low: float | None
    ci95_high: float | None
    pairs: int


def added_by_mode(orb: Mapping[tuple, float], base: Mapping[tuple, float], modes: SpeedModes) -> list[ModeAdded]:
    """A middleware's slice-pair differences split by the mode its baseline slice was taken in."""
    keys = sorted(set(orb) & set(base))
    out = []
    for mode, slow in (("fast", False), ("slow", True)):
        mine = [k for k in keys if modes.is_slow(base[k]) == slow]
        if not mine:
            continue
        diffs = [orb[k] - base[k] for k in mine]
        interval = median_interval(diffs)
        out.append(ModeAdded(mode=mode, share=len(mine) / len(keys), baseline_p50_ns=float(np.median([base[k] for k in mine])),
                             estimate=interval.estimate, ci95_low=interval.low, ci95_high=interval.high,
                             pairs=len(mine)))
    return out


def slow_step(by_mode: Sequence[ModeAdded]) -> float | None:
    """How much more the middleware adds in the slow mode than in the fast one: the slow mode's median pair
    difference less the fast mode's (added_by_mode's estimates; None unless both modes have pairs)."""
    found = {m.mode: m.estimate for m in by_mode}
    if "slow" not in found or "fast" not in found:
        return None
    return found["slow"] - found["fast"]


# Fewer baseline slices than this: no usual level to scale to (a median of 8 is one; two modes need MIN_SLICES).
MIN_SCALE_SLICES = 8


@dataclass(frozen=True)
class SpeedScaled:
    """A middleware's slice values moved to the host's usual speed (`speed_scaled`)."""

    values: dict          # key -> the baseline's value plus the pair's difference scaled by usual_ns / baseline
    usual_ns: float       # the baseline's slice value at the usual speed: its fast mode's median, else its median


def speed_scaled(orb: Mapping[tuple, float], base: Mapping[tuple, float]) -> SpeedScaled | None:
    """Each pair's difference as the middleware would have added it with the host at its usual speed: scaled by
    the usual baseline level over the pair's own baseline slice, which was taken milliseconds from it (a
    baseline slice 1.25x its usual level says the host ran 1.25x slow: the difference is divided by 1.25).

    For a cost that is work (a middleware's marshalling, dispatch, system calls), which takes longer when the
    host is slow; not for one that is a clock's time (a known-answer server spinning on the clock for N ns: it
    takes N ns at any speed, and scaling would read it short). The usual level is the fast mode's median slice
    value where the baseline's slices form two modes (speed_modes), else their median: the estimate of a run
    without a slow mode stays as it was. None with fewer than MIN_SCALE_SLICES baseline values."""
    usual = usual_level(list(base.values()))
    if usual is None:
        return None
    scaled = {k: base[k] + (o - base[k]) * usual / base[k] for k, o in orb.items() if base.get(k, 0) > 0}
    return SpeedScaled(values=scaled, usual_ns=usual)


def usual_level(base: Sequence[float]) -> float | None:
    """A baseline's slice value with the host at its usual speed: its fast mode's median where its slices form
    two modes (speed_modes), else their median. None with fewer than MIN_SCALE_SLICES values above zero."""
    values = [v for v in base if v > 0]
    if len(values) < MIN_SCALE_SLICES:
        return None
    modes = speed_modes(values)
    return modes.fast_p50_ns if modes is not None else float(np.median(values))


# A middleware's slices are scaled by its baseline's only where the baseline explains them: the correlation of
# the logs of their paired slice means at least this. In scale runs 20261206-034548-vm and -033302-vm (split-core)
# omniORB against c-socket at 4 threads, where slow phases of the host moved both, read 0.92-0.99 and 0.68-0.95;
# JacORB against java-socket, whose JITs move each on its own, -0.41 to 0.84; at 16-64 threads, where c-socket
# has modes of its own, Ice C++ and omniORB read 0.34-0.99. 0.85 was chosen on those runs to keep JacORB out, not
# fitted; a row under it keeps its unscaled median-slice rates.
MIN_SPEED_CORRELATION = 0.85


def speed_sensitivity(base: np.ndarray, mine: np.ndarray) -> float:
    """How far a middleware's slice values follow its baseline's paired ones: the least-squares slope of
    log(mine) on log(base), within [0, 1]; 0 where the baseline did not move or does not explain the
    middleware's moves (MIN_SPEED_CORRELATION)."""
    log_base, log_mine = np.log(base), np.log(mine)
    spread, own = float(np.var(log_base)), float(np.var(log_mine))
    if log_base.size < 3 or spread <= 0 or own <= 0:
        return 0.0
    covariance = float(np.mean((log_base - log_base.mean()) * (log_mine - log_mine.mean())))
    if covariance / math.sqrt(spread * own) < MIN_SPEED_CORRELATION:
        return 0.0
    return min(1.0, max(0.0, covariance / spread))


# A baseline slice reads the host at its usual speed when its p50 is at most this many times the point's usual
# level (USUAL_QUANTILE of its slice values): the fast mode's slices sat within 4% of each other (13.5-14.1 us at
# 1 B), the slow mode's 1.13-1.26x above them.
USUAL_SPEED_RATIO = MIN_MODE_RATIO
USUAL_QUANTILE = 10
# Fewer of the pairs than this share at the usual speed and the host has none at the point (split-core's wake-ups
# spread a plain C ping-pong's p50 over 43-103 us): every pair counts.
USUAL_MIN_SHARE = 0.5


@dataclass(frozen=True)
class SettledPairs:
    """The slice pairs of a point taken with the host at its usual speed (`settled_pairs`): which, and of how
    many."""

    keys: frozenset
    pairs: int          # all the point's slice pairs
    limit_ns: float     # a baseline slice above it was not at the usual speed


def settled_pairs(orb: Mapping[tuple, float], base: Mapping[tuple, float]) -> SettledPairs | None:
    """The slice pairs (keys (launch, trial, slice)) whose window of slices ran with the host at its usual speed.

    The sliced design runs slices k and k+1 (k even) of a unit's members in one stretch (A B, then B A: four
    slices, a few to tens of milliseconds), so the two baseline slices of that stretch bracket the middleware's
    two (with several middleware on one baseline, the baseline's two sit among theirs). When both read the host's
    usual speed, no switch to the slow mode fell inside the stretch and both pairs are kept; when either was
    slow, both pairs go: a pair whose two slices straddle a switch reads the switch (-3 to +7 us at 1 B, where the
    middleware adds 1.5), and one taken wholly in the slow mode adds what the middleware adds there (about 0.7 us
    more), in a share of each launch that is chance. Decided on the
    baseline's slices alone, so the middleware's own variation never leaves a pair out. None when the point has
    too few baseline slices to have a usual level (MIN_SLICES), or when fewer than USUAL_MIN_SHARE of its pairs
    ran at it."""
    keys = sorted(set(orb) & set(base))
    values = [v for v in base.values() if v > 0]
    if len(values) < MIN_SLICES or not keys:
        return None
    usual = float(np.percentile(values, USUAL_QUANTILE))
    limit = usual * USUAL_SPEED_RATIO

    def usual_speed(key: tuple) -> bool:
        partner = (*key[:-1], key[-1] ^ 1)
        return base[key] <= limit and (partner not in base or base[partner] <= limit)

    kept = frozenset(k for k in keys if usual_speed(k))
    if len(kept) < USUAL_MIN_SHARE * len(keys):
        return None
    return SettledPairs(keys=kept, pairs=len(keys), limit_ns=limit)


# Inside a slice: with other work on the CPUs the slow mode comes and goes every 1-3 ms (the scheduler's turns),
# within one slice of a few hundred calls (a c-socket slice at 1 B read 25-call blocks at 5 us, then 10.5-14 us for
# 75-300 calls, then 5 us again), so no slice pair is wholly at the usual speed and settled_pairs has nothing to
# keep. The same rule then applies to blocks of BLOCK_CALLS consecutive calls: a block whose median is more than BLOCK_RATIO times the side's usual
# block level (its USUAL_QUANTILE) was not at the usual speed, and a slice's value is the median of its calls in
# the blocks that were. 1.5, not USUAL_SPEED_RATIO: a 25-call block's median varies more than a slice's, and
# the middleware's own slower stretches (omniORB's 64 KB blocks spread 1.25x in a quiet run) must stay in.
BLOCK_CALLS = 25
BLOCK_RATIO = 1.5
MIN_BLOCKS_KEPT = 2      # a slice with fewer blocks at the usual speed has no value
# A usual block level from fewer blocks than this (four slices of 500 calls) is not read: the stopping rule reads
# one launch's slices so far, the summary a point's over every launch.
MIN_BLOCKS = 80
# The host slows both sides of a pair alike, so each keeps about the same share of its blocks; a middleware that
# keeps this much less than its baseline slows itself, and leaving its slow blocks out would hide its own cost
# (beside another run on the CPUs the two sides' shares differed by 0.01-0.09 at 1 B and 1 KB, JacORB's at 64 KB
# by 0.18).
MAX_KEPT_GAP = 0.15


@dataclass(frozen=True)
class UsualBlocks:
    """One side's slices at a point valued at the host's usual speed, block by block (`usual_blocks`)."""

    values: dict          # (launch, trial, slice) -> the fast end of its calls in blocks at the usual speed
    kept_share: float     # of all the side's blocks
    limit_ns: float       # a block median above it was not at the usual speed


def usual_blocks(slices: Mapping[tuple, np.ndarray]) -> UsualBlocks | None:
    """The slices of one side of a point (keys (launch, trial, slice), each its calls in the order they ran),
    each valued by the fast end of its calls in blocks of BLOCK_CALLS taken at the usual speed; a slice with fewer
    than MIN_BLOCKS_KEPT of them has no value. None with fewer than MIN_BLOCKS blocks in all."""
    cut = {k: x[:x.size // BLOCK_CALLS * BLOCK_CALLS].reshape(-1, BLOCK_CALLS) for k, x in slices.items()}
    medians = {k: np.median(blocks, axis=1) for k, blocks in cut.items() if blocks.size}
    every = np.concatenate(list(medians.values())) if medians else np.array([])
    if every.size < MIN_BLOCKS:
        return None
    limit = float(np.percentile(every, USUAL_QUANTILE)) * BLOCK_RATIO
    values = {}
    for k, meds in medians.items():
        kept = meds <= limit
        if int(kept.sum()) >= MIN_BLOCKS_KEPT:
            values[k] = fast_end(cut[k][kept])
    return UsualBlocks(values=values, kept_share=float(np.mean(every <= limit)), limit_ns=limit)


def reads_blocks(point: Point) -> bool:
    """Whether a point's slices are read block by block: a round trip (a oneway flood's p50 reads how often a
    write found room), at rest (under load the slow blocks are the queue's) and on one CPU (at split-core a slow
    stretch is the idle CPU's wake-up, part of what the placement measures: read by blocks, split-core estimates
    moved by a median 14% in a middleware run, 20261202-142452-vm; same-core ones by 0)."""
    return point.mode != "oneway" and point.is_base_load and point.on_one_cpu


def blocks_agree(orb: UsualBlocks | None, base: UsualBlocks | None) -> bool:
    """Whether a middleware's and its baseline's blocks can both be read at the usual speed: each side has them,
    some slice has a value on both sides, and the middleware kept no less than MAX_KEPT_GAP below its baseline's
    share. The one rule of the summary (summary/pairing.by_blocks) and the stopping rule."""
    return (orb is not None and base is not None and bool(set(orb.values) & set(base.values))
            and orb.kept_share >= base.kept_share - MAX_KEPT_GAP)


def slice_samples(trials: list[Trial], run_dir: Path) -> dict[tuple[int, int, int], np.ndarray]:
    """Each ok sliced trial's calls split into its slices, by (launch, trial, slice): the slices were written one
    after the other (running/slices.py), each as long as the trial's slice_sizes say. A trial whose pieces do not
    fill its file or whose medians are not its recorded slice p50s (an older run's threads point, whose even
    split upgrade.py could only assume) gives none."""
    out: dict[tuple[int, int, int], np.ndarray] = {}
    for t in trials:
        if not (t.ok and t.slice_p50s_ns and t.slice_sizes and t.samples_file):
            continue
        calls = read_samples(run_dir / str(t.samples_file))
        if sum(t.slice_sizes) != calls.size or len(t.slice_sizes) != len(t.slice_p50s_ns):
            continue
        pieces = np.split(calls, np.cumsum(t.slice_sizes)[:-1])
        if all(p.size and abs(float(np.median(p)) - float(v)) <= 0.5 for p, v in zip(pieces, t.slice_p50s_ns)):
            out.update({(t.launch, t.trial, k): p for k, p in enumerate(pieces)})
    return out


def one_cpu_calls(trials: list[Trial], run_dir: Path | None) -> dict[tuple[int, int, int], np.ndarray]:
    """The calls of the trials whose slices are valued at their fast end and read by blocks (reads_blocks), by
    slice as slice_samples gives them; none without a run directory. One read serves both uses."""
    one_cpu = [t for t in trials if reads_blocks(t.point)]
    return slice_samples(one_cpu, run_dir) if run_dir is not None and one_cpu else {}


def slice_values(trials: list[Trial],
                 calls: Mapping[tuple, np.ndarray] | None = None) -> dict[tuple[int, int, int], float]:
    """Each ok sliced trial's slices valued as the pairing pairs them, by (launch, trial, slice): a round trip at
    rest on one CPU (reads_blocks) by the fast end of its calls (stats.fast_end; `calls`: the trials' slices as
    slice_samples reads them, once, since its caller reads them by blocks too), any other by its recorded p50;
    without its calls, the recorded p50 too.

    Why the fast end there: with both workers on one CPU the scheduler takes one of two paths per call, and which
    depends on how soon the server answers. A socket server that answers at once takes the slower one in a share
    of calls that moves from slice to slice; a server that works a microsecond or more, as every middleware does,
    takes the faster one (on an AMD EPYC guest: c-socket 11.0 us in its fast calls, 11.6 us at its p50; the
    known-answer server spinning N ns at 11.0 us + N). Against the baseline's p50 or middle mean, a known 2 us
    read 1.5 us; at the fast end, N = 250 ns to 4 us read 0.995 N + 9 ns. Elsewhere the slow calls are what the
    point measures (a oneway's writes that waited, a queue under load, the other CPU's wake-up at split-core)."""
    out = {(t.launch, t.trial, k): float(v) for t in trials if t.ok and t.slice_p50s_ns
           for k, v in enumerate(t.slice_p50s_ns)}
    one_cpu = {(t.launch, t.trial) for t in trials if reads_blocks(t.point)}
    out.update({k: fast_end(c) for k, c in (calls or {}).items() if k[:2] in one_cpu and k in out})
    return out
