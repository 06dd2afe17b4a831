"""The fidelity experiment (`orbench fidelity`, `make bench-fidelity`): is the harness itself invisible? Each row sets one of orbench's
workers, run by the harness as in any campaign, against a reference that makes the same calls with nothing of
orbench's around it, with the same CPU placement, alternating in short slices: inside each orbench trial the
worker and the reference (a client that keeps its connection) take turns, a slice of a few hundred calls each, in
the ABBA order of the campaigns' sliced design (running/slices.py: the reference is a Companion of the trial, the
same code that alternates a middleware with its baseline). Each trial gives a ratio (orbench's p50 over its
slices / the reference's over its slices); a launch's ratio is the median of its trials', and a row reports the
median of the launches' ratios, its distribution-free 95% interval (stats/intervals.median_interval) and their
range.

Why slices: a small VM's speed changes for a fraction of a second at a time, under every program (a c-socket
launch's trial p50s at 1 B sat at 17.6 us or at 22-25 us, switching every 0.3-0.8 s), and at split-core every call
pays a wake-up of the other CPU whose cost moves with the host (a plain C ping-pong's p50 over 500 calls: 43 to
103 us at 1 B within one run). Slices a few tens of ms long, back to back, see the same phase: two plain C clients
alternating 500-call slices, split-core, 1 B, read a median ratio of 1.000 and 1.001 over 120 pairs (half the
pairs within about 5%), while each client's own slices ranged over a factor of two.

Why launches: a ping-pong's p50 also moves with the process and its connection (the same plain C client, launched
eight times in a row against one server, read 5.9 to 10.9 us at 1 B, each run steady within itself). So each
launch is fresh processes on both sides (new orbench workers, the reference's server and client restarted), and
the row's interval is over launches. Those 6 launches run at every size, the rows taking turns launch by launch in
a fresh random order each round, so that a row's launches spread over the whole run and meet the host's slower
changes too (_take_turns); the sizes whose verdict they leave open get more, three at a time up to `max_pairs`
(_extend), while the run is under its time: a launch a few percent off keeps a cell open at 6 launches, where the
interval is the launches' range; at 9 or 12 the interval leaves it out.

- `sockperf`: orbench's C socket baseline (`c-socket`) in echo mode, its p50 halved, against sockperf's TCP
  ping-pong, which reports half the round trip (RTT/2). On the wire, orbench sends P + 12 bytes (OBSK header and
  payload) and gets P + 24 back (header, 12-byte preamble, payload); sockperf sends P + 18 and gets the same P + 18
  back (its own header inside): the same 2P + 36 bytes per round trip.
- `omniorb-loop`: orbench's omniORB worker, twoway `send(octets)` of P bytes, against `orbench-omniorb-loop`
  (cpp/fidelity/): a minimal omniORB client making the same stub call, one pair of clock reads per call, to a
  servant that does nothing; the same GIOP bytes both ways. `omniorb-loop-oneway`: the same with oneway
  `push(octets)`, client time per call and the receiver's messages/s.
- `c-pingpong` (twoway) and `c-pingpong-oneway`: orbench's C socket baseline against `orbench-c-pingpong`
  (cpp/fidelity/c_pingpong.c), a plain C client and server of a few dozen lines moving the same bytes (a 12-byte
  header and the payload in one send(); a 24-byte reply) with the same calls: its server reads as the baselines'
  do (PROTOCOL.md, "How a socket baseline reads and writes"). Oneway compares the client's time per call, its p50
  and its mean (a flood that fills the socket buffer makes the p50 how often a write found room, the mean its
  rate), and the receiver's throughput (messages from the first timed call to a final round trip).
- `java-pingpong`, `java-pingpong-oneway`: the same for the Java socket baseline against JavaPingpong, the same
  program on plain java.net.Socket (the JVM on PATH, the worker's heap and collector flags).
- `python-pingpong`, `python-pingpong-oneway`: the same for the Python socket baseline against
  harness/workers/python/fidelity_pingpong.py, the same program on the socket module (the workers' interpreter).

Each row is a campaign of its own (one target, one mode) in a directory of the fidelity run, its anatomy counters
read around each size's first trial in the first launch, as the middleware campaign reads them (that trial
runs whole, as in a campaign, and is not paired). Warm-up: the first slice at a size in a launch on either side
gets `warmup` untimed calls (the connection's buffers; `jvm_warmup` on a JVM, for the JIT's compilations), a later trial's first slice `rewarm`, every
other slice `slice_rewarm`; both sides alike, so whatever the other program's turn on the CPU costs, each side
pays it. sockperf cannot be told to make a slice's calls and wait: its row keeps one sockperf client per size and
launch stopped (SIGSTOP) and lets it run (SIGCONT) for its turns, each as long as orbench's slice before it took, and
reads its figures when the launch ends (fidelity_references.SockperfClient). Every process runs in the harness's own session,
like the workers (targets/workers.py: under Linux autogroup scheduling a session of its own is a scheduler group of
its own).
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TextIO

import numpy as np

from orbench.campaign.spec import Campaign, read_campaign
from orbench.errors import UserError
from orbench.hosts.placement import Placement, resolve
from orbench.hosts.readiness import unavailable_reason
from orbench.paths import results_dir
from orbench.results.point import Point
from orbench.results.store import RunStore, write_json_atomic
from orbench.results.trial import Trial
from orbench.running.awake import AwakeCPUs
from orbench.running.fidelity_references import (
    ROWS,
    OmniorbLoop,
    Pingpong,
    Reference,
    ReferenceRun,
    Sockperf,
    Turns,
)
from orbench.running.runner import Runner
from orbench.running.slices import slice_sizes
from orbench.stats.intervals import median_interval
from orbench.targets.descriptor import get_target

GOAL_RATIO = 1.03  # orbench / reference at most this, at every size
# A reference this much slower than orbench's worker making the same calls is not a reference: it was disturbed, or
# it does more than orbench's side. Its cell is `below`, not a pass (sockperf's clients, once left running inside
# their own figures, read 0.17-0.20 at 1-128 B, and the one-sided verdict counted those cells within).
REFERENCE_FLOOR = 0.9
SIZES = [1, 16, 128, 1024, 4096, 16384, 32168, 65536]

CAMPAIGN = """
name = "fidelity-{name}"
description = "orbench fidelity: the row against {name}"
targets = {targets}
modes = {modes}
payload_bytes = {sizes}
placements = ["{placement}"]
launches = {pairs}
trials = {trials}
calls = {calls}
warmup = {warmup}
jvm_warmup = {jvm_warmup}
rewarm = {rewarm}
jvm_rewarm = {rewarm}
slice_calls = {slice_calls}
slice_rewarm = {slice_rewarm}
anatomy_trials = "first-launch"
anatomy = "{anatomy}"
"""


def verdict(low: float | None, high: float | None) -> str:
    """Against the goal, from the ratio's 95% interval: `within` (all of it at or under GOAL_RATIO), `beyond` (all
    of it over), `below` (all of it under REFERENCE_FLOOR: the reference, not orbench, is off), `unresolved` (it
    straddles the goal, or there are too few pairs for an interval)."""
    if low is None or high is None:
        return "unresolved"
    if high < REFERENCE_FLOOR:
        return "below"
    return "within" if high <= GOAL_RATIO else "beyond" if low > GOAL_RATIO else "unresolved"


def cell_verdict(row: dict[str, Any]) -> str:
    """A cell's verdict: its p50 ratio's, or a oneway cell's mean's where that one says more (within over beyond
    over below over unresolved)."""
    said = (row.get("verdict"), row.get("mean_verdict"))
    return next((v for v in ("within", "beyond", "below") if v in said), "unresolved")


def _launch_ratio(pairs: list[tuple[float, float]]) -> float:
    """One launch's ratio: the median of its adjacent pairs' ratios (orbench / reference)."""
    return float(np.median([o / r for o, r in pairs]))


def _over_launches(by_launch: dict[int, list[tuple[float, float]]], name: str) -> dict[str, Any]:
    """`name`, `name`_ci, `name`_range: the median over launches of each launch's ratio (_launch_ratio), its
    distribution-free interval and the launches' range; nothing without a launch."""
    ratios = [_launch_ratio(by_launch[k]) for k in sorted(by_launch) if by_launch[k]]
    if not ratios:
        return {}
    interval = median_interval(ratios)
    return {name: interval.estimate, f"{name}_ci": [interval.low, interval.high], f"{name}_range": [min(ratios), max(ratios)]}


def _row(size: int, launches: dict[int, list[tuple[float, ReferenceRun]]],
         throughputs: dict[int, list[tuple[float, float]]] | None = None,
         means: dict[int, list[tuple[float, float]]] | None = None) -> dict[str, Any]:
    """One size of one comparison: `launches` maps a launch to its pairs (orbench trial p50 on the reference's
    scale, the reference's slice after it); `throughputs` (oneway) to its (orbench trial's receiver msgs/s, the
    reference's); `means` (oneway) to its (orbench trial's mean time per call, the reference slice's). The
    interval is over launches: slices of one launch share its processes."""
    pairs = [pair for launch in sorted(launches) for pair in launches[launch]]
    p50s = {k: [(o, r.p50_ns) for o, r in v] for k, v in launches.items()}
    main = _over_launches(p50s, "ratio")
    extra: dict[str, Any] = {}
    if throughputs and any(throughputs.values()):
        every = [pair for k in sorted(throughputs) for pair in throughputs[k]]
        extra = {"orbench_throughput_msgs_per_s": float(np.median([o for o, _ in every])),
                 "reference_throughput_msgs_per_s": float(np.median([r for _, r in every])),
                 **_over_launches(throughputs, "throughput_ratio")}
    if means and any(means.values()):
        # A oneway flood's p50 can be how often a write found room in the socket buffer; the mean is its rate.
        extra |= _over_launches(means, "mean_ratio")
        extra["mean_verdict"] = verdict(*extra.get("mean_ratio_ci", [None, None]))
    return extra | {
        "payload_bytes": size, "pairs": sum(1 for v in launches.values() if v), "slices": len(pairs),
        "orbench_p50_ns": float(np.median([o for o, _ in pairs])) if pairs else None,
        "reference_p50_ns": float(np.median([r.p50_ns for _, r in pairs])) if pairs else None,
        "orbench_trials_p50_ns": [o for o, _ in pairs],
        "reference_runs_p50_ns": [r.p50_ns for _, r in pairs],
        "reference_observations": sum(r.observations for _, r in pairs),
        "ratio": main.get("ratio"), "ratio_ci": main.get("ratio_ci"), "ratio_range": main.get("ratio_range"),
        "launch_ratios": [_launch_ratio(p50s[k]) for k in sorted(p50s) if p50s[k]],
        "verdict": verdict(*main.get("ratio_ci", [None, None])),
        "loadavg_1m": [r.loadavg_1m for _, r in pairs],
    }



def decided(row: dict[str, Any]) -> bool:
    """Whether a cell has its verdict: its p50 ratio's interval, or a oneway cell's mean's, wholly on one side of
    the goal."""
    return row.get("verdict", "unresolved") != "unresolved" or row.get("mean_verdict", "unresolved") != "unresolved"


def at_goal(row: dict[str, Any]) -> bool:
    """Whether a twoway cell's interval is at most AT_GOAL_WIDTH wide: if it is open, it straddles the goal because
    its ratio is the goal's, which more launches would not change (the C twoway row at same-core read 1.029-1.030,
    intervals within [1.027, 1.032], at 1 B to 4 KB after 9 launches)."""
    ci = row.get("ratio_ci") or [None, None]
    return row.get("mean_ratio") is None and ci[0] is not None and ci[1] - ci[0] <= AT_GOAL_WIDTH


# An interval this narrow that straddles the goal stays open however many launches it gets.
AT_GOAL_WIDTH = 0.01
# What a run's end takes after its last batch (fidelity.json, and `orbench fidelity` writes each campaign run's
# summary): the deadline for extra launches leaves it out of `max_minutes`.
SUMMARY_RESERVE_S = 30.0
# Extra launches come three at a time: the median's distribution-free 95% interval leaves one more launch out at
# each end at 9 and at 12 launches (it is the outermost pair at 6 to 8).
EXTRA_BATCH = 3


def cell_counts(comparisons: list[dict[str, Any]], batches: list[dict[str, Any]]) -> dict[str, int]:
    """How many cells (rows' sizes with a ratio) are within the goal, beyond it, below the reference floor and open
    (cell_verdict), and how many batches of extra launches ran at how many cells."""
    said = [cell_verdict(r) for comp in comparisons for r in comp["rows"] if r.get("ratio") is not None]
    return {"cells": len(said), "within": said.count("within"), "beyond": said.count("beyond"),
            "below": said.count("below"), "open": said.count("unresolved"),
            "batches": len(batches), "extended": sum(len(b["payload_bytes"]) for b in batches)}


def run_fidelity(sizes: list[int] = SIZES, placement: str | list[str] = "same-core", pairs: int = 6,
                 slices: int = 8, calls: int = 1000, warmup: int = 1000, rewarm: int = 200,
                 root: Path | None = None, rows: tuple[str, ...] = tuple(ROWS),
                 awake_cpus: bool = False, slice_calls: int = 500, slice_rewarm: int = 20,
                 jvm_warmup: int = 10000, max_pairs: int = 12,
                 max_minutes: float | None = 20.0, seed: int | None = None) -> tuple[RunStore, dict[str, Any]]:
    """Runs the rows (names of references) at each placement, taking turns launch by launch, into one fidelity run:
    results/fidelity/<id>/ holds fidelity.json, the references' logs and samples, and the campaign runs of each row
    and placement under <row>[-<placement>]/ (a floor must hold wherever the campaigns measure: at split-core a
    call also wakes the other CPU, which the plain programs pay too). `pairs` launches at every size, each of
    `slices` paired orbench trials per size of `calls` calls, in which the target and the reference alternate
    slices of `slice_calls` (ABBA, the runner's sliced design), each slice after the first with `slice_rewarm`
    untimed calls; a launch's first trial at a size `warmup` untimed calls on each side (`jvm_warmup` on a JVM).
    The rows take turns in a fresh random order each round (`seed`; _take_turns; the result's `launch_order` has
    the first `pairs` rounds, `extra_launches` the batches after). Then the sizes whose verdict is still open get
    more launches (_extend), up to `max_pairs`, while the run is under `max_minutes`. With `awake_cpus` both sides
    run with the pinned CPUs kept from halting (running/awake.py), as a campaign with that key does."""
    placements = [placement] if isinstance(placement, str) else list(placement)
    for name in placements:
        resolve(name)
    if len(slice_sizes(calls, slice_calls)) < 2:
        raise UserError(f"--slice-calls {slice_calls} leaves {calls} calls one slice: the sides could not alternate")
    if max_pairs < pairs:
        raise UserError(f"--max-pairs {max_pairs} is under --pairs {pairs}: a row gets at least --pairs launches")
    missing: dict[str, str] = {}
    for name in rows:
        if name not in ROWS:
            raise UserError(f"unknown fidelity row {name!r}; the rows are {', '.join(ROWS)}")
        why = unavailable_reason(get_target(ROWS[name][0]))
        if why:
            missing[name] = f"target {ROWS[name][0]} unavailable: {why}"
    runnable = [name for name in rows if name not in missing]
    if not runnable:
        raise UserError("no fidelity row can run here: " + "; ".join(f"{k}: {v}" for k, v in missing.items()))

    seed = random.SystemRandom().randrange(2 ** 31) if seed is None else seed
    started = time.monotonic()
    deadline = None if max_minutes is None else started + max_minutes * 60 - SUMMARY_RESERVE_S
    store = RunStore.create("fidelity", root)
    awake = AwakeCPUs(set().union(*(resolve(pl).worker_cpus() for pl in placements)) if awake_cpus else ())
    design = Design(pairs, slices, calls, warmup, jvm_warmup, rewarm, slice_calls, slice_rewarm)
    row_runs = [_RowRun(name, store, resolve(pl), pl, design, suffix=f"-{pl}" if len(placements) > 1 else "")
                for pl in placements for name in runnable]
    order_rng = random.Random(seed)
    with awake:
        launch_order = [_take_turns([(row, sizes) for row in row_runs], order_rng) for _ in range(pairs)]
        extra = _extend(row_runs, max_pairs, deadline, rng=order_rng)
    comparisons = [{**row.result(), "placement": row.placement} for row in row_runs]
    result = {"placement": ", ".join(placements), "placements": placements, "goal_ratio": GOAL_RATIO,
              "reference_floor": REFERENCE_FLOOR,
              **({"awake_cpus": awake.as_dict()} if awake_cpus else {}),
              "calls": calls, "warmup": warmup, "jvm_warmup": jvm_warmup, "rewarm": rewarm, "pairs": pairs,
              "max_pairs": max_pairs, "max_minutes": max_minutes, "slices": slices,
              "slice_calls": slice_calls, "slice_rewarm": slice_rewarm,
              "seed": seed, "launch_order": launch_order,
              "comparisons": comparisons, "extra_launches": extra,
              "cells": cell_counts(comparisons, extra),
              "elapsed_s": round(time.monotonic() - started, 1), "missing": missing, "note": __doc__}
    write_json_atomic(store.path / "fidelity.json", result)
    store.mark_latest()
    return store, result


class ExtendableRow(Protocol):
    """What _extend needs of a row (a _RowRun)."""

    name: str
    placement: str

    def undecided(self, max_pairs: int) -> list[int]: ...
    def seconds_per_size_launch(self) -> float: ...
    def run(self, sizes: list[int], launches: int) -> None: ...


def _take_turns(todo: list[tuple[ExtendableRow, list[int]]], rng: random.Random) -> list[str]:
    """One launch of each row at its sizes, the rows in a random order; returns the order. Why turns: a row's
    launches run in a minute if it takes them all at once, and runs of `orbench fidelity` differed by more than
    those launches did (six cells of two runs, their ratios 0.98-1.03, each outside the other run's interval); spread
    over the whole run, the launches' spread holds the host's slower changes too (Abedi and Brecht, "Conducting
    Repeatable Experiments in Highly Variable Cloud Computing Environments": randomized multiple interleaved
    trials)."""
    order = list(todo)
    rng.shuffle(order)
    for row, sizes in order:
        row.run(sizes, 1)
    return [f"{row.name} ({row.placement})" for row, _ in order]


def _extend(rows: list[ExtendableRow], max_pairs: int, deadline: float | None,
            clock: Callable[[], float] = time.monotonic, stream: TextIO = sys.stderr,
            rng: random.Random | None = None) -> list[dict[str, Any]]:
    """More launches, EXTRA_BATCH at a time, at the sizes each row has not decided, in passes over the rows: each
    pass takes the rows whose batch fits before `deadline` (estimated from each row's own seconds per size and
    launch so far), the cheapest per size and launch first, and the rows it took take turns (_take_turns)
    EXTRA_BATCH times; until every cell is decided or has `max_pairs` launches, or no row's batch fits. Why
    launches and not trials: what leaves a cell open is mostly launches disagreeing (a process or connection
    that runs a few percent off), which more trials of the same launches do not narrow. Returns the batches."""
    rng = rng or random.Random()
    batches: list[dict[str, Any]] = []
    while True:
        todo = sorted(((row, sizes) for row in rows if (sizes := row.undecided(max_pairs))),
                      key=lambda pair: pair[0].seconds_per_size_launch())
        taken: list[tuple[ExtendableRow, list[int]]] = []
        planned = 0.0
        for row, sizes in todo:
            cost = row.seconds_per_size_launch() * len(sizes) * EXTRA_BATCH
            if deadline is not None and clock() + planned + cost > deadline:
                continue
            planned += cost
            taken.append((row, sizes))
            print(f"fidelity: {EXTRA_BATCH} more launches of {row.name} ({row.placement}) at "
                  f"{', '.join(map(str, sizes))} B, whose verdict is open (about {cost:.0f} s)", file=stream)
            batches.append({"reference": row.name, "placement": row.placement, "payload_bytes": sizes,
                            "launches": EXTRA_BATCH, "estimated_s": round(cost, 1)})
        if not taken:
            return batches
        for _ in range(EXTRA_BATCH):
            _take_turns(taken, rng)


@dataclass(frozen=True)
class Design:
    """How much a row measures: `pairs` launches, `slices` paired trials per size and launch of `calls` calls each
    side, alternating in slices of `slice_calls` (sockperf: turns as long as orbench's slices)."""

    pairs: int
    slices: int
    calls: int
    warmup: int
    jvm_warmup: int
    rewarm: int
    slice_calls: int
    slice_rewarm: int


class _RowRun:
    """One row at one placement: campaign runs of its one target and mode (its baseline not added: nothing is
    subtracted here), a launch each (the rows take turns), first at every size, then at the sizes still open, each
    run's launches numbered on from the last's. A sliced reference takes turns with the target inside each trial (the
    runner's companions); the first run's first trial at a size reads the anatomy, runs whole and is not
    paired, so that run has one trial more than `slices`. The reference's server and client restart with every
    launch."""

    def __init__(self, name: str, store: RunStore, pl: Placement, placement: str, design: Design, suffix: str = ""):
        self.name, self.store, self.pl, self.placement, self.design, self.suffix = name, store, pl, placement, design, suffix
        self.target_name, self.mode = ROWS[name]
        self.target = get_target(self.target_name)  # read once: every read parses the descriptors again
        self.slices = design.slices
        self.sizes: list[int] = []
        self.runs: list[RunStore] = []
        self.launches_at: dict[int, int] = {}
        self.next_launch = 0
        self.seconds, self.size_launches = 0.0, 0
        self.ref: Reference | None = None
        self.server_launch = 0  # the launch the reference was started for
        self.warmed: set[tuple[int, int]] = set()  # (size, launch) the reference has had its full warm-up at
        self.measured: dict[tuple[int, int, int], ReferenceRun] = {}  # (size, launch, trial)
        self.p50: dict[tuple[int, int, int], float] = {}
        self.tput: dict[tuple[int, int, int], float] = {}
        self.mean: dict[tuple[int, int, int], float] = {}

    def _reference(self, host: str) -> Reference:
        samples = self.store.samples_dir / f"{self.name}{self.suffix}"
        if self.name == "sockperf":
            return Sockperf(self.pl, host, self.store.logs_dir)
        if "pingpong" in self.name:
            return Pingpong(self.name, self.mode, self.pl, host, self.design.calls, self.store.logs_dir, samples)
        return OmniorbLoop(self.name, self.mode, self.pl, host, self.design.calls, self.store.logs_dir, samples)

    def _reference_for(self, launch: int) -> Reference:
        assert self.ref is not None
        if launch != self.server_launch:
            self.ref.stop()
            self.ref.start()
            self.server_launch = launch
        return self.ref

    def _warmup_at(self, size: int, launch: int) -> int:
        first = (size, launch) not in self.warmed
        self.warmed.add((size, launch))
        full = self.design.jvm_warmup if self.target.is_jvm else self.design.warmup
        return full if first else self.design.rewarm

    def _campaign(self, sizes: list[int], launches: int, first: bool) -> Campaign:
        design = self.design
        path = self.store.path / f"{self.name}{self.suffix}{'' if first else f'-run{len(self.runs) + 1}'}.toml"
        path.write_text(CAMPAIGN.format(
            name=self.name, targets=[self.target_name], modes=[self.mode], sizes=sizes, placement=self.placement,
            pairs=launches, trials=self.slices + first, calls=design.calls,
            warmup=design.warmup, jvm_warmup=design.jvm_warmup, rewarm=design.rewarm,
            slice_calls=design.slice_calls, slice_rewarm=design.slice_rewarm,
            anatomy="counters" if first else "off"))
        return read_campaign(path, targets={self.target_name: replace(self.target, baseline=None)})

    def run(self, sizes: list[int], launches: int) -> None:
        """A campaign run of `launches` launches at `sizes` (its first run's sizes are the row's, those its
        reference makes): the first reads the anatomy, later ones do not."""
        first = not self.runs
        if self.ref is None:  # the reference binds where the orbench server binds
            self.ref = self._reference(self._campaign(sizes, launches, first).host_pairs()[0].bind_address)
        ref = self.ref
        sizes = ref.at_sizes(sizes)
        if first:
            self.sizes = list(sizes)
        offset = self.next_launch
        campaign = self._campaign(sizes, launches, first)
        turns: dict[tuple[int, int, int], Turns] = {}

        def after_trial(runner: Runner, trial: Trial) -> None:
            if trial.ok and trial.mean_ns:
                ref.orbench_trial(trial.point.payload_bytes, float(trial.mean_ns))

        def companions(point: Point, launch: int, trial: int) -> tuple[Turns, ...]:
            launch += offset
            ref = self._reference_for(launch)
            key = (point.payload_bytes, launch, trial)
            turns[key] = ref.turns(point.payload_bytes, launch, trial, self._warmup_at(point.payload_bytes, launch))
            return (turns[key],)

        run = RunStore.create(f"{self.name}{self.suffix}", self.store.path)
        began = time.monotonic()
        try:
            ref.start()
            self.server_launch = offset
            Runner(campaign, run, on_trial_done=after_trial, companions=companions).run()
        finally:
            ref.stop()
        self.seconds += time.monotonic() - began
        self.size_launches += len(sizes) * launches
        self.runs.append(run)
        self.next_launch += launches
        for size in sizes:
            self.launches_at[size] = self.launches_at.get(size, 0) + launches
        self.measured |= {key: got for key, t in turns.items() if (got := t.result()) is not None}
        for t in run.read_trials():
            if t.ok and t.p50_ns:
                key = (t.point.payload_bytes, t.launch + offset, t.trial)
                self.p50[key] = float(t.p50_ns)
                if t.throughput_msgs_per_s:
                    self.tput[key] = t.throughput_msgs_per_s
                if t.mean_ns:
                    self.mean[key] = float(t.mean_ns)

    def seconds_per_size_launch(self) -> float:
        return self.seconds / max(1, self.size_launches)

    def rows(self) -> list[dict[str, Any]]:
        """Each size's cell from every launch so far."""
        assert self.ref is not None
        per_size = []
        for size in self.sizes:
            launches: dict[int, list[tuple[float, ReferenceRun]]] = {}
            throughputs: dict[int, list[tuple[float, float]]] = {}
            means: dict[int, list[tuple[float, float]]] = {}
            for key in sorted(k for k in self.measured if k[0] == size and k in self.p50):
                ref = self.measured[key]
                launches.setdefault(key[1], []).append((self.p50[key] / (2 if self.ref.halve_orbench else 1), ref))
                if key in self.tput and ref.throughput_msgs_per_s:
                    throughputs.setdefault(key[1], []).append((self.tput[key], ref.throughput_msgs_per_s))
                if self.mode == "oneway" and key in self.mean and ref.mean_ns:
                    means.setdefault(key[1], []).append((self.mean[key], ref.mean_ns))
            per_size.append(_row(size, launches, throughputs, means))
        return per_size

    def undecided(self, max_pairs: int) -> list[int]:
        """The sizes whose verdict is open, not for want of launches only (at_goal), and that have room for
        another batch of launches under `max_pairs`."""
        return [row["payload_bytes"] for row in self.rows() if not decided(row) and not at_goal(row)
                and self.launches_at.get(row["payload_bytes"], 0) + EXTRA_BATCH <= max_pairs]

    def result(self) -> dict[str, Any]:
        assert self.ref is not None
        runs = [str(run.path.relative_to(self.store.path)) for run in self.runs]
        return {"reference": self.name, "target": self.target_name, "mode": self.mode,
                "halved": self.ref.halve_orbench, "slices": self.slices,
                "slice_calls": self.design.slice_calls, "what": self.ref.describe,
                "run": runs[0], "runs": runs, "seconds": round(self.seconds, 1), "rows": self.rows()}


def _interval_text(ci: list[float | None] | None) -> str:
    return "[-]" if not ci or ci[0] is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def format_result(result: dict[str, Any]) -> str:
    awake = result.get("awake_cpus")
    lines = [f"CPUs {', '.join(map(str, awake['cpus']))} kept awake: {awake['how']}", ""] if awake else []
    for comp in result["comparisons"]:
        where = f" ({comp['placement']})" if len(result.get("placements") or []) > 1 else ""
        lines.append(f"{comp['target']} {comp['mode']} vs {comp['reference']}{where}: {comp['what']}")
        scale = "p50 / 2" if comp["halved"] else "p50"
        lines.append(f"{'payload':>9} {'orbench ' + scale:>16} {'reference':>12} {'ratio':>6}  95% interval    "
                     f"launches x trials  load     vs {result['goal_ratio']}")
        for r in comp["rows"]:
            if r["ratio"] is None:
                lines.append(f"{r['payload_bytes']:>8}B  no paired measurement")
                continue
            load = r["loadavg_1m"]
            tput = (f"  receiver msgs/s orbench/reference {r['throughput_ratio']:.3f} "
                    f"{_interval_text(r.get('throughput_ratio_ci'))}" if r.get("throughput_ratio") is not None else "")
            if r.get("mean_ratio") is not None:
                tput += (f"  mean {r['mean_ratio']:.3f} {_interval_text(r.get('mean_ratio_ci'))} "
                         f"{r.get('mean_verdict', '')}")
            lines.append(f"{r['payload_bytes']:>8}B {r['orbench_p50_ns'] / 1e3:>13.2f} us {r['reference_p50_ns'] / 1e3:>9.2f} us "
                         f"{r['ratio']:>6.3f}  {_interval_text(r.get('ratio_ci')):<15} {r['pairs']:>8} x {comp.get('slices', 1):<6}"
                         f"  {min(load):.1f}-{max(load):.1f}  {r.get('verdict', '')}"
                         f"{' (at the goal)' if not decided(r) and at_goal(r) else ''}{tput}")
        lines.append("")
    if cells := result.get("cells"):
        below = (f"{cells['below']} below {result.get('reference_floor', REFERENCE_FLOOR)} (the reference slower: "
                 "not a fair one), " if cells.get("below") else "")
        lines.append(f"{cells['cells']} cells: {cells['within']} within {result['goal_ratio']}, {cells['beyond']} "
                     f"beyond, {below}{cells['open']} open (a oneway cell judged by its p50 or its mean); "
                     f"{cells['batches']} batches of extra launches at {cells['extended']} cells"
                     + (f"; {result['elapsed_s'] / 60:.1f} min" if result.get("elapsed_s") else ""))
    for name, why in result.get("missing", {}).items():
        lines.append(f"{name}: not measured: {why}")
    return "\n".join(lines).rstrip()


def read_fidelity(run: str, root: Path | None = None) -> dict[str, Any]:
    """A fidelity run's fidelity.json, by its directory or its run id in the results store."""
    for path in (Path(run), (root or results_dir()) / "fidelity" / run):
        if (path / "fidelity.json").is_file():
            return {**json.loads((path / "fidelity.json").read_text()), "run_dir": str(path.resolve())}
    raise UserError(f"{run}: no fidelity.json there, nor under {(root or results_dir()) / 'fidelity'}")


def _cells(result: dict[str, Any]) -> dict[tuple[str, str, int], dict[str, Any]]:
    return {(comp["reference"], comp.get("placement") or result.get("placement", ""), row["payload_bytes"]): row
            | {"mode": comp["mode"]} for comp in result["comparisons"] for row in comp["rows"]}


def _holds(estimate: float | None, ci: list[float | None] | None) -> bool:
    return estimate is not None and bool(ci) and ci[0] is not None and ci[0] <= estimate <= ci[1]


# Two runs' ratios this close read alike against a goal of 3%, however narrow their intervals.
STABLE_WITHIN = 0.01


def goal_side(verdict_: str) -> str:
    """Which side of the goal a decided verdict puts a cell: `within` and `below` are both at or under
    GOAL_RATIO (`below` adds that the reference is the slower one), `beyond` over it."""
    return "over" if verdict_ == "beyond" else "at or under"


def stability(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Each cell of two fidelity runs: `contradicted` when a statistic (the p50 ratio; a oneway cell's mean
    ratio too) is decided in both runs on opposite sides of the goal (goal_side); else `decided` (the cell's
    verdict on the same side in both); else `stable` when a statistic has each run's estimate inside the other's
    interval, or the two within STABLE_WITHIN of each other (the C twoway row at same-core read 1.030 [1.029,
    1.031] and 1.032 [1.029, 1.033]), or `unstable`. A oneway cell whose p50 and mean point apart, each steady
    from run to run, is stable: its verdict flips with which interval clears the goal first, not with the host."""
    cells_a, cells_b = _cells(a), _cells(b)
    out = []
    for key in sorted(cells_a.keys() & cells_b.keys()):
        x, y = cells_a[key], cells_b[key]
        opposite = any({goal_side(x[v]), goal_side(y[v])} == {"over", "at or under"}
                       for v in ("verdict", "mean_verdict") if x.get(v, "unresolved") != "unresolved"
                       and y.get(v, "unresolved") != "unresolved")
        decided_both = decided(x) and decided(y)
        best = {goal_side(cell_verdict(x)), goal_side(cell_verdict(y))}
        stable = [name for name in ("ratio", "mean_ratio") if x.get(name) is not None and y.get(name) is not None
                  and ((_holds(x[name], y.get(f"{name}_ci")) and _holds(y[name], x.get(f"{name}_ci")))
                       or abs(x[name] - y[name]) <= STABLE_WITHIN)]
        status = ("contradicted" if opposite else "decided" if decided_both and len(best) == 1
                  else "stable" if stable else "unstable")
        out.append({"reference": key[0], "placement": key[1], "payload_bytes": key[2], "status": status,
                    "stable_in": stable, "a": x, "b": y})
    return out


def format_stability(a: dict[str, Any], b: dict[str, Any]) -> str:
    cells = stability(a, b)
    counts = {s: sum(c["status"] == s for c in cells) for s in ("decided", "stable", "unstable", "contradicted")}
    lines = [f"fidelity runs {Path(a['run_dir']).name} and {Path(b['run_dir']).name}: {len(cells)} cells in both; "
             f"{counts['decided']} decided alike in both, {counts['stable']} open but stable (each run's ratio inside "
             f"the other's interval, or the two within {STABLE_WITHIN:.0%}), {counts['unstable']} unstable, {counts['contradicted']} contradicted", ""]
    for c in cells:
        if c["status"] == "decided":
            continue
        x, y = c["a"], c["b"]
        said = ", ".join(f"{name.replace('_', ' ')} {x[name]:.3f} {_interval_text(x.get(name + '_ci'))} / "
                         f"{y[name]:.3f} {_interval_text(y.get(name + '_ci'))}"
                         for name in ("ratio", "mean_ratio") if x.get(name) is not None and y.get(name) is not None)
        lines.append(f"{c['reference']:<22} {c['placement']:<10} {c['payload_bytes']:>6} B  {c['status']:<12} {said}")
    return "\n".join(lines).rstrip()
