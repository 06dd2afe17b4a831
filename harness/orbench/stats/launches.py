"""Statistics over process launches: what a point's estimate and interval are when a campaign runs its workers
in several launches (campaign key `launches`).

Trials inside one launch share one process (its JIT history, heap layout, page placement), so they are not
independent replicates of the middleware: an interval over them says how far the next trials of *that process*
would land, not the next run's. Kalibera and Jones ("Rigorous Benchmarking in Reasonable Time") treat the
launch as a level of repetition of its own and put repetitions where the variance is; Georges, Buytaert and
Eeckhout ("Statistically Rigorous Java Performance Evaluation") build the interval over VM invocations.

Here each launch gives one value, the **median** of its per-trial values (robust to the trials a machine's mood
switch caught), and the point's estimate is the **mean of the launch medians** with a Student-t interval on L-1
degrees of freedom: with 3-5 launches a bootstrap over launches covers far less than 95% (it cannot see beyond
the few values it has), t does whenever launch values are roughly normal. The variance is split the way Kalibera
and Jones do for two levels: the launch medians' observed variance is what the trials within each launch would
give on their own (pi/2 x sigma_within^2 / n for a median) plus a between-launch component.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from orbench.results.units import fmt_ns
from orbench.stats.intervals import CONFIDENCE, MAD_TO_SD
from orbench.stats.tdist import quantile

LAUNCH_METHOD = "mean over launches of each launch's median, Student t over launches"
# From six launches on, the fifth at each end is trimmed (trimmed()): one launch whose few pairs a switch of the
# host's speed caught (omniORB at 1 B: 2.8 us among six launches at 1.38-1.61) no longer sets the interval alone.
# Not at five: three values and 2 degrees of freedom would be left (t 4.30 against 2.78 untrimmed); there the
# known answer's sliced interval under made phases (test_slices) read 87 ns against the sequential design's 67 in
# 2 of 6 runs, where from six on it was at most half of it in 6 of 6.
TRIMMED_LAUNCH_METHOD = ("20% trimmed mean over launches of each launch's median, Yuen's t over launches "
                         "(Tukey-McLaughlin standard error)")
TRIM = 0.2
TRIM_FROM = 6
# A latency, a throughput or a capacity cannot be negative and is skewed to the right: its interval is made on the
# log scale, where it is a ratio, and taken back (a t interval on the values themselves read [-19.2, 32.1] ms
# for a loaded p50 of three launches at 0.4, 1.2 and 17.8 ms).
POSITIVE_LAUNCH_METHOD = "geometric mean over launches of each launch's median, Student t over launches on the log scale"
POSITIVE_TRIMMED_LAUNCH_METHOD = ("20% trimmed geometric mean over launches of each launch's median, Yuen's t over "
                                  "launches on the log scale")
# A median's variance over a mean's for normal data (large n): its standard error is sqrt(pi/2) sigma / sqrt(n).
MEDIAN_VARIANCE_FACTOR = math.pi / 2
# Launches split into two groups whose gap is this many times wider than either group's own spread (and than
# what the trials within a launch scatter a launch's value by) disagree in kind, not in degree.
MIXTURE_GAP_RATIO = 3.0
# ... and wider than one normal spread of launch values would leave in 95 draws in 100. Few values often leave one
# gap far wider than the rest: of 10^6 draws of n normal values, the largest gap over the wider group's range was
# over 3 in 46% at n = 3, 18% at 4 and 6.5% at 5, so with slices (a launch's value exact to a few ns) a third of a
# run's points read "launches disagree" from ordinary launch-to-launch spread. The ratio's 95th percentile by n,
# from those draws (tests/test_launches.py checks it by simulation); from 6 launches on it is under 3 (2.29 at 6).
NULL_GAP_RATIO_95 = {3: 32.4, 4: 6.34, 5: 3.33}


def mixture_gap_ratio(n: int) -> float:
    """How many times either group's spread the widest gap of n launch values must be to call them two groups."""
    return max(MIXTURE_GAP_RATIO, NULL_GAP_RATIO_95.get(n, 0.0))


@dataclass(frozen=True)
class LaunchValue:
    launch: int
    estimate: float   # the median of the launch's values
    n: int            # how many values (trials, or paired trials)

    def as_dict(self) -> dict:
        return {"launch": self.launch, "estimate": self.estimate, "n": self.n}


@dataclass(frozen=True)
class Trimmed:
    """A trimmed mean with its standard error and degrees of freedom (Yuen, "The two-sample trimmed t for unequal
    population variances", 1974; Tukey and McLaughlin): g values cut at each end, the standard error from the
    winsorized variance. With g = 0 it is the mean with Student's t."""

    mean: float
    se: float | None   # None below 2 values
    df: int
    g: int
    n: int


def trimmed(values: Sequence[float], trim: float = TRIM) -> Trimmed:
    """The `trim` trimmed mean of the values (g = floor(trim n) cut at each end; none below TRIM_FROM values)."""
    x = np.sort(np.asarray(values, dtype=float))
    n = int(x.size)
    if n == 0:
        raise ValueError("no values")
    g = int(math.floor(trim * n)) if n >= TRIM_FROM else 0
    h = n - 2 * g
    mean = float(x[g:n - g].mean())
    if n < 2:
        return Trimmed(mean, None, 0, g, n)
    w = x.copy()
    if g:
        w[:g], w[n - g:] = x[g], x[n - g - 1]
    d = (n - 1) * float(w.var(ddof=1)) / (h * (h - 1)) if h > 1 else 0.0
    return Trimmed(mean, math.sqrt(d), h - 1, g, n)


def launch_values(per_launch: Mapping[int, Sequence[float]]) -> list[LaunchValue]:
    return [LaunchValue(k, float(np.median(v)), len(v)) for k, v in sorted(per_launch.items()) if len(v)]


def _within_sd(per_launch: Mapping[int, Sequence[float]]) -> float | None:
    """Trial-to-trial spread inside a launch, pooled over launches: robust (1.4826 MAD) per launch, as the
    medians are, pooled as the root mean square weighted by the values each launch has."""
    parts = [(len(v), MAD_TO_SD * float(np.median(np.abs(np.asarray(v) - np.median(v))))) for v in
             per_launch.values() if len(v) >= 3]
    if not parts:
        return None
    weight = sum(n for n, _ in parts)
    return math.sqrt(sum(n * sd * sd for n, sd in parts) / weight)


def variance_split(per_launch: Mapping[int, Sequence[float]]) -> dict | None:
    """Between-launch and within-launch parts of the launch values' variance (None below 2 launches)."""
    values = launch_values(per_launch)
    if len(values) < 2:
        return None
    observed = float(np.var([v.estimate for v in values], ddof=1))
    within = _within_sd(per_launch)
    mean_n = float(np.mean([v.n for v in values]))
    from_trials = None if within is None else MEDIAN_VARIANCE_FACTOR * within * within / mean_n
    between = None if from_trials is None else max(0.0, observed - from_trials)
    share = None if between is None or observed <= 0 else min(1.0, between / observed)
    return {
        "launch_values_sd_ns": math.sqrt(observed),
        "within_launch_sd_ns": within,
        "between_launch_sd_ns": None if between is None else math.sqrt(between),
        # Of the launch values' variance, the share the launches add beyond what their trials would scatter.
        "between_launch_share": share,
        "dominant": None if share is None else ("launch" if share >= 0.5 else "trial"),
        "trials_per_launch": mean_n,
    }


def disagreement(per_launch: Mapping[int, Sequence[float]]) -> dict | None:
    """Launches that fall into two groups far apart (JacORB's large oneways: about 0 or about 3.5 us, per JVM
    launch): which, and how many in each, so a reader is not handed one interval around a mixture. Far apart:
    beyond what one normal spread of that many launch values would leave (mixture_gap_ratio)."""
    values = sorted(launch_values(per_launch), key=lambda v: v.estimate)
    if len(values) < 3:
        return None
    est = [v.estimate for v in values]
    gaps = [b - a for a, b in zip(est, est[1:])]
    i = int(np.argmax(gaps))
    low, high = est[: i + 1], est[i + 1:]
    spread = max(max(low) - min(low), max(high) - min(high))
    within = _within_sd(per_launch) or 0.0
    se = math.sqrt(MEDIAN_VARIANCE_FACTOR / float(np.mean([v.n for v in values]))) * within
    gap = gaps[i]
    if gap <= mixture_gap_ratio(len(values)) * max(spread, se) or gap <= 0:
        return None
    lo_at, hi_at = float(np.median(low)), float(np.median(high))
    text = (f"launches disagree: {len(low)} of {len(values)} near {_ns(lo_at)}, {len(high)} near {_ns(hi_at)}")
    return {"text": text, "low_launches": [v.launch for v in values[: i + 1]],
            "high_launches": [v.launch for v in values[i + 1:]], "low_ns": lo_at, "high_ns": hi_at}


def _ns(x: float) -> str:
    return ("-" + fmt_ns(-x)) if x < 0 else fmt_ns(x)


def over_launches(per_launch: Mapping[int, Sequence[float]], confidence: float = CONFIDENCE,
                  positive: bool = False) -> dict | None:
    """The launch-level estimate: mean of launch medians, t interval over launches (none from one launch), from
    six launches on their 20% trimmed mean with Yuen's interval (trimmed()), each launch's value, the variance
    split and any disagreement in kind. None without values. `positive`: a quantity that cannot be negative (a
    latency, a throughput): the geometric mean and the t interval on the log scale, so the interval stays above
    zero (POSITIVE_LAUNCH_METHOD); values that are not all above zero fall back to the mean."""
    values = launch_values(per_launch)
    if not values:
        return None
    x = np.asarray([v.estimate for v in values], dtype=float)
    logged = positive and bool((x > 0).all())
    if logged:
        x = np.log(x)
    t = trimmed(x)
    mean = t.mean
    low = high = None
    if t.se is not None:
        half = quantile(0.5 + confidence / 2.0, t.df) * t.se
        low, high = mean - half, mean + half
    if logged:
        mean, low, high = math.exp(mean), None if low is None else math.exp(low), None if high is None else math.exp(high)
    method = ((POSITIVE_TRIMMED_LAUNCH_METHOD if t.g else POSITIVE_LAUNCH_METHOD) if logged
              else (TRIMMED_LAUNCH_METHOD if t.g else LAUNCH_METHOD))
    # The standard error on the estimate's own scale (none on the log scale), for the run-to-run part of an
    # interval (summary/run_to_run.py).
    se = None if logged or t.se is None else float(t.se)
    return {"estimate": mean, "ci95_low": low, "ci95_high": high, "se": se, "df": t.df, "ci_method": method,
            "n_launches": int(x.size), "launches": [v.as_dict() for v in values],
            "variance": variance_split(per_launch), "disagreement": disagreement(per_launch)}


def by_launch(values: Mapping[tuple[int, ...], float]) -> dict[int, list[float]]:
    """{(launch, trial[, slice]): value} as {launch: [values in trial (and slice) order]}."""
    out: dict[int, list[float]] = {}
    for key, v in sorted(values.items()):
        out.setdefault(key[0], []).append(v)
    return out


def paired_by_launch(a: Mapping[tuple[int, ...], float], b: Mapping[tuple[int, ...], float]) -> dict[int, list[float]]:
    """a - b for every (launch, trial[, slice]) both have, grouped by launch: the paired differences of each
    launch."""
    return by_launch({k: a[k] - b[k] for k in sorted(set(a) & set(b))})


def sliced_or_trial_pairs(a_slices: Mapping[tuple[int, int, int], float], b_slices: Mapping[tuple[int, int, int], float],
                          a_trials: Mapping[tuple[int, int], float],
                          b_trials: Mapping[tuple[int, int], float]) -> dict[int, list[float]]:
    """Each launch's paired differences a - b: its slice pairs (slice k of a trial against slice k of the same
    trial of the other side, milliseconds apart) where it has any, else its trial pairs (the sequential
    design, or a run from before slices). A launch's few sequential trials (those that read the anatomy) are
    left out where it has slice pairs: a pair of whole trials straddles a change of the host's speed far more
    often than a slice pair."""
    slices = paired_by_launch(a_slices, b_slices)
    trials = paired_by_launch(a_trials, b_trials)
    return {launch: slices.get(launch) or trials[launch] for launch in sorted(set(slices) | set(trials))
            if slices.get(launch) or trials.get(launch)}
