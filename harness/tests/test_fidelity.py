"""`orbench fidelity`: a real short run of the rows (orbench's c-socket against sockperf and the plain C ping-pong,
twoway and oneway, java-socket and python-socket against the plain Java and Python ones, its omniORB worker against the bare omniORB loop), and
the report section on it and on a run from before the omniORB row."""

from __future__ import annotations

import json
import random
import shutil
import time

import pytest
from orbench.errors import UserError
from orbench.hosts.placement import resolve
from orbench.paths import repo_root
from orbench.results.store import RunStore
from orbench.running.fidelity import (
    EXTRA_BATCH,
    GOAL_RATIO,
    Design,
    _extend,
    _row,
    _RowRun,
    _take_turns,
    at_goal,
    cell_counts,
    decided,
    format_result,
    format_stability,
    run_fidelity,
    stability,
    verdict,
)
from orbench.running.fidelity_references import SOCKPERF_FIRST_TURN_S, SOCKPERF_MAX_BYTES, ReferenceRun, Sockperf
from orbench_plots.section_fidelity import section

from tests.conftest import missing, require_targets


def require_references() -> None:
    absent = [what for what, ok in (("sockperf", shutil.which("sockperf")),
                                     ("orbench-omniorb-loop", (repo_root() / "cpp/build/orbench-omniorb-loop").is_file()),
                                     ("orbench-c-pingpong", (repo_root() / "cpp/build/orbench-c-pingpong").is_file()))
               if not ok]
    if absent:
        missing(f"{absent} (make deps cpp)")


# How far orbench's figure may be from a reference's before the test calls it wrong. A twoway call, the same calls
# on the same CPU measured twice, is far off only if a side measured something else (a round trip against half of
# one, the wrong payload, a reference that did not run). A oneway call's time is how soon the socket buffer takes
# it, which other processes' load moves (a mean ratio of 2.52 and a p50 ratio of 3.01 beside two other test
# processes): its bound catches a unit or a count gone wrong (a factor of 1000, or of the calls).
TWOWAY_BOUNDS = (0.4, 2.5)
ONEWAY_BOUNDS = (0.2, 5)

ROWS = ("sockperf", "c-pingpong", "c-pingpong-oneway", "java-pingpong", "python-pingpong", "omniorb-loop",
        "omniorb-loop-oneway")


@pytest.mark.slow  # a small fidelity experiment
def test_every_row_pairs_every_trial_with_a_reference_run(tmp_path):
    require_targets("c-socket", "omniorb", "java-socket", "python-socket")
    require_references()
    store, result = run_fidelity([16, 1024], pairs=6, slices=2, calls=300, warmup=500, rewarm=100,
                                 root=tmp_path, rows=ROWS, slice_calls=150, max_pairs=6)

    assert json.loads((store.path / "fidelity.json").read_text()) == json.loads(json.dumps(result, default=str))
    assert (tmp_path / "fidelity" / "latest").resolve() == store.path
    comps = {c["reference"]: c for c in result["comparisons"]}
    assert set(comps) == set(ROWS) and not result["missing"]
    assert len(result["launch_order"]) == 6 and all(
        sorted(order) == sorted(f"{name} (same-core)" for name in ROWS) for order in result["launch_order"])
    assert comps["sockperf"]["halved"] and not any(comps[name]["halved"] for name in ROWS[1:])
    # Oneway: the receiver's throughput on both sides, a real rate (16 B messages: far above 1000/s).
    # And the mean time per call, orbench's trial against the reference's slices inside it.
    for name in ("c-pingpong-oneway", "omniorb-loop-oneway"):
        for oneway in comps[name]["rows"]:
            assert oneway["orbench_throughput_msgs_per_s"] > 1000 and oneway["reference_throughput_msgs_per_s"] > 1000
            low, high = ONEWAY_BOUNDS
            assert low < oneway["mean_ratio"] < high and oneway["mean_verdict"] in ("within", "beyond", "unresolved")
            assert oneway["mean_ratio_ci"][0] <= oneway["mean_ratio"] <= oneway["mean_ratio_ci"][1]
    assert all("mean_ratio" not in row for row in comps["c-pingpong"]["rows"])
    for name, comp in comps.items():
        slices = 2  # sockperf too: a client stopped between its turns
        assert comp["slices"] == slices, name
        # A sliced row pairs `slices` trials per size and launch; its first launch has one more at a size, which
        # reads the anatomy, whole and unpaired.
        paired = 6 * slices
        for row in comp["rows"]:
            assert row["pairs"] == 6 and row["slices"] == paired, name
            assert len(row["launch_ratios"]) == 6, name
            assert all(v > 0 for v in row["orbench_trials_p50_ns"] + row["reference_runs_p50_ns"]), name
            low, high = ONEWAY_BOUNDS if name.endswith("-oneway") else TWOWAY_BOUNDS
            assert low < row["ratio"] < high, (name, row)
            assert row["ratio_ci"][0] <= row["ratio"] <= row["ratio_ci"][1], name
            assert row["verdict"] in ("within", "beyond", "unresolved"), name
        # The rows take turns: a campaign run per launch, fresh processes in each, and one more trial per size
        # and launch than `slices` in a sliced row.
        runs = [RunStore(store.path / r) for r in comp["runs"]]
        assert len(runs) == 6 and runs[0].path == store.path / comp["run"], name
        assert all({t.launch for t in run.read_trials()} == {0} for run in runs), name
        trials = [t for run in runs for t in run.read_trials() if t.ok]
        sizes = len(comp["rows"])
        assert len(trials) == (6 * slices + 1) * sizes, name
        sliced = [t for t in trials if t.slice_p50s_ns]
        assert len(sliced) == paired * sizes, name
        assert all(len(t.slice_p50s_ns) == 2 for t in sliced), name
    # sockperf: a client per size and launch, interrupted at the launch's end, each with its figures.
    log = (store.logs_dir / "sockperf.log").read_text()
    assert log.count("sockperf ping-pong") == log.count("percentile 50.000") == 6 * 2, log[-2000:]
    for name in ("omniorb-loop", "omniorb-loop-oneway", "c-pingpong", "java-pingpong", "python-pingpong"):
        samples = sorted((store.samples_dir / name).glob("*.i64"))
        # A reference's two slices inside each paired trial (6 x 2) at 2 sizes.
        assert len(samples) == 6 * 2 * 2 * 2, name
        # Each slice ran the calls asked at its own size: a reference kept one connection across sizes.
        assert all(p.stat().st_size == 150 * 8 for p in samples), name
    assert "percentile 50.000" in (store.logs_dir / "sockperf.log").read_text()

    html = section(store.path)
    assert "c-socket echo vs sockperf" in html and "omniorb twoway vs omniorb-loop" in html
    assert "c-socket oneway vs c-pingpong-oneway" in html and "java-socket twoway vs java-pingpong" in html
    cells = result["cells"]
    assert cells["cells"] == sum(len(c["rows"]) for c in result["comparisons"]) and cells["batches"] == 0
    assert cells["within"] + cells["beyond"] + cells["open"] == cells["cells"]
    assert f"{cells['cells']} cells: {cells['within']} within the goal" in html
    assert f"{cells['cells']} cells: {cells['within']} within" in format_result(result)


def test_unknown_row_is_refused_before_anything_runs(tmp_path):
    with pytest.raises(UserError, match="unknown fidelity row 'sockpref'"):
        run_fidelity([16], rows=("sockpref",), root=tmp_path)
    # Fewer calls than two slices of two 25-call blocks each: no way to alternate.
    with pytest.raises(UserError, match="--slice-calls 300 leaves 90 calls one slice"):
        run_fidelity([16], rows=("c-pingpong",), root=tmp_path, calls=90, slice_calls=300)
    assert not (tmp_path / "fidelity").exists()


def test_section_reads_a_run_from_before_the_omniorb_row(tmp_path):
    old = {"placement": "same-core", "rows": [
        {"payload_bytes": 16, "sockperf_msg_bytes": 28, "pairs": 5, "orbench_half_rtt_p50_ns": 7980.0,
         "sockperf_half_rtt_p50_ns": 7240.0, "ratio_orbench_over_sockperf": 1.17, "ratio_range": [0.97, 1.38]}]}
    (tmp_path / "fidelity.json").write_text(json.dumps(old))
    html = section(tmp_path)
    assert "c-socket echo vs sockperf" in html and "7.98" in html and "1.170" in html and "0.970 – 1.380" in html


def test_a_oneway_row_judges_the_mean_as_well_as_the_p50():
    # Six launches of two slices: p50s 10% apart everywhere, means equal but for one launch.
    ref = ReferenceRun(p50_ns=1000.0, observations=300, loadavg_1m=0.1, mean_ns=2000.0)
    launches = {k: [(1100.0, ref), (1100.0, ref)] for k in range(6)}
    means = {k: [(2000.0 * (1.5 if k == 0 else 1.0), 2000.0)] * 2 for k in range(6)}
    row = _row(16, launches, means=means)
    assert row["ratio"] == pytest.approx(1.1) and row["verdict"] == "beyond"
    assert row["mean_ratio"] == pytest.approx(1.0) and row["mean_ratio_range"] == pytest.approx([1.0, 1.5])
    assert row["mean_verdict"] in ("within", "unresolved")
    assert "mean 1.000" in format_result({"goal_ratio": GOAL_RATIO, "comparisons": [
        {"target": "c-socket", "mode": "oneway", "reference": "c-pingpong-oneway", "what": "", "halved": False,
         "slices": 2, "rows": [row]}]})
    assert "mean_ratio" not in _row(16, launches)


def test_verdict_reads_the_interval_against_the_goal():
    assert verdict(0.99, GOAL_RATIO) == "within"
    assert verdict(GOAL_RATIO + 0.001, 1.2) == "beyond"
    assert verdict(1.01, 1.05) == "unresolved"
    assert verdict(None, None) == "unresolved"
    # Far under 1: the reference is slower than orbench making the same calls, which says the reference is off.
    assert verdict(0.17, 0.20) == "below" and verdict(0.85, 0.95) == "within"
    rows = [{"ratio": 0.2, "verdict": "below"}, {"ratio": 1.0, "verdict": "within"},
            {"ratio": 0.3, "verdict": "below", "mean_verdict": "within"}, {"ratio": 1.1, "verdict": "unresolved"}]
    assert cell_counts([{"rows": rows}], []) == {"cells": 4, "within": 2, "beyond": 0, "below": 1, "open": 1,
                                                 "batches": 0, "extended": 0}


@pytest.mark.slow  # two placements of one row
def test_each_placement_is_a_row_of_its_own(tmp_path):
    """And with awake_cpus, every CPU either placement pins a worker to is kept awake, and the result says so."""
    require_targets("c-socket")
    require_references()
    store, result = run_fidelity([16], placement=["same-core", "split-core"], pairs=3, slices=2, calls=300,
                                 warmup=300, root=tmp_path, rows=("c-pingpong",), awake_cpus=True, slice_calls=150,
                                 max_pairs=3)
    pinned = [resolve(p) for p in ("same-core", "split-core")]
    assert result["awake_cpus"]["cpus"] == sorted(set().union(*(p.cpus("server") | p.cpus("client") for p in pinned)))
    assert "kept awake" in format_result(result)
    assert result["placements"] == ["same-core", "split-core"]
    assert [(c["reference"], c["placement"]) for c in result["comparisons"]] == [
        ("c-pingpong", "same-core"), ("c-pingpong", "split-core")]
    runs = {c["run"] for c in result["comparisons"]}
    assert len(runs) == 2 and all((store.path / r).is_dir() for r in runs)
    page = section(store.path)
    assert "(same-core)" in page and "(split-core)" in page


@pytest.mark.slow  # a sockperf client takes 2 s to begin its test
def test_a_sockperf_client_runs_only_in_its_turns(tmp_path):
    """A sockperf client stopped between its turns: what it measured is its turns' calls, not the 1.5 s it spent
    stopped between them (a client that ran on through them would make about ten times as many). The clients of
    the other sizes, given no turn, measured nothing: their warm-ups, run while the others start, are left out."""
    if shutil.which("sockperf") is None:
        missing("sockperf (make deps)")
    ref = Sockperf(resolve("same-core"), "127.0.0.1", tmp_path)
    ref.at_sizes([1, 16, 128])
    ref.start()
    try:
        turns = ref.turns(16, 0, 0, 0)
        idle = [ref.turns(size, 0, 0, 0) for size in (1, 128)]
        for k in range(15):
            time.sleep(0.1)
            turns.run_slice(k, 500, 0)  # no time per call known: SOCKPERF_FIRST_TURN_S
    finally:
        ref.stop()
    assert all(t.result() is None or t.result().observations == 0 for t in idle), (
        [t.result() for t in idle], (tmp_path / "sockperf.log").read_text())
    got = turns.result()
    assert got is not None and got.observations > 0, (tmp_path / "sockperf.log").read_text()
    ran_s = 15 * SOCKPERF_FIRST_TURN_S
    round_trip_s = 2 * got.p50_ns / 1e9  # sockperf's p50 is half a round trip
    assert got.observations < 3 * ran_s / round_trip_s, (got, (tmp_path / "sockperf.log").read_text())


@pytest.mark.slow  # a sockperf client takes 2 s to begin its test
def test_the_sockperf_row_measures_64_kib_at_sockperfs_largest_message(tmp_path):
    """sockperf takes messages up to 65,507 B, so 64 KiB (65,554 B with its 18 bytes, which it refuses) is measured
    at 65,489 B on both sides, and a size far beyond is left out; the largest then runs, turns and all."""
    if shutil.which("sockperf") is None:
        missing("sockperf (make deps)")
    ref = Sockperf(resolve("same-core"), "127.0.0.1", tmp_path)
    assert ref.at_sizes([1, 65536, 65489, 131072]) == [1, SOCKPERF_MAX_BYTES] == [1, 65489]
    assert ref.at_sizes([SOCKPERF_MAX_BYTES]) == [SOCKPERF_MAX_BYTES]  # a later run at the row's own sizes
    ref.start()
    try:
        turns = ref.turns(SOCKPERF_MAX_BYTES, 0, 0, 0)
        for k in range(5):
            time.sleep(0.1)
            turns.run_slice(k, 500, 0)
    finally:
        ref.stop()
    got = turns.result()
    assert got is not None and got.observations > 0, (tmp_path / "sockperf.log").read_text()[-2000:]


@pytest.mark.slow  # a row's launches at one size, then three more
def test_more_launches_count_on_from_the_first_run(tmp_path):
    """A row run again at a size gets launches numbered on from its first run's (fresh processes, no anatomy
    trial), and the size's interval is over all of them: at 9 launches the second-smallest and second-largest."""
    require_targets("c-socket")
    require_references()
    store = RunStore.create("fidelity", tmp_path)
    design = Design(pairs=6, slices=2, calls=300, warmup=300, jvm_warmup=300, rewarm=100, slice_calls=150,
                    slice_rewarm=20)
    row = _RowRun("c-pingpong", store, resolve("same-core"), "same-core", design)
    row.run([16, 1024], 6)
    row.run([16], EXTRA_BATCH)
    cells = {r["payload_bytes"]: r for r in row.rows()}
    assert cells[16]["pairs"] == 9 and cells[1024]["pairs"] == 6
    ratios = sorted(cells[16]["launch_ratios"])
    assert len(ratios) == 9 and cells[16]["ratio_ci"] == pytest.approx([ratios[1], ratios[7]])
    first, more = (RunStore(run.path) for run in row.runs)
    assert {t.launch for t in first.read_trials()} == set(range(6))
    extra = [t for t in more.read_trials() if t.ok]
    # Three launches of `slices` paired trials at the one size: no anatomy trial, every trial paired.
    assert {t.launch for t in extra} == {0, 1, 2} and len(extra) == 3 * 2 and all(t.slice_p50s_ns for t in extra)
    assert 'anatomy = "off"' in (store.path / "c-pingpong-run2.toml").read_text()
    assert sorted(p.name for p in (store.samples_dir / "c-pingpong").glob("*16B-l8-*")) == [
        "c-pingpong-16B-l8-t0-s0.i64", "c-pingpong-16B-l8-t0-s1.i64",
        "c-pingpong-16B-l8-t1-s0.i64", "c-pingpong-16B-l8-t1-s1.i64"]
    assert row.result()["runs"] == [str(r.path.relative_to(store.path)) for r in row.runs]


class _Open:
    """A row for _extend's schedule alone: its cells open until they have `settle` launches."""

    def __init__(self, name: str, sizes: list[int], seconds: float, settle: int, log: list, now: list | None = None):
        self.name, self.placement, self.seconds, self.settle, self.log = name, "same-core", seconds, settle, log
        self.launches = dict.fromkeys(sizes, 6)
        self.now = now if now is not None else [0.0]  # the schedule's clock, which a launch moves on

    def undecided(self, max_pairs: int) -> list[int]:
        return [s for s, n in self.launches.items() if n < self.settle and n + EXTRA_BATCH <= max_pairs]

    def seconds_per_size_launch(self) -> float:
        return self.seconds

    def run(self, sizes: list[int], launches: int) -> None:
        self.log.extend([(self.name, tuple(sizes))] * launches)
        self.now[0] += self.seconds * len(sizes) * launches
        for s in sizes:
            self.launches[s] += launches


def test_more_launches_go_to_open_cells_cheapest_first_within_the_time():
    log: list = []
    now = [0.0]
    cheap, dear = _Open("cheap", [1, 16], 1.0, 9, log), _Open("dear", [1], 10.0, 12, log)
    batches = _extend([dear, cheap], max_pairs=12, deadline=None, clock=lambda: now[0], rng=random.Random(1))
    assert [b["reference"] for b in batches] == ["cheap", "dear", "dear"]
    assert [b["estimated_s"] for b in batches] == [6.0, 30.0, 30.0]
    # The first pass's rows take turns a launch at a time; the second pass has the dear row alone.
    assert sorted(log[:6]) == [("cheap", (1, 16))] * 3 + [("dear", (1,))] * 3
    assert all({log[i][0], log[i + 1][0]} == {"cheap", "dear"} for i in (0, 2, 4))
    assert log[6:] == [("dear", (1,))] * 3
    # A deadline the dear row's batch would pass: the cheap row's still runs, the dear one's does not.
    log.clear()
    cheap, dear = _Open("cheap", [1, 16], 1.0, 9, log), _Open("dear", [1], 10.0, 12, log)
    assert len(_extend([dear, cheap], max_pairs=12, deadline=20.0, clock=lambda: now[0])) == 1
    assert log == [("cheap", (1, 16))] * 3
    # Two batches that each fit but not together: the cheaper one only.
    log.clear()
    now[0] = 0.0
    cheap, dear = _Open("cheap", [1, 16], 1.0, 9, log, now), _Open("dear", [1], 10.0, 12, log, now)
    assert [b["reference"] for b in _extend([dear, cheap], max_pairs=12, deadline=31.0,
                                             clock=lambda: now[0])] == ["cheap"]
    assert now[0] == 6.0
    # No more than max_pairs launches, however open a cell stays.
    log.clear()
    _extend([_Open("open", [1], 1.0, 99, log)], max_pairs=11, deadline=None, clock=lambda: now[0])
    assert log == [("open", (1,))] * 3


def test_rows_take_turns_in_a_fresh_order_each_round():
    log: list = []
    rows = [(_Open(name, [1], 1.0, 99, log), [1]) for name in ("a", "b", "c", "d")]
    rng = random.Random(7)
    orders = [_take_turns(rows, rng) for _ in range(6)]
    assert [name for name, _ in log] == [o.split(" ")[0] for order in orders for o in order]
    assert all(sorted(o.split(" ")[0] for o in order) == ["a", "b", "c", "d"] for order in orders)
    assert len({tuple(order) for order in orders}) > 1


def test_two_runs_tell_decided_stable_and_unstable_cells_apart():
    def run(rows):
        return {"run_dir": "/r/x", "placement": "same-core", "comparisons": [
            {"reference": "c-pingpong", "mode": "twoway", "placement": "same-core", "rows": rows}]}

    def cell(size, ratio, ci):
        return {"payload_bytes": size, "ratio": ratio, "ratio_ci": ci, "verdict": verdict(*ci)}

    a = run([cell(1, 1.00, [0.99, 1.01]), cell(16, 1.030, [1.027, 1.033]), cell(128, 1.01, [1.00, 1.035]),
             cell(4096, 1.01, [0.99, 1.02])])
    b = run([cell(1, 1.00, [0.98, 1.02]), cell(16, 1.031, [1.028, 1.034]), cell(128, 1.05, [1.04, 1.06]),
             cell(4096, 1.05, [1.04, 1.06])])
    status = {c["payload_bytes"]: c["status"] for c in stability(a, b)}
    assert status == {1: "decided", 16: "stable", 128: "unstable", 4096: "contradicted"}
    # Intervals too narrow to hold each other's ratio, the ratios 0.2% apart: stable all the same.
    c = run([cell(16, 1.032, [1.0315, 1.0325])])
    assert [x["status"] for x in stability(a, c)] == ["stable"]
    assert decided(a["comparisons"][0]["rows"][0]) and not decided(a["comparisons"][0]["rows"][1])
    # Open at 1.030 [1.027, 1.033]: more launches would not move it off the goal.
    assert at_goal(a["comparisons"][0]["rows"][1]) and not at_goal(a["comparisons"][0]["rows"][2])
    assert "1 decided alike in both, 1 open but stable" in format_stability(a, b)
    # Within the goal in one run, the reference over 10% slower in the other: both at or under 1.03, alike.
    d, e = run([cell(1, 1.00, [0.99, 1.01])]), run([cell(1, 0.85, [0.82, 0.88])])
    assert [x["status"] for x in stability(d, e)] == ["decided"]
    # A oneway flood whose p50 says 3.8% slower and whose mean 13-15% faster, each steady: its verdict flips with
    # which interval clears the goal first (within by its mean, then beyond by its p50), and no statistic is
    # decided on opposite sides: stable, not contradicted.
    def oneway(ratio, ci, mean, mean_ci):
        return {**cell(1024, ratio, ci), "mean_ratio": mean, "mean_ratio_ci": mean_ci, "mean_verdict": verdict(*mean_ci)}

    f, g = run([oneway(1.038, [1.025, 1.045], 0.870, [0.844, 0.904])]), run([oneway(1.039, [1.038, 1.049], 0.852, [0.840, 0.883])])
    assert [x["status"] for x in stability(f, g)] == ["stable"]
