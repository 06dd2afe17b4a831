"""The pairing: each ORB point against its baseline in the same point group (same host pair, so the same link;
same placement, mode, payload, load and option set; at a sweep step, the baseline's paired step at the ORB's
offered rate, running/sweep.py); a point of another invocation shape against the baseline's `in` call that
carries the same bytes (results/shapes.py, baseline_shape). ORB-added latency from the trials both ran, paired
by (launch, trial); the known answer where the target's added latency is known; the CPU the ORB adds."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from orbench.anatomy.summary import orb_added_cpu
from orbench.results.codec import from_json
from orbench.results.point import Point
from orbench.results.shapes import baseline_shape
from orbench.results.trial import Trial
from orbench.results.units import fmt_ns
from orbench.stats import stats
from orbench.stats.intervals import paired_differences_interval
from orbench.stats.launches import over_launches, paired_by_launch, sliced_or_trial_pairs
from orbench.stats.phases import (
    BLOCK_CALLS,
    UsualBlocks,
    added_by_mode,
    blocks_agree,
    reads_blocks,
    settled_pairs,
    slow_step,
    speed_modes,
    speed_scaled,
)
from orbench.summary.model import HostSpeedSplit, KnownAnswer, OrbAdded, OrbAddedCpu, PointSummary, UsualBlocksRead
from orbench.summary.point_summary import SliceKey, TrialKey
from orbench.targets.descriptor import MEASURED_AGAINST_BASELINE

# A oneway that returns once another thread has the request measures a hand-over, the baseline's a socket write.
ONEWAY_QUEUED = ("not comparable: its oneway call returns once the request is queued for another thread to write, "
                 "the baseline's once its own write returns; compare the receivers' throughput (PROTOCOL.md, "
                 "\"Oneway, like for like\")")
# What ci_method adds when the pairs are slices of sliced trials (running/slices.py), not whole trials.
PAIRED_SLICES = "; pairs: slices of alternating sliced trials"
# ... and of those, the ones taken with the host at its usual speed (stats/phases.settled_pairs).
USUAL_SPEED_PAIRS = ", with the host at its usual speed"
# ... or each slice valued by its calls in blocks at the usual speed (stats/phases.usual_blocks). Not both: the
# block values are the usual speed's already, and leaving out stretches of them again mostly loses pairs (omniORB
# 1 B in three quick runs beside another run on the same CPUs, slow in 1-3 ms bursts: half-widths 264, 591 and
# 367 ns with both, 101, 692 and 65 ns with the blocks alone).
USUAL_SPEED_BLOCKS = f", with the host at its usual speed (each slice's calls in blocks of {BLOCK_CALLS} that were)"
# ... and each pair's difference scaled to the host's usual speed by its baseline slice (stats/phases.speed_scaled):
# a middleware's added cost is work, which takes longer when the host is slow. Not for a known-answer server's
# clock spin (a target with known_added_ns, Target.added_scales_with_host): N ns at any speed.
SPEED_SCALED = "; each pair's difference scaled to the host's usual speed by its baseline slice"
# A known-answer point is recovered when |X - N| <= max(the interval's half-width, this share of N).
KNOWN_ANSWER_TOLERANCE = 0.05


def pair_with_baselines(points: dict[Point, PointSummary], trial_p50: dict[Point, dict[TrialKey, float]],
                        trials: dict[Point, list[Trial]], targets_info: dict[str, Any],
                        slices: dict[Point, dict[SliceKey, float]] | None = None,
                        blocks: dict[Point, UsualBlocks] | None = None) -> dict[Point, PointSummary]:
    """The points again, each ORB (or known-answer) point with its ORB-added latency, known answer and added CPU.
    `slices`: the sliced trials' slice values per point (stats/phases.slice_values), which pair slice by slice;
    `blocks`: per round-trip point, its slices valued block by block at the usual speed (stats/phases), which
    replace the slice p50s where the middleware's and its baseline's agree."""
    slices, blocks = slices or {}, blocks or {}
    out = dict(points)
    for point, summary in points.items():
        info = targets_info.get(point.target, {})
        base_name = info.get("baseline")
        if summary.kind not in MEASURED_AGAINST_BASELINE or not base_name:
            continue
        if point.mode == "oneway" and info.get("oneway_call") == "queued":
            out[point] = summary.replace(orb_added_latency_ns=OrbAdded(baseline=base_name, estimate=None,
                                                                       why_missing=ONEWAY_QUEUED))
            continue
        matched = baseline_shape(point.shape, point.mode)
        if matched is None:
            out[point] = summary.replace(orb_added_latency_ns=OrbAdded(
                baseline=base_name, estimate=None,
                why_missing=f"shape {point.shape} crosses no socket: no baseline call is like it"))
            continue
        base = point.group.replace(shape=matched[0], mode=matched[1]).with_target(base_name)
        if point.is_sweep_step:
            # The baseline's own step offers a share of its own capacity, not the ORB's rate: only its paired step
            # at this ORB's rate (running/sweep.py) gives the ORB's added latency there.
            base = base.replace(load_of=point.target)
            if base not in points:
                continue
        # A round trip reads the host's speed; a oneway flood's p50 flips with how often a write found room.
        reads_speed = point.mode != "oneway"
        # Its added cost is work unless it is a known answer's clock spin (Target.added_scales_with_host); scaled
        # where a slow baseline slice is the host's speed: a round trip at rest on one CPU, as blocks are read (at
        # split-core it is the idle CPU's wake-ups, under load the queue's, neither slowing the middleware's work).
        scales = reads_blocks(point) and info.get("known_added_ns") is None
        added = None
        if point in trial_p50 and base in trial_p50:
            read = by_blocks(blocks.get(point), blocks.get(base), slices.get(point, {})) if reads_speed else None
            orb_values, base_values = ((slices.get(point, {}), slices.get(base, {})) if read is None
                                       else (blocks[point].values, blocks[base].values))
            scale = speed_scaled(orb_values, base_values) if scales else None
            if scale is not None:
                orb_values = scale.values
            if read is None:
                added = paired_difference(trial_p50[point], trial_p50[base], orb_values, base_values,
                                          usual_speed=reads_speed)
            else:
                launches = read[0]
                added = paired_difference(
                    {k: v for k, v in trial_p50[point].items() if k[0] in launches},
                    {k: v for k, v in trial_p50[base].items() if k[0] in launches},
                    orb_values, base_values)
                if added is not None:
                    added = {**added, "ci_method": added["ci_method"] + USUAL_SPEED_BLOCKS,
                             "usual_blocks": dataclasses.asdict(read[1])}
            if added is not None and scale is not None and PAIRED_SLICES in added["ci_method"]:
                added = {**added, "ci_method": added["ci_method"] + SPEED_SCALED,
                         "usual_speed_ns": round(scale.usual_ns, 1)}
        changes: dict[str, Any] = {}
        if added is None:
            changes["orb_added_latency_ns"] = OrbAdded(baseline=base_name, estimate=None,
                                                       why_missing="no paired trial of the ORB and its baseline")
        else:
            # Its p50 (the mean of all its trials) minus the baseline's then differs from the estimate.
            why = (f"{added['unpaired']} trial(s) without a partner are left out of the paired estimate"
                   if added["unpaired"] else None)
            split = host_speed_split(slices.get(point, {}), slices.get(base, {})) if reads_speed else None
            changes["orb_added_latency_ns"] = from_json(OrbAdded, {"baseline": base_name, **added,
                                                                   "why_not_p50_difference": why})
            if split is not None:
                changes["orb_added_latency_ns"] = dataclasses.replace(changes["orb_added_latency_ns"],
                                                                      by_host_speed=split)
            known = info.get("known_added_ns")
            # The known delay is what one call adds; under load the wait in the server's queue adds to it.
            if known is not None and point.is_base_load:
                changes["known_answer"] = known_answer(known, changes["orb_added_latency_ns"], summary)
        added_cpu = orb_added_cpu(trials.get(point, []), trials.get(base, []))
        if added_cpu is not None:
            changes["orb_added_cpu_us"] = from_json(OrbAddedCpu, {"baseline": base_name, **added_cpu})
        out[point] = summary.replace(**changes)
    return out


def by_blocks(orb: UsualBlocks | None, base: UsualBlocks | None,
              orb_slices: dict[SliceKey, float]) -> tuple[set[int], UsualBlocksRead] | None:
    """Whether a round-trip point pairs its slices' block values (stats/phases.usual_blocks) rather than their
    p50s: both sides have them, they agree (blocks_agree), and they pair in two or more launches (or in every
    launch the point sliced). With the launches that pair, so a launch whose every slice was slow is left out
    rather than read from its whole trials."""
    if not blocks_agree(orb, base):
        return None
    assert orb is not None and base is not None
    launches = {k[0] for k in set(orb.values) & set(base.values)}
    if len(launches) < 2 and launches != {k[0] for k in orb_slices}:
        return None
    return launches, UsualBlocksRead(block_calls=BLOCK_CALLS, orb_kept=round(orb.kept_share, 4),
                                     base_kept=round(base.kept_share, 4), orb_limit_ns=round(orb.limit_ns, 1),
                                     base_limit_ns=round(base.limit_ns, 1))


def paired_difference(orb: dict[TrialKey, float], base: dict[TrialKey, float],
                      orb_slices: dict[SliceKey, float] | None = None,
                      base_slices: dict[SliceKey, float] | None = None,
                      usual_speed: bool = False) -> dict[str, Any] | None:
    """One point's p50s less another's at the same group (an ORB's less its baseline's: ORB-added latency), from
    the paired slices of sliced trials (running/slices.py) or, for sequential trials, the paired trials: over
    launches when the pairs span two or more (the mean of each launch's median paired difference, t over
    launches), else within the one launch (stats.py: the median of paired differences with its sign-test
    interval, or below 6 pairs the mean with t, which ci_method says). `usual_speed`: of the slice pairs, only
    those taken with the host at its usual speed (stats/phases.settled_pairs); a launch with none of them is
    left out while two or more launches have some."""
    orb_slices, base_slices = orb_slices or {}, base_slices or {}
    settled = settled_pairs(orb_slices, base_slices) if usual_speed else None
    dropped: list[int] = []
    if settled is not None:
        kept = {launch: [orb_slices[k] - base_slices[k] for k in sorted(settled.keys) if k[0] == launch]
                for launch in sorted({k[0] for k in settled.keys})}
        # The filter stands while an interval over launches is left (or the run had one launch to begin with).
        if len(kept) >= 2 or len(kept) == len({k[0] for k in orb_slices}):
            dropped = sorted({k[0] for k in set(orb_slices) & set(base_slices)} - set(kept))
            orb_slices = {k: v for k, v in orb_slices.items() if k in settled.keys}
            base_slices = {k: v for k, v in base_slices.items() if k in settled.keys}
        else:
            settled = None
    per_launch = sliced_or_trial_pairs(orb_slices, base_slices, orb, base)
    for launch in dropped:
        per_launch.pop(launch, None)
    sliced = bool(paired_by_launch(orb_slices, base_slices))
    usual = {} if settled is None else {
        "usual_speed": {"pairs": len(settled.keys), "of_pairs": settled.pairs, "limit_ns": round(settled.limit_ns, 1),
                        "launches_left_out": dropped}}
    method = (PAIRED_SLICES if sliced else "") + ("" if settled is None else USUAL_SPEED_PAIRS)
    if len(per_launch) < 2:
        if not sliced:
            return stats.orb_added_latency(orb, base)
        diffs = next(iter(per_launch.values()), [])
        interval = paired_differences_interval(diffs)
        if interval is None:
            return None
        return {"estimate": interval.estimate, "ci95_low": interval.low, "ci95_high": interval.high,
                "ci_method": interval.method + method, "pairs": len(diffs), "unpaired": 0,
                "per_pair": diffs, "mean": float(np.mean(diffs)), **usual}
    lv = over_launches(per_launch)
    if lv is None:
        return None
    diffs = [d for k in sorted(per_launch) for d in per_launch[k]]
    pairs = len(diffs)
    trial_pairs = len(set(orb) & set(base))
    return {"estimate": lv["estimate"], "ci95_low": lv["ci95_low"], "ci95_high": lv["ci95_high"],
            "ci_method": lv["ci_method"] + method, "pairs": pairs,
            "unpaired": len(orb) + len(base) - 2 * trial_pairs,
            "per_pair": diffs, "mean": float(np.mean(diffs)), "n_launches": lv["n_launches"],
            "launches": lv["launches"], "variance": lv["variance"], "disagreement": lv["disagreement"],
            "se_ns": lv["se"], "se_df": lv["df"] if lv["se"] is not None else None, **usual}


def host_speed_split(orb: dict[SliceKey, float], base: dict[SliceKey, float]) -> HostSpeedSplit | None:
    """What the middleware adds in each of the host's speed modes, when its baseline's slices at the point fall
    into two (stats/phases.py); None otherwise."""
    modes = speed_modes(list(base.values())) if orb else None
    if modes is None:
        return None
    by_mode = added_by_mode(orb, base, modes)
    step = slow_step(by_mode)
    if len(by_mode) < 2 or step is None:
        return None
    return HostSpeedSplit(threshold_ns=round(modes.threshold_ns, 1), slow_over_fast=round(modes.slow_over_fast, 4),
                          separation=modes.separation, modes=tuple(by_mode), step_ns=round(step, 1))


def known_answer(known_ns: int, added: OrbAdded, point: PointSummary) -> KnownAnswer:
    """A known-answer point: known N against the recovered ORB-added latency X and its interval. The goal: the
    interval covers N, and |X - N| <= max(half-width, 5% of N). The median's interval is not symmetric about
    X: its half-width on N's side (from X to the end towards N) is the one compared."""
    x, lo, hi = added.estimate, added.ci95_low, added.ci95_high
    assert x is not None
    half = None if lo is None or hi is None else (x - lo if known_ns < x else hi - x)
    text = fmt_ns(x) + ("" if lo is None or hi is None else f" [{fmt_ns(lo)}, {fmt_ns(hi)}]")
    return KnownAnswer(
        known_ns=known_ns, recovered_ns=x, ci95_low=lo, ci95_high=hi, text=text,
        covered=lo is not None and hi is not None and lo <= known_ns <= hi, error_ns=x - known_ns,
        within_tolerance=half is not None and abs(x - known_ns) <= max(half, KNOWN_ANSWER_TOLERANCE * known_ns),
        trials=added.pairs or 0, mean_p50_ns=None if point.p50_ci95_ns is None else point.p50_ci95_ns.estimate)
