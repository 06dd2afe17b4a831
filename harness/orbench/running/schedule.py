"""The order of a campaign's trials: which workers are live, which point group runs next, which target next.

A block is what one set of live workers serves: one host pair, one placement, one option set (a server's
options are command-line arguments, so each set gets workers of its own). Within a block the point groups run
one after the other, and within a group the trials run in rounds: one trial of every target per round (A B C
A B C ..., each round in an order of its own, round_order), so machine drift hits every target alike and trial k
of an ORB pairs with trial k of its baseline.
The stopping rule (stopping.py) decides after each round whether the group needs another.

The whole schedule runs once per process launch (campaign key `launches`): every block's workers start afresh,
and each launch draws its own order of point groups (launch_order) and of targets in each round from a seed of
its own (launch_seed), so what one process launch does to a point (its JIT history, heap, page placement) varies
from launch to launch and the interval over launches covers it.

Host pairs are interleaved the same way: a step is the blocks of every pair at one placement and option set,
their workers live at once, and each round of a point group runs on every pair in turn (pair 1: its round,
pair 2: its round, ...), so drift over the campaign hits every pair alike too. With the campaign's `concurrent_pairs`, the
pairs of a step that share no host run their rounds at the same time, in waves (disjoint_waves).
"""

from __future__ import annotations

import hashlib
import random
import secrets
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from orbench.campaign.spec import Campaign
from orbench.hosts.ssh import HostPair
from orbench.results.point import Point, PointGroup
from orbench.targets.options import option_label

T = TypeVar("T")


@dataclass(frozen=True)
class Block:
    """The point groups one set of live workers serves, in run order."""

    pair: HostPair
    placement: str
    option_set: dict[str, Any]
    groups: tuple[PointGroup, ...]
    threading: str = "default"   # the server's threading setting and objects: server arguments, as options are
    objects: int = 1

    @property
    def options(self) -> str:
        return option_label(self.option_set)

    @property
    def label(self) -> str:
        """"same-core", "alpha--beta same-core tcp_nodelay=false", "same-core pool-4 100 objects": the key of its
        workers in the manifest."""
        return self.groups[0].label_of("host_pair", "placement", "options", "threading", "objects")


def blocks(campaign: Campaign, pairs: list[HostPair]) -> list[Block]:
    """Per host pair, per placement, per option set, per server setting (threading, objects): each block's
    groups (campaign.point_groups' order)."""
    out = []
    for pair in pairs:
        for placement in campaign.settings.placements:
            for option_set in campaign.option_sets():
                groups = [g for g in campaign.point_groups(pair.label, option_label(option_set))
                          if g.placement == placement]
                for threading, objects in campaign.load_plan.server_settings():
                    mine = tuple(g for g in groups if g.server_setting == (threading, objects))
                    if mine:
                        out.append(Block(pair, placement, option_set, mine, threading, objects))
    return out


def steps(campaign: Campaign, pairs: list[HostPair]) -> list[tuple[Block, ...]]:
    """The blocks that run together, one per host pair, per placement, option set and server setting (in that
    order). The blocks of a step have the same point groups but for their host pair, in the same order."""
    out: dict[tuple[str, str, str, int], list[Block]] = {}
    for b in blocks(campaign, pairs):
        out.setdefault((b.placement, b.options, b.threading, b.objects), []).append(b)
    return [tuple(bs) for bs in out.values()]


def disjoint_waves(pairs: list[HostPair]) -> list[list[int]]:
    """The pairs (by index) in waves whose members share no host, so each wave can run at the same time;
    first fit, in the campaign's order."""
    waves: list[list[int]] = []
    hosts_of: list[set[str]] = []
    for i, pair in enumerate(pairs):
        mine = {spec.name for spec in pair.hosts}
        for wave, used in zip(waves, hosts_of):
            if not mine & used:
                wave.append(i)
                used |= mine
                break
        else:
            waves.append([i])
            hosts_of.append(set(mine))
    return waves


def new_seed() -> int:
    """A seed for round_order, drawn when a run starts (campaign key `order_seed`; the manifest records it)."""
    return secrets.randbelow(2**31)


def _rng(*parts: object) -> random.Random:
    digest = hashlib.sha256("/".join(str(p) for p in parts).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "little"))


def launch_seed(seed: int, launch: int) -> int:
    """The seed of one process launch's orders, from the run's seed (the manifest records both)."""
    return _rng(seed, "launch", launch).randrange(2**31)


def trial_seed(launch_seed: int, point: Point, trial: int) -> int:
    """The seed of a trial's Poisson send times and random object order: fixed by the launch's seed, the point
    and the trial, so a resumed run draws the same ones, and different for every trial."""
    return launch_seed * 1_000_003 + zlib.crc32(point.slug.encode()) * 101 + trial


def launch_order(groups: tuple[PointGroup, ...], seed: int) -> tuple[PointGroup, ...]:
    """The point groups of a block in the order one launch runs them: random per launch. A fixed order (payload
    ascending) makes every launch meet the same point after the same history (JacORB's large oneways always
    last, after its heap grew), so a point's launch-to-launch spread would miss what its place in the run does."""
    order = list(groups)
    _rng(seed, "groups", len(groups)).shuffle(order)
    return tuple(order)


def launch_steps(all_steps: list[tuple[Block, ...]], seed: int) -> list[tuple[Block, ...]]:
    """A launch's steps (placements, option sets, server settings) in an order of its own: a fixed order would
    put the same placement first after every launch's worker starts, and the host's state at a launch's start
    (caches, a just-woken vCPU) on it alone (Abedi and Brecht: every alternative in a fresh random order per
    round)."""
    order = list(all_steps)
    _rng(seed, "steps", len(order)).shuffle(order)
    return order


def sweep_last(groups: tuple[PointGroup, ...], order: tuple[int, ...], seed: int) -> tuple[int, ...]:
    """A launch's group order (indexes into `groups`) with the load sweeps' steps taken out and put last: each
    sweep's steps in rising offered load, after every other group (its capacity probe and unloaded reference
    among them), the sweeps themselves in a random order per launch. A sweep rises on purpose: each step's
    rate is a share of the probe's capacity, and a target's steps stop once its latency has run away."""
    rest = [i for i in order if not groups[i].is_sweep_step]
    sweeps: dict[PointGroup, list[int]] = {}
    for i in range(len(groups)):
        if groups[i].is_sweep_step:
            sweeps.setdefault(groups[i].replace(offered_load=0.0), []).append(i)
    keys = sorted(sweeps)
    _rng(seed, "sweeps", len(keys)).shuffle(keys)
    return tuple(rest) + tuple(i for key in keys for i in sorted(sweeps[key], key=lambda i: groups[i].offered_load))


def round_order(targets: Sequence[T], group: PointGroup, round_number: int, seed: int,
                baselines: Mapping[str, str] | None = None) -> list[T]:
    """round_units, one target after another."""
    return [t for unit in round_units(targets, group, round_number, seed, baselines) for t in unit]


def round_units(targets: Sequence[T], group: PointGroup, round_number: int, seed: int,
                baselines: Mapping[str, str] | None = None) -> list[list[T]]:
    """The targets of one round of a group, in the order they run: random per round, from the seed. A fixed
    order (A B C A B C) puts the same target after the same other one every time, so whatever one leaves
    behind (a warm cache, a JIT compilation still running, a socket in TIME_WAIT) lands on the same neighbour
    in every round: a systematic error that repeating trials cannot average out (Buble, Bulej and Tuma, "hidden
    obstacles" of benchmarking: fixed orders create systematic cross-talk). A random order per round turns it
    into noise the interval covers.

    With `baselines` (ORB -> its baseline), each baseline runs right next to its ORB (in the middle of them
    when several share it), in a random order within the pair: a small VM's CPU switches between a fast and a
    slow mood from one moment to the next, and a pair run back to back meets the same mood far more often than
    one with other targets' trials between its two halves. The order depends only on the seed, the group and
    the round, so a resumed run draws the same orders. A unit (a baseline with its ORBs, or a target alone) is
    what the sliced design (slices.py) alternates inside."""
    rng = _rng(seed, group.slug, round_number)
    by_name = {getattr(t, "name", t): t for t in targets}
    pairs = {orb: base for orb, base in (baselines or {}).items() if orb in by_name and base in by_name}
    units: list[list[T]] = []
    for base in sorted(set(pairs.values())):
        unit = [by_name[orb] for orb in sorted(pairs) if pairs[orb] == base]
        rng.shuffle(unit)
        unit.insert(rng.randint(len(unit) // 2, (len(unit) + 1) // 2), by_name[base])
        units.append(unit)
    placed = {getattr(t, "name", t) for unit in units for t in unit}
    units += [[t] for t in targets if getattr(t, "name", t) not in placed]
    rng.shuffle(units)
    return units


def sweep_step_runs(unit: Sequence[T], group: PointGroup, round_number: int, seed: int,
                    baselines: Mapping[str, str]) -> list[tuple[T, str]]:
    """A unit's trials at a sweep step, as (target, load_of): each target at its own rate in the unit's order,
    and beside each middleware (right before or after it, at random) its baseline at the middleware's rate
    (running/sweep.py, paired steps), so the pair shares the host's phase as a unit's trials do."""
    rng = _rng(seed, group.slug, round_number, "paired")
    names = {getattr(t, "name", t) for t in unit}
    by_name = {getattr(t, "name", t): t for t in unit}
    out: list[tuple[T, str]] = []
    for t in unit:
        name = getattr(t, "name", t)
        base = baselines.get(name)
        if base not in names:
            out.append((t, ""))
            continue
        pair = [(t, ""), (by_name[base], name)]
        rng.shuffle(pair)
        out += pair
    return out


def total_group_runs(campaign: Campaign, pairs: list[HostPair]) -> int:
    """How many point-group runs a campaign makes (every block's groups, once per launch): what progress counts,
    since the stopping rule decides each group's trials as it goes."""
    return sum(len(b.groups) for b in blocks(campaign, pairs)) * campaign.most_launches
