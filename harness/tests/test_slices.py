"""The sliced design (running/slices.py): slices and their order, the host's speed modes (stats/phases.py), slice
pairs over trial pairs (stats/launches.py), and a real sliced run of omniORB against the C socket baseline."""

import json
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from orbench.results.accounting import time_account
from orbench.results.point import Point
from orbench.results.store import RunStore
from orbench.results.trial import Trial
from orbench.running.cpu_usage import own_tree_ticks
from orbench.running.slices import slice_orders, slice_sizes
from orbench.stats.launches import over_launches, sliced_or_trial_pairs
from orbench.stats.phases import (
    BLOCK_CALLS,
    added_by_mode,
    blocks_agree,
    settled_pairs,
    slice_samples,
    slice_values,
    slow_step,
    speed_modes,
    speed_scaled,
    usual_blocks,
)
from orbench.summary.pairing import SPEED_SCALED, by_blocks, paired_difference
from orbench.targets.descriptor import read_targets
from orbench.targets.turns import turn_plan

from tests.conftest import require_targets, run_cli
from tests.phase_maker import PhaseMaker


def test_slices_split_a_trials_calls_evenly():
    assert slice_sizes(1000, 250) == [250] * 4
    assert slice_sizes(1000, 300) == [334, 333, 333]
    assert sum(slice_sizes(777, 100)) == 777
    # Fewer calls than two slices: two shorter ones while each keeps two 25-call blocks, else one.
    assert slice_sizes(500, 500) == [250, 250] and slice_sizes(100, 250) == [50, 50]
    assert slice_sizes(99, 250) == [99]
    assert slice_sizes(500, 0) == [500]


def test_slice_order_is_abba_from_a_random_side():
    starts = set()
    for seed in range(20):
        orders = slice_orders(2, 6, random.Random(seed))
        # Each slice reverses the one before: A B, B A, A B ... so each side's mean position is the same.
        assert all(orders[k + 1] == orders[k][::-1] for k in range(5))
        starts.add(tuple(orders[0]))
    assert starts == {(0, 1), (1, 0)}
    # Three members (a baseline in the middle): every slice keeps the middle one next to both others.
    three = slice_orders(3, 4, random.Random(1))
    assert all(order[1] == 1 for order in three)


def test_turns_merge_a_members_consecutive_slices():
    """Slices as turns (PROTOCOL.md, "Turns"): ABBA becomes A | B B | A A | B, each member's slices in order."""
    orders = [[0, 1], [1, 0], [0, 1], [1, 0]]
    assert turn_plan(2, orders, [250] * 4) == [(0, [0]), (1, [0, 1]), (0, [1, 2]), (1, [2, 3]), (0, [3])]
    # A baseline between two middleware (O1 B O2, O2 B O1): it hands the turn to each of them in turn.
    three = turn_plan(3, [[0, 1, 2], [2, 1, 0], [0, 1, 2]], [100] * 3)
    assert [who for who, _ in three] == [0, 1, 2, 1, 0, 1, 2]
    # Companions (index >= members) take no turn: they are never sliced this way.
    assert turn_plan(1, [[0, 1], [1, 0]], [50, 50]) == [(0, [0, 1])]
    for plan in (turn_plan(2, orders, [250] * 4), three):
        for member in {who for who, _ in plan}:
            slices = [k for who, ks in plan if who == member for k in ks]
            assert slices == sorted(slices) and len(slices) == len(set(slices))


def test_two_speed_modes_are_found_and_one_is_not():
    rng = np.random.default_rng(7)
    fast = rng.normal(13_600, 150, 300)
    slow = rng.normal(17_000, 250, 100)
    modes = speed_modes(list(fast) + list(slow))
    assert modes is not None
    assert abs(modes.slow_share - 0.25) < 0.01
    assert 13_500 < modes.fast_p50_ns < 13_700 and 16_900 < modes.slow_p50_ns < 17_100
    assert 13_800 < modes.threshold_ns < 16_800
    # One mode with a long tail is not two modes; nor are a handful of slices, nor two sides under 10% apart.
    assert speed_modes(list(rng.lognormal(np.log(14_000), 0.05, 400))) is None
    assert speed_modes([13_600.0] * 5 + [17_000.0] * 5) is None
    assert speed_modes(list(rng.normal(13_600, 40, 200)) + list(rng.normal(14_600, 40, 200))) is None


def test_what_a_middleware_adds_in_each_mode_is_recovered():
    # Known answer: the middleware adds 1.4 us in the fast mode and 2.2 us in the slow one.
    rng = np.random.default_rng(3)
    base, orb = {}, {}
    for k in range(400):
        slow = k % 4 == 0
        b = rng.normal(17_000 if slow else 13_600, 100)
        base[(0, k, 0)] = b
        orb[(0, k, 0)] = b + (2_200 if slow else 1_400) + rng.normal(0, 50)
    modes = speed_modes(list(base.values()))
    assert modes is not None
    by_mode = {m.mode: m for m in added_by_mode(orb, base, modes)}
    assert abs(by_mode["fast"].estimate - 1_400) < 20 and abs(by_mode["slow"].estimate - 2_200) < 30
    assert by_mode["fast"].ci95_low < 1_400 < by_mode["fast"].ci95_high
    assert by_mode["slow"].pairs == 100 and abs(by_mode["slow"].share - 0.25) < 1e-9
    assert abs(slow_step(list(by_mode.values())) - 800) < 40


def test_slice_pairs_replace_a_launchs_trial_pairs():
    # Launch 0 has slices: its sequential trial (one that read the anatomy) is left out; launch 1 has none.
    a_slices = {(0, 1, 0): 110.0, (0, 1, 1): 112.0}
    b_slices = {(0, 1, 0): 100.0, (0, 1, 1): 100.0}
    a_trials = {(0, 0): 500.0, (0, 1): 111.0, (1, 0): 130.0}
    b_trials = {(0, 0): 100.0, (0, 1): 100.0, (1, 0): 100.0}
    assert sliced_or_trial_pairs(a_slices, b_slices, a_trials, b_trials) == {0: [10.0, 12.0], 1: [30.0]}


def test_a_positive_quantity_gets_an_interval_above_zero():
    # Three launches of a loaded p50 far apart: the t interval on the values goes below zero, on the log scale not.
    per_launch = {0: [0.39e6], 1: [1.23e6], 2: [17.8e6]}
    plain = over_launches(per_launch)
    logged = over_launches(per_launch, positive=True)
    assert plain["ci95_low"] < 0
    assert 0 < logged["ci95_low"] < logged["estimate"] < logged["ci95_high"]
    assert logged["estimate"] == pytest.approx((0.39e6 * 1.23e6 * 17.8e6) ** (1 / 3))
    assert "log scale" in logged["ci_method"]


SLICED = """
name = "sliced"
targets = ["omniorb", "c-socket"]
modes = ["twoway", "oneway"]
payload_bytes = [1]
launches = 2
trials = 2
calls = 600
slice_calls = 200
warmup = 200
anatomy = "off"
"""


def test_a_sliced_run_pairs_slices(write_campaign, results_root):
    """A real run: each trial is 3 slices of 200 calls, its samples file holds all 600, its row each slice's p50
    and mean, and ORB-added is made of slice pairs over the two launches."""
    require_targets("omniorb", "c-socket")
    code, out, err = run_cli("run", str(write_campaign(SLICED)), "--no-report")
    assert code == 0, err
    run_dir = (results_root / "sliced" / "latest").resolve()
    trials = RunStore(run_dir).read_trials()
    assert len(trials) == 2 * 2 * 2 * 2 and all(t.ok for t in trials)
    for t in trials:
        assert t.slice_calls == 200 and len(t.slice_p50s_ns) == 3 and len(t.slice_means_ns) == 3
        samples = np.fromfile(run_dir / t.samples_file, dtype="<i8")
        assert samples.size == 600 == t.calls
        for k, p50 in enumerate(t.slice_p50s_ns):
            assert p50 == pytest.approx(float(np.median(samples[200 * k:200 * (k + 1)])))
        # A | B B | A (or the reverse): two turns each inside one run, the messages the timed calls'; a oneway
        # turn ends with its barrier, so none is lost to the next turn
        assert t.slice_turns == 2 and t.received_messages == 600
        if t.point.mode == "oneway":
            assert t.lost_messages == 0 and t.sync_complete
    assert not list((run_dir / "samples").glob("*.s[0-9]*.i64")), "the slices' own files are removed"
    assert not list((run_dir / "samples").glob("*.turns.i64")), "... and the turns' files"
    # The two point groups interleave within each launch: every group's round k ends before any round k + 1.
    for launch in (0, 1):
        rounds = [t.trial for t in trials if t.launch == launch]
        assert rounds == sorted(rounds) and len(set(t.point.group for t in trials if t.launch == launch)) == 2
    summary = json.loads((run_dir / "summary.json").read_text())
    added = {p["mode"]: p["orb_added_latency_ns"] for p in summary["points"] if p["target"] == "omniorb"}
    assert len(added) == 2
    for mode, a in added.items():
        assert "slices" in a["ci_method"] and a["n_launches"] == 2
        # omniORB's added cost is work: a round trip's pairs at the host's usual speed, read off c-socket's slices
        assert (SPEED_SCALED in a["ci_method"]) == (mode == "twoway") == ("usual_speed_ns" in a)
        if mode == "twoway":
            baseline = next(p for p in summary["points"] if p["target"] == "c-socket" and p["mode"] == mode)
            assert 0.8 < a["usual_speed_ns"] / baseline["p50_ci95_ns"]["estimate"] < 1.1
        # launches x trials x slices; a round trip read block by block leaves out a slice with no block at the
        # host's usual speed (on a quiet host none)
        if mode == "oneway" or "usual_blocks" not in a:
            assert a["pairs"] == 2 * 2 * 3
        else:
            assert 2 <= a["pairs"] <= 2 * 2 * 3 and "blocks of 25" in a["ci_method"]


SLICED_THREADS = """
name = "sliced-threads"
targets = ["omniorb"]
modes = ["twoway"]
payload_bytes = [64]
placements = ["split-core"]
clients = [1, 4]
clients_as = ["threads"]
launches = 1
trials = 1
calls = 300
slice_calls = 100
warmup = 100
anatomy = "off"
"""


def test_a_point_of_client_threads_is_sliced_too(write_campaign, results_root):
    """Four client threads alternate with the baseline's four in slices of 100 calls each: the row holds every
    thread's calls of every slice, each thread's total, and a throughput over the slices' own spans; the closed-loop
    capacity comes from them."""
    require_targets("omniorb", "c-socket")
    code, out, err = run_cli("run", str(write_campaign(SLICED_THREADS)), "--no-report")
    assert code == 0, err
    run_dir = (results_root / "sliced-threads" / "latest").resolve()
    trials = [t for t in RunStore(run_dir).read_trials() if t.point.clients == 4]
    assert {t.point.target for t in trials} == {"omniorb", "c-socket"} and all(t.ok for t in trials)
    for t in trials:
        assert t.slice_calls == 100 and len(t.slice_p50s_ns) == 3
        assert t.calls == 4 * 300 == np.fromfile(run_dir / t.samples_file, dtype="<i8").size
        # The threads take the slice's calls from one count, so each one's share varies a little.
        assert len(t.client_calls) == 4 and sum(t.client_calls) == 1200 and t.fairness > 0.8
        assert t.aggregate_calls_per_s and t.aggregate_calls_per_s > 0
        # Who was busy, over its own slices only: a server CPU's share, and which side it was.
        assert 0 < t.server_cpu_util <= 1.05 and t.bottleneck in ("server", "client", "none")
    summary = json.loads((run_dir / "summary.json").read_text())
    (added,) = [p["orb_added_latency_ns"] for p in summary["points"]
                if p["target"] == "omniorb" and p["clients"] == 4]
    assert "slices" in added["ci_method"] and added["pairs"] == 3
    assert {c["target"] for c in summary["capacities"]} >= {"omniorb", "c-socket"}
    # A first slice carries its trial's full warm-up, and the time account says so.
    account = time_account(json.loads((run_dir / "manifest.json").read_text()))
    assert account is not None and account.seconds.get("full_warmup", 0) > 0


MADE_PHASES = """
name = "made-phases"
targets = ["c-socket-delay@2000"]
modes = ["twoway"]
payload_bytes = [1]
launches = 8
trials = 4
calls = 4000
warmup = 500
anatomy = "off"
"""


def _added_at_made_phases(write_campaign, results_root, extra: str, name: str) -> dict:
    path = write_campaign(MADE_PHASES.replace('"made-phases"', f'"{name}"') + extra, f"{name}.toml")
    code, out, err = run_cli("run", str(path), "--no-report")
    assert code == 0, err
    summary = json.loads(((results_root / name / "latest").resolve() / "summary.json").read_text())
    (point,) = [p for p in summary["points"] if p["target"] == "c-socket-delay@2000"]
    added = point["orb_added_latency_ns"]
    # The design's own interval: a prior run-to-run spread (a first run on the host) widens both designs alike,
    # by 2% of the estimate, and would floor the comparison at what neither design controls.
    own = added.get("run_to_run") or {"within_ci95_low": added["ci95_low"], "within_ci95_high": added["ci95_high"]}
    return {**added, "half": (own["within_ci95_high"] - own["within_ci95_low"]) / 2}


@pytest.mark.slow
@pytest.mark.exclusive  # a known answer in time: another test's processes on its CPU would be phases it did not make
def test_the_known_answer_holds_under_made_phases_and_slices_narrow_it(write_campaign, results_root):
    """The known-answer server (2 us per call) against its baseline while a process of the test slows their CPU
    in alternating 0.2 s periods (tests/phase_maker.py: both sides slow together, as on a small VM): the sliced
    design reads what it reads on the same host without the made phases, and its interval is at most half as wide
    as the sequential design's on the same phases.

    The known answer on this host is read first, without the phases: a spin on the wall clock adds 2 us plus its
    own clock reads, and on a host that steals time on its own a call 2 us longer is also exposed 2 us longer (a
    2-vCPU VM read 2.10-2.31 us, intervals +-100 to +-300 ns, in four calm runs; the sliced design under the made
    phases 2.12-2.21 us there, and 2.17 us +-56 ns on another). So the 5% of 2 us the summary allows a known answer
    (pairing.known_answer) is not this host's to give; what the made phases must not do is move the estimate by
    more than the intervals, and by what they take from a longer call: in their slow periods they take 30% of the
    CPU, so a call 2 us longer may lose up to 0.3 x 2 us more (they added 0.29 us once in nine runs there, the
    calm run at 2.01 us +-112 ns, the made-phases one 2.30 us +-53 ns)."""
    require_targets("c-socket-delay", "c-socket")
    cpu = max(os.sched_getaffinity(0))  # same-core pins both workers to the highest CPU
    calm = _added_at_made_phases(write_campaign, results_root, "slice_calls = 250\n", "calm-sliced")
    with PhaseMaker(cpu, period_s=0.2) as maker:
        sequential = _added_at_made_phases(write_campaign, results_root, "slice_calls = 0\ninterleave_groups = false\n",
                                           "made-phases-sequential")
        sliced = _added_at_made_phases(write_campaign, results_root, "slice_calls = 250\n", "made-phases-sliced")
    for added in (calm, sliced):
        assert 0.9 * 2000 <= added["estimate"] <= 1.25 * 2000, added
        assert SPEED_SCALED not in added["ci_method"], added   # a clock spin: its pairs as measured
    apart = max(sliced["half"] + calm["half"], 0.05 * 2000)
    assert -apart <= sliced["estimate"] - calm["estimate"] <= apart + maker.steal_share * 2000, (calm, sliced)
    # Where the made phases did not widen the sequential design past 5% of the answer (on a fast host its trials
    # are short against the phases and seldom straddle a switch: a 2-vCPU Intel Xeon VM read +-24 to +-57 ns
    # sequential under them, as with periods of 0.05 s), there is nothing for the slices to halve: they must
    # then stay within that 5% too.
    if sequential["half"] > 0.05 * 2000:
        assert sliced["half"] <= 0.5 * sequential["half"], (sliced["half"], sequential["half"])
    else:
        assert sliced["half"] <= 0.05 * 2000, (sliced["half"], sequential["half"])


def test_work_is_scaled_to_the_usual_speed_and_a_clock_delay_is_not():
    """Known answer: the middleware's work adds 1.5 us with the host at its usual speed (13.6 us round trips),
    and, being work, 1.25 x 1.5 us in the stretches and the two launches the host ran 1.25x slow. Each pair's
    difference scaled by the usual level over its own baseline slice reads 1.5 us in every launch; as measured,
    the slow launches read 1.875. A known-answer server's clock spin takes 2 us at any speed: it is not scaled."""
    rng = np.random.default_rng(12)
    orb, base = {}, {}
    for launch in range(6):
        for trial in range(4):
            for k in range(4):
                slow = launch in (2, 5) or (trial == 1 and k in (2, 3))
                speed = 1.25 if slow else 1.0
                base[(launch, trial, k)] = speed * rng.normal(13_600, 30)
                orb[(launch, trial, k)] = base[(launch, trial, k)] + speed * (1_500 + rng.normal(0, 20))
    scaled = speed_scaled(orb, base)
    assert scaled is not None and abs(scaled.usual_ns - 13_600) < 50
    per_launch = sliced_or_trial_pairs(scaled.values, base, {}, {})
    assert all(abs(float(np.median(d)) - 1_500) < 30 for d in per_launch.values())
    raw = sliced_or_trial_pairs(orb, base, {}, {})
    assert all(abs(float(np.median(raw[launch])) - 1_875) < 40 for launch in (2, 5))
    added = paired_difference({}, {}, scaled.values, base)
    assert added["ci95_low"] < 1_500 < added["ci95_high"] and added["ci95_high"] - added["ci95_low"] < 100
    # Without two modes the usual level is the baseline's median: a calm run's pairs stay as measured.
    calm = {k: v for k, v in base.items() if k[0] not in (2, 5) and not (k[1] == 1 and k[2] in (2, 3))}
    still = speed_scaled(orb, calm)
    assert still is not None and abs(still.usual_ns - float(np.median(list(calm.values())))) < 1e-6
    assert speed_scaled(orb, {k: base[k] for k in list(base)[:7]}) is None  # too few slices for a usual level
    targets = read_targets()
    assert targets["omniorb"].added_scales_with_host and targets["c-socket-work"].added_scales_with_host
    assert not targets["c-socket-delay"].added_scales_with_host


def test_pairs_at_the_usual_speed_leave_out_switches_and_a_slow_launch():
    """Known answer: the middleware adds 1.5 us at the host's usual speed. Launch 3 ran wholly slow (it adds 2.2
    there), and in launch 1 the host turned slow between a stretch's two baseline slices (the middleware's slice
    in between read the slow host: +4 us). Only the stretches whose two baseline slices read the usual speed
    count, and the slow launch is left out."""
    rng = np.random.default_rng(11)
    orb, base = {}, {}
    for launch in range(4):
        for trial in range(2):
            for k in range(4):
                key = (launch, trial, k)
                slow = launch == 3 or (launch == 1 and trial == 0 and k == 3)
                base[key] = rng.normal(17_000 if slow else 13_600, 40)
                orb[key] = base[key] + (2_200 if slow else 1_500) + rng.normal(0, 30)
    orb[(1, 0, 2)] = base[(1, 0, 2)] + 4_000  # its stretch's other baseline slice, (1, 0, 3), read slow
    settled = settled_pairs(orb, base)
    assert settled is not None and settled.pairs == 32
    assert settled.keys == {k for k in orb if k[0] != 3 and k[:2] != (1, 0) or k in ((1, 0, 0), (1, 0, 1))}
    added = paired_difference({}, {}, orb, base, usual_speed=True)
    assert added["usual_speed"]["launches_left_out"] == [3] and added["n_launches"] == 3
    assert abs(added["estimate"] - 1_500) < 30 and added["ci95_low"] < 1_500 < added["ci95_high"]
    assert "usual speed" in added["ci_method"]
    every = paired_difference({}, {}, orb, base)
    assert every["estimate"] > 1_600 and "usual_speed" not in every
    # Too few baseline slices to know the usual speed, or a host with no usual speed (most slices far above the
    # fastest tenth, as split-core's wake-ups make them): every pair counts.
    few = {k: v for k, v in base.items() if k[0] == 0}
    assert settled_pairs(orb, few) is None
    spread = {k: 43_000 * (1 + 1.4 * rng.random()) for k in base}
    assert settled_pairs(orb, spread) is None


def _bursty_slices(rng, added_ns: float, own_slow_share: float = 0.0, launches: int = 6, trials: int = 4,
                   calls: int = 500) -> dict:
    """Slices of calls on a host slow (2x) in bursts of 100-400 calls, about half of them: the same bursts for the two sides of a pair
    (they run milliseconds apart) would be too kind; each side gets its own. `own_slow_share`: the share of
    25-call blocks the side itself runs 1.6x slower in, whatever the host does."""
    out = {}
    for launch in range(launches):
        for trial in range(trials):
            for k in range(2):
                x = rng.normal(5_000 + added_ns, 60, calls)
                at = 0
                while at < calls:  # fast and slow stretches, as a c-socket slice read on a 2-vCPU VM
                    fast, slow = int(rng.integers(50, 350)), int(rng.integers(100, 400))
                    x[at + fast:at + fast + slow] *= 2.0
                    at += fast + slow
                for b in range(0, calls, BLOCK_CALLS):
                    if rng.random() < own_slow_share:
                        x[b:b + BLOCK_CALLS] *= 1.6
                out[(launch, trial, k)] = x
    return out


def test_blocks_at_the_usual_speed_read_through_bursts_inside_slices():
    """Known answer: the middleware adds 1 us at the usual speed, on a host slow in bursts of a millisecond or
    two inside every slice (no slice is wholly fast, so no stretch of slices is kept). Whole slices' p50s differ by
    whatever share of each the bursts took; their blocks at the usual speed recover 1 us with an interval a
    fraction as wide."""
    rng = np.random.default_rng(5)
    orb, base = _bursty_slices(rng, 1_000), _bursty_slices(rng, 0)
    whole = paired_difference({}, {}, {k: float(np.median(v)) for k, v in orb.items()},
                              {k: float(np.median(v)) for k, v in base.items()}, usual_speed=True)
    o, b = usual_blocks(orb), usual_blocks(base)
    assert o is not None and b is not None and blocks_agree(o, b)
    assert 0.4 < b.kept_share < 0.9 and abs(o.kept_share - b.kept_share) < 0.1
    read = by_blocks(o, b, {k: 0.0 for k in orb})
    assert read is not None and read[0] == set(range(6))
    blocked = paired_difference({}, {}, o.values, b.values)
    assert blocked["ci95_low"] < 1_000 < blocked["ci95_high"] and abs(blocked["estimate"] - 1_000) < 60
    assert (blocked["ci95_high"] - blocked["ci95_low"]) < 0.25 * (whole["ci95_high"] - whole["ci95_low"])


def test_a_middleware_slow_on_its_own_keeps_its_slow_blocks():
    """A middleware that runs 1.6x slower in a third of its blocks for its own reasons (the host slows its
    baseline alike only in bursts) keeps well under its baseline's share: its blocks are not read at the usual
    speed, which would leave its own cost out, and the point pairs whole slices."""
    rng = np.random.default_rng(6)
    orb, base = _bursty_slices(rng, 1_000, own_slow_share=0.35), _bursty_slices(rng, 0)
    o, b = usual_blocks(orb), usual_blocks(base)
    assert o is not None and b is not None and o.kept_share < b.kept_share - 0.15
    assert not blocks_agree(o, b) and by_blocks(o, b, {k: 0.0 for k in orb}) is None
    assert usual_blocks({k: v for k, v in list(base.items())[:3]}) is None  # too few blocks for a usual level


def test_a_trials_samples_split_into_its_recorded_slices_checked_against_its_slice_p50s(tmp_path):
    """The summary reads the slices back from a trial's samples file at the slice sizes the trial recorded (a
    threads point's slices need not be even), checked against the slice p50s it recorded; an older run's trial
    gets the even split its runner made from the upgrade, and one the upgrade guessed wrong is left whole."""
    from orbench.results.upgrade import update_to_19

    point = Point(placement="same-core", mode="twoway", payload_type="octets", payload_bytes=1, target="omniorb")
    calls = np.arange(1, 1002, dtype="<i8")
    calls.tofile(tmp_path / "t.i64")
    pieces = np.split(calls, [334, 668])
    assert [p.size for p in pieces] == slice_sizes(1001, 334)
    good = Trial(seq=0, point=point, trial=0, status="ok", calls=1001, samples_file="t.i64",
                 slice_p50s_ns=tuple(float(np.median(p)) for p in pieces), slice_sizes=(334, 334, 333))
    got = slice_samples([good], tmp_path)
    assert sorted(got) == [(0, 0, 0), (0, 0, 1), (0, 0, 2)]
    assert all(np.array_equal(got[(0, 0, k)], pieces[k]) for k in range(3))
    uneven = np.split(calls, [600])  # two threads x 300 calls, then two x 200.5: not the even split
    threads = good.replace(trial=1, slice_p50s_ns=tuple(float(np.median(p)) for p in uneven), slice_sizes=(600, 401))
    assert [p.size for p in slice_samples([threads], tmp_path).values()] == [600, 401]
    assert slice_samples([good.replace(trial=2, slice_p50s_ns=(1.0, 2.0, 3.0))], tmp_path) == {}
    assert slice_samples([good.replace(trial=3, slice_sizes=(334, 334))], tmp_path) == {}  # does not fill the file
    rows = [{"calls": "1001", "slice_p50s_ns": ";".join(str(v) for v in p50s)}
            for p50s in (good.slice_p50s_ns, threads.slice_p50s_ns)] + [{"calls": "1000", "slice_p50s_ns": ""}]
    update_to_19({}, rows)
    assert [r["slice_sizes"] for r in rows] == ["334;334;333", "501;500", ""]
    upgraded = [good.replace(trial=4, slice_sizes=(334, 334, 333)), threads.replace(trial=5, slice_sizes=(501, 500))]
    assert sorted(slice_samples(upgraded, tmp_path)) == [(0, 4, 0), (0, 4, 1), (0, 4, 2)]


KILLED = """
name = "killed"
targets = ["omniorb", "c-socket"]
modes = ["twoway"]
payload_bytes = [1]
launches = 1
trials = 1
max_trials = 1
calls = 200000
slice_calls = 20000
warmup = 100
anatomy = "off"
"""


def _clients_below(pid: int) -> dict[int, str]:
    """The client workers in the process tree under `pid`, with their command lines."""
    out = {}
    for child in own_tree_ticks(pid):
        try:
            command = open(f"/proc/{child}/cmdline").read().replace("\0", " ")
        except OSError:
            continue
        if "-client" in command:
            out[child] = command
    return out


@pytest.mark.slow  # about 6 s: the fast suite is at its 3-minute budget
def test_a_member_killed_during_its_turns_ends_the_trial_at_once(write_campaign, results_root):
    """The baseline's client killed in the middle of a trial in turns: the middleware's client, waiting for a
    turn that will never come, is given all its turns and finishes; the trial ends within seconds, not after the
    turns' timeouts (minutes at 200,000 calls), and the killed member's trial is a failed one with the reason."""
    require_targets("omniorb", "c-socket")
    path = write_campaign(KILLED)
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "orbench", "run", str(path), "--no-report"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        victim = None
        while victim is None and time.monotonic() - started < 60 and proc.poll() is None:
            time.sleep(0.2)
            # Once both clients run, the trial (about 6 s of calls) is under way a second later.
            clients = _clients_below(proc.pid)
            if any("csocket-client" in c for c in clients.values()) and any("omniorb-client" in c for c in clients.values()):
                time.sleep(1.0)
                victim = next(p for p, c in clients.items() if "csocket-client" in c)
        assert victim is not None, "the run never started both clients"
        os.kill(victim, signal.SIGKILL)
        killed_at = time.monotonic()
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert time.monotonic() - killed_at < 30, "the trial waited out its turns' timeouts"
    trials = RunStore((results_root / "killed" / "latest").resolve()).read_trials()
    failed = [t for t in trials if t.point.target == "c-socket" and not t.ok]
    assert failed, [(t.point.target, t.status, t.error) for t in trials]
    assert "died" in failed[0].error or "signal" in failed[0].error, failed[0].error


def _two_path_slice(rng: np.random.Generator, slow_share: float, added_ns: float = 0.0) -> np.ndarray:
    """250 round trips of a c-socket at same-core (as on an AMD EPYC guest): 11.0 us on the scheduler's fast path,
    11.65 us on the slow one in `slow_share` of them, plus what the server's work adds."""
    slow = rng.random(250) < slow_share
    return (np.where(slow, 11_650.0, 11_000.0) + rng.normal(0, 40, 250) + added_ns).astype("<i8")


def test_a_same_core_round_trip_is_valued_at_its_fast_end_and_others_by_their_p50(tmp_path):
    """A socket baseline that takes the scheduler's slow path in 30-70% of its calls, slice by slice, against a
    server that works 2 us more and always takes the fast one (what the known-answer server did): each slice
    pair's difference at the fast end is 2 us within 0.1 us, where the p50s' read 1.3-2.0 us. At split-core,
    a oneway, or under load the slices keep their recorded p50s."""
    rng = np.random.default_rng(11)
    trials = {}
    for side, share, added in (("c-socket", None, 0.0), ("c-socket-delay@2000", 0.0, 2_000.0)):
        point = Point(placement="same-core", mode="twoway", payload_type="octets", payload_bytes=1, target=side)
        shares = np.linspace(0.3, 0.7, 8)[rng.permutation(8)] if share is None else [share] * 8
        pieces = [_two_path_slice(rng, s, added) for s in shares]
        np.concatenate(pieces).tofile(tmp_path / f"{side}.i64")
        trials[side] = Trial(seq=0, point=point, trial=0, status="ok", calls=2000, samples_file=f"{side}.i64",
                             slice_p50s_ns=tuple(float(np.median(p)) for p in pieces), slice_sizes=(250,) * 8)
    known, base = (slice_values([trials[s]], slice_samples([trials[s]], tmp_path))
                   for s in ("c-socket-delay@2000", "c-socket"))
    at_fast_end = [known[k] - base[k] for k in sorted(base)]
    by_p50 = [o - b for o, b in zip(trials["c-socket-delay@2000"].slice_p50s_ns, trials["c-socket"].slice_p50s_ns)]
    assert max(abs(d - 2_000) for d in at_fast_end) < 100, at_fast_end
    assert min(by_p50) < 1_500  # what the p50s did: the slow path in more than half of some slices' calls
    c = trials["c-socket"]
    for other in (c.point.replace(placement="split-core"), c.point.replace(mode="oneway"),
                  c.point.replace(clients=4)):
        moved = c.replace(point=other)
        assert list(slice_values([moved], slice_samples([moved], tmp_path)).values()) == list(c.slice_p50s_ns), other
    assert list(slice_values([c]).values()) == list(c.slice_p50s_ns)  # without its calls
