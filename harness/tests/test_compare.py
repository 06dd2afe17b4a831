"""The stopping rule and `orbench compare` on two real small runs (omniORB and the C socket baseline)."""

import dataclasses
import json

import numpy as np
import pytest
from orbench.results.point import Point
from orbench.results.store import RunStore
from orbench.stats.launches import LaunchValue, over_launches
from orbench.summary.compare import OVER_LAUNCHES_TEST, OVER_RUNS_TEST, compare_summaries, format_comparison
from orbench.summary.model import (
    Latency,
    MachineLoad,
    OrbAdded,
    PointSummary,
    RunSummary,
    TrialInterval,
    TrialP50s,
)
from orbench.summary.run_to_run import EarlierValue, over_runs
from orbench.summary.summary import read_summary

from tests.conftest import require_targets, run_cli

TWO_RUNS = """
name = "{name}"
targets = ["omniorb", "c-socket"]
modes = ["twoway"]
payload_bytes = [1, 4096]
trials = 3
calls = 1000
warmup = 1000
target_ci_pct = {target}
max_trials = {most}
"""


def test_stopping_rule_and_compare_on_two_real_runs(write_campaign, results_root, tmp_path):
    require_targets("omniorb", "c-socket")
    # An unreachable target ends every point at max_trials; a 100% target by "ci", at or soon after the minimum.
    errs = {}
    for name, target, most in (("cmp-a", 0.0001, 4), ("cmp-b", 100, 10)):
        code, _out, errs[name] = run_cli("run", str(write_campaign(TWO_RUNS.format(name=name, target=target, most=most),
                                                                   f"{name}.toml")), "--no-report")
        assert code == 0, errs[name]
    assert errs["cmp-a"].splitlines()[-1].startswith("warning:")  # warnings are the last thing a run prints
    a, b = (read_summary(RunStore((results_root / name / "latest").resolve())) for name in ("cmp-a", "cmp-b"))
    assert a is not None and b is not None
    assert {p.stopping.reason for p in a.points} == {"max_trials"}
    assert all(p.trials_ok == 4 and p.stopping.trials == 4 for p in a.points)
    assert any("ended by max_trials" in w for w in a.warnings)
    # A 100% target is met at the minimum of 3 trials, or (trial p50s on a small VM differ by 20% and more now
    # and then, and t on 2 degrees of freedom is 4.3) a round or two later: never at max_trials.
    assert {p.stopping.reason for p in b.points} == {"ci"}
    assert all(3 <= p.trials_ok == p.stopping.trials < 10 for p in b.points)
    for p in a.points:
        ci = p.p50_ci95_ns
        assert ci.low <= ci.estimate <= ci.high and ci.trials == 4

    out_json = tmp_path / "cmp.json"
    code, out, err = run_cli("compare", str(results_root / "cmp-a" / "latest"), str(results_root / "cmp-b"),
                             "--json", str(out_json))
    assert code == 0, err
    result = json.loads(out_json.read_text())
    assert len(result["points"]) == 4 and "4 common point(s)" in out
    assert {(r["target"], r["payload_bytes"]) for r in result["points"]} == \
        {("omniorb", 1), ("omniorb", 4096), ("c-socket", 1), ("c-socket", 4096)}
    assert all("orb_added" in r for r in result["points"] if r["target"] == "omniorb")
    # A run compared with itself has no change to flag.
    code, out, _ = run_cli("compare", str(results_root / "cmp-a"), str(results_root / "cmp-a"))
    assert code == 0 and "0 change(s) flagged" in out


def point(target, kind, p50s, per_pair=None, **dims):
    """A point summary with the figures compare reads: its trial p50s and, for an ORB, its paired differences."""
    where = Point(placement="same-core", mode="twoway", payload_type="octets", payload_bytes=1, target=target, **dims)
    added = None if per_pair is None else OrbAdded(
        baseline="c-socket", estimate=sum(per_pair) / len(per_pair), ci95_low=min(per_pair), ci95_high=max(per_pair),
        per_pair=tuple(per_pair))
    return PointSummary(
        point=where, kind=kind, latency_ns=Latency(p50=p50s[0], p90=max(p50s), p99=max(p50s), min=min(p50s),
                                                  max=max(p50s), mean=sum(p50s) / len(p50s), stdev=0.0, count=len(p50s)),
        p50_ci95_ns=TrialInterval(estimate=sum(p50s) / len(p50s), low=min(p50s), high=max(p50s)),
        trial_p50_ns=TrialP50s(tuple(p50s), None), orb_added_latency_ns=added)


def run(run_id, points, foreign_cpu_pct=None):
    return RunSummary(schema_version=0, campaign=None, run_id=run_id, status="finished", units="ns",
                      points=tuple(points), equivalence=(), machine=MachineLoad(foreign_cpu_pct, None),
                      known_answer_fits=(), warnings_detail=())


def trials(center, n=20, seed=0):
    rng = np.random.default_rng(seed)
    return (center * np.exp(rng.normal(0, 0.02, n))).tolist()


def test_drift_is_no_change_and_a_change_beyond_it_is_flagged():
    # Run B: the machine is 20% slower (both baselines), omniorb moved with it, jacorb 40% (beyond the drift);
    # jacorb's ORB-added latency rose by 0.5 us, omniorb's did not move.
    a = run("a", [
        point("c-socket", "socket", trials(15_000, seed=1)), point("java-socket", "socket", trials(25_000, seed=2)),
        point("omniorb", "orb", trials(17_000, seed=3), trials(2_000, seed=4)),
        point("jacorb", "orb", trials(45_000, seed=5), trials(2_000, seed=6)),
        point("gone", "orb", trials(1_000, seed=7))])
    b = run("b", [
        point("c-socket", "socket", trials(18_000, seed=11)), point("java-socket", "socket", trials(30_000, seed=12)),
        point("omniorb", "orb", trials(20_400, seed=13), trials(2_000, seed=14)),
        point("jacorb", "orb", trials(63_000, seed=15), trials(2_500, seed=16))])
    result = compare_summaries(a, b)
    assert result["drift"][0]["drift_pct"] == pytest.approx(20, abs=1.5)
    by = {r["target"]: r for r in result["points"]}
    assert by["c-socket"]["p50"]["flag"] is None and by["java-socket"]["p50"]["flag"] is None
    assert by["omniorb"]["p50"]["flag"] is None and by["omniorb"]["orb_added"]["flag"] is None
    assert by["omniorb"]["p50"]["change_pct"] == pytest.approx(20, abs=2)  # moved, but only with the machine
    # jacorb's own change is its ORB-added latency; its p50 move beyond the drift is shown, not tested again.
    assert by["jacorb"]["p50"]["beyond_drift_pct"] == pytest.approx(16.7, abs=2)  # 1.4 / 1.2
    assert by["jacorb"]["p50"]["flag"] is None and by["jacorb"]["p50"]["untested"]
    assert by["jacorb"]["orb_added"]["flag"] == "slower"
    assert by["jacorb"]["orb_added"]["change_ns"] == pytest.approx(500, abs=30)
    # Two baselines: their moves are the drift, neither is tested against the other.
    assert "fewer than three" in by["c-socket"]["p50"]["untested"]
    assert result["only_in_a"] == ["same-core twoway 1 B gone"]
    assert result["flagged"] == 1 and result["flagged_rows"] == 1
    text = format_comparison(result)
    assert "machine drift same-core twoway: the socket baselines moved +20.5% (median over 1 point groups" in text
    assert "Benjamini-Hochberg" in text and "1 row(s)" in text


def test_a_baseline_that_moved_apart_from_the_others_is_flagged():
    # Three socket targets: the machine is 10% slower for two, java-nio 30% (its own change on top).
    a = run("a", [point(t, "socket", trials(20_000, seed=i)) for i, t in
                                   enumerate(("c-socket", "java-socket", "java-nio"))])
    b = run("b", [point("c-socket", "socket", trials(22_000, seed=11)),
                                   point("java-socket", "socket", trials(22_000, seed=12)),
                                   point("java-nio", "socket", trials(26_000, seed=13))])
    by = {r["target"]: r["p50"] for r in compare_summaries(a, b)["points"]}
    assert by["java-nio"]["flag"] == "slower" and by["java-nio"]["beyond_drift_pct"] == pytest.approx(18, abs=3)
    assert by["c-socket"]["flag"] is None and by["java-socket"]["flag"] is None


def test_a_busy_run_is_named_in_the_comparison():
    a = run("a", [point("c-socket", "socket", trials(15_000))], foreign_cpu_pct=80.0)
    b = run("b", [point("c-socket", "socket", trials(15_000))], foreign_cpu_pct=1.0)
    result = compare_summaries(a, b)
    assert len(result["warnings"]) == 1 and result["warnings"][0].startswith("run A shared the machine: other "
                                                                             "processes used 80%")


def test_a_change_smaller_than_two_runs_differ_is_not_flagged():
    a = run("a", [point("omniorb", "orb", trials(17_000, n=60, seed=1), trials(2_000, n=60, seed=2))])
    b = run("b", [point("omniorb", "orb", trials(17_200, n=60, seed=3), trials(2_040, n=60, seed=4))])
    row = compare_summaries(a, b)["points"][0]
    # +40 ns (2%): significant with 60 trials a side, but below 50 ns and 2.5%
    assert row["orb_added"]["significant"] and row["orb_added"]["flag"] is None


def test_a_known_change_of_the_known_answer_is_reported():
    # Run A: the calibration server spins 2 us per call; run B: 2.5 us. The two instances compare as one row,
    # and the ORB-added latency moved by +0.5 us.
    a = run("a", [point("c-socket", "socket", trials(15_000, seed=1)),
                                   point("c-socket-delay@2000", "known-answer", trials(17_000, seed=2),
                                         (2000 + np.random.default_rng(3).normal(0, 150, 30)).tolist())])
    b = run("b", [point("c-socket", "socket", trials(15_000, seed=4)),
                                   point("c-socket-delay@2500", "known-answer", trials(17_500, seed=5),
                                         (2500 + np.random.default_rng(6).normal(0, 150, 30)).tolist())])
    result = compare_summaries(a, b)
    assert result["only_in_a"] == [] and result["only_in_b"] == []
    row = next(r for r in result["points"] if r["target"].startswith("c-socket-delay"))
    assert row["target"] == "c-socket-delay@2000 / 2500"
    assert row["orb_added"]["change_ns"] == pytest.approx(500, abs=100)
    assert row["orb_added"]["flag"] == "slower"
    assert "+547 ns [440 ns, 622 ns]  SLOWER" in format_comparison(result)


def test_points_of_other_loads_host_pairs_and_option_sets_are_never_compared_as_one():
    """Keyed by the whole point: the same target and payload at another load, host pair or option set is
    another row (keyed by placement, mode, payload and target only, these 4 points became 1 row)."""
    dims = [{}, {"clients": 2}, {"rate_hz": 1000.0}, {"host_pair": "alpha--beta"}, {"options": "tcp_nodelay=false"}]
    a = run("a", [point("x", "socket", trials(10_000, seed=i), **d) for i, d in enumerate(dims)])
    b = run("b", [point("x", "socket", trials(10_000 + 1000 * i, seed=9 + i), **d) for i, d in enumerate(dims)])
    result = compare_summaries(a, b)
    assert len(result["points"]) == len(dims) and not result["only_in_a"]
    for i, row in enumerate(result["points"]):
        assert row["p50"]["b"]["estimate"] == pytest.approx(10_000 + 1000 * i, rel=0.02)
        assert {k: row[k] for k in dims[i]} == dims[i]


def _simulated_runs(truth: float, count: int, rng) -> list[OrbAdded]:
    """Runs of six launches (launch values 100 ns apart, run offsets of 20 ns), each pooled with the ten before it
    on the same host (summary/run_to_run.py), as a results directory of one campaign would hold them."""
    runs = []
    for _ in range(count):
        offset = 20.0 * rng.standard_normal()
        values = {k: [truth + offset + 100.0 * rng.standard_normal()] for k in range(6)}
        lv = over_launches(values)
        half = (lv["ci95_high"] - lv["ci95_low"]) / 2
        runs.append(OrbAdded(baseline="c-socket", estimate=lv["estimate"], ci95_low=lv["estimate"] - half,
                             ci95_high=lv["estimate"] + half, se_ns=lv["se"], se_df=lv["df"],
                             launches=tuple(LaunchValue(k, v[0], 1) for k, v in values.items())))
    history = [EarlierValue(str(i), r.estimate, r.se_ns, r.se_df) for i, r in enumerate(runs)]
    return [over_runs(r, history[i - 10:i]) for i, r in enumerate(runs) if i >= 10]


ROWS = 12  # sizes of one comparison: a row is tested among as many others, as in quick
PAIRS = 30


def _compared(a: list[OrbAdded], b: list[OrbAdded], delays: tuple[int, int]) -> list[dict]:
    """Two runs of the known-answer server at ROWS sizes, each row with its own simulated ORB-added latency: the
    comparison's ORB-added rows by size."""
    def summary(rows: list[OrbAdded], delay: int) -> RunSummary:
        points = []
        for size, added in enumerate(rows, start=1):
            for target, kind, added_here in (("c-socket", "socket", None),
                                             (f"c-socket-delay@{delay}", "known-answer", added)):
                p = point(target, kind, trials(15_000 + (delay if added_here else 0)))
                points.append(dataclasses.replace(p, point=dataclasses.replace(p.point, payload_bytes=size),
                                                  orb_added_latency_ns=added_here))
        return run(str(delay), points)
    rows = compare_summaries(summary(a, delays[0]), summary(b, delays[1]))["points"]
    return [r["orb_added"] for r in sorted((r for r in rows if r.get("orb_added")), key=lambda r: r["payload_bytes"])]


def test_runs_with_earlier_runs_are_judged_over_runs_and_find_a_known_change_more_often():
    """Six launches' own standard error has 3 degrees of freedom (Yuen's, trimmed); where earlier runs on the host
    set a run's interval, a row is tested with the runs' pooled standard error and tau on their summed degrees
    of freedom. On simulated runs with a known answer, one row of twelve moving from 2000 to 2200 ns: the change
    is found more often, identical runs are flagged no more often than the false discovery rate allows, and the
    row's MDE is smaller."""
    rng = np.random.default_rng(11)
    same = [_simulated_runs(2000, 10 + PAIRS, rng) for _ in range(ROWS)]
    moved = [_simulated_runs(2200, 10 + PAIRS, rng)] + [_simulated_runs(2000, 10 + PAIRS, rng) for _ in range(ROWS - 1)]
    by_runs, by_launches, a_a = [], [], []
    for k in range(PAIRS):
        a, b = [row[k] for row in same], [row[k] for row in moved]
        by_runs.append(_compared(a, b, (2000, 2200)))
        by_launches.append(_compared([x.replace(run_to_run=None) for x in a], [x.replace(run_to_run=None) for x in b],
                                     (2000, 2200)))
        if k % 2:
            a_a.append(_compared([row[k - 1] for row in same], a, (2000, 2000)))
    # A run whose launches happened to spread beyond its earlier runs' (run_to_run.unlike_earlier, p < 0.01) keeps
    # its own test; nearly every row is tested over runs.
    tests = [r["test"] for c in by_runs for r in c]
    assert set(tests) <= {OVER_RUNS_TEST, OVER_LAUNCHES_TEST} and tests.count(OVER_RUNS_TEST) >= 0.9 * len(tests)
    assert by_runs[0][0]["test"] == OVER_RUNS_TEST
    assert {r["test"] for c in by_launches for r in c} == {OVER_LAUNCHES_TEST}
    assert by_runs[0][0]["df"] > 20  # the runs' summed degrees of freedom, not 3 a side
    found = [sum(bool(c[0]["flag"]) for c in compared) for compared in (by_runs, by_launches)]
    assert found[0] > found[1], found
    mde = [np.median([c[0]["mde_ns"] for c in compared]) for compared in (by_runs, by_launches)]
    assert mde[0] < 0.85 * mde[1], mde
    # Of the rows that did not move (eleven a comparison, and every row of the A/A pairs) at most 1% flagged.
    false = sum(bool(r["flag"]) for c in by_runs for r in c[1:]) + sum(bool(r["flag"]) for c in a_a for r in c)
    assert false <= 0.01 * PAIRS * (ROWS - 1 + ROWS / 2), false
