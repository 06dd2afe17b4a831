"""The run-to-run part of an ORB-added interval (summary/run_to_run.py): its estimate on known values, which
earlier runs count, and on simulated runs with a known run-level variance, that a run's interval pooled over
runs holds another run's estimate where its own interval does not."""

import json
import statistics

import numpy as np
import pytest
from orbench.results.point import Point
from orbench.results.store import RunStore
from orbench.stats.launches import over_launches
from orbench.stats.tdist import quantile
from orbench.summary.model import SUMMARY_VERSION, OrbAdded, PointSummary
from orbench.summary.run_to_run import (
    EARLIER_RUNS_FILE,
    PRIOR_TAU_SHARE,
    SAME_ESTIMATE_FROM,
    EarlierValue,
    gather,
    over_runs,
    read_earlier,
    tau_ns,
    unlike_earlier,
    with_prior,
    with_run_to_run,
)
from orbench.summary.table import interval_over

POINT = Point(placement="same-core", mode="twoway", payload_type="octets", payload_bytes=1, target="omniorb")
HOST = {"hostname": "vm", "cpu_model": "AMD EPYC", "logical_cpus": 2, "kernel": "Linux 6.18"}


def added(estimate: float, se: float, t: float = 2.0, df: int = 3) -> OrbAdded:
    return OrbAdded(baseline="c-socket", estimate=estimate, ci95_low=estimate - t * se,
                    ci95_high=estimate + t * se, ci_method="m", se_ns=se, se_df=df)


def test_tau_is_the_spread_the_standard_errors_leave():
    # Var(0, 10, 20, 30) = 166.67; each se 5 explains 25 of it.
    assert tau_ns([0, 10, 20, 30], [5, 5, 5, 5]) == pytest.approx((166.667 - 25) ** 0.5, rel=1e-4)
    assert tau_ns([0, 1, 2, 3], [5, 5, 5, 5]) == 0.0  # the standard errors explain it all


def test_pooling_needs_three_earlier_runs_and_narrows_only_a_run_like_them():
    run = added(100.0, 10.0)
    two = [EarlierValue("a", 100.0, 10.0, 3), EarlierValue("b", 100.0, 10.0, 3)]
    assert over_runs(run, two) == with_prior(run, 3)  # too few: the prior tau, not theirs
    # Earlier runs of standard error 20 and estimates far apart: pooled se and tau beyond it, t of 12 df.
    earlier = [EarlierValue(r, e, 20.0, 3) for r, e in (("a", 0.0), ("b", 100.0), ("c", 200.0))]
    out = over_runs(run, earlier)
    tau = tau_ns([0, 100, 200, 100], [20, 20, 20, 10])
    pooled = ((3 * 400 + 100) / 4) ** 0.5
    half = quantile(0.975, 12) * (pooled ** 2 + tau ** 2) ** 0.5
    assert (out.ci95_low, out.ci95_high) == (pytest.approx(100 - half), pytest.approx(100 + half))
    assert out.run_to_run.runs == 4 and out.run_to_run.pooled_df == 12 and not out.run_to_run.unlike
    assert out.run_to_run.pooled_se_ns == pytest.approx(pooled, abs=0.05)
    assert (out.run_to_run.within_ci95_low, out.run_to_run.within_ci95_high) == (80.0, 120.0)
    assert "over 4 runs" in out.ci_method
    # A run as precise as earlier runs that agree: its own t of 3 df (3.18) gives way to t of 12 df (2.18).
    t3 = quantile(0.975, 3)
    alike = over_runs(added(100.0, 10.0, t=t3), [EarlierValue(r, e, 10.0, 3) for r, e in zip("abc", (95, 100, 105))])
    half = quantile(0.975, 12) * 10.0
    assert (alike.ci95_low, alike.ci95_high) == (pytest.approx(100 - half), pytest.approx(100 + half))
    assert alike.ci95_high - alike.ci95_low < 2 * t3 * 10.0 and not alike.run_to_run.unlike
    # A run far less precise than the others, which agree (its variance 100x theirs): unlike them, its own
    # interval stands, and the summary says why.
    calm = [EarlierValue(r, 100.0, 1.0, 3) for r in "abc"]
    same = over_runs(run, calm)
    assert (same.ci95_low, same.ci95_high) == (80.0, 120.0) and same.run_to_run.tau_ns == 0.0
    assert same.run_to_run.unlike


def test_a_run_is_unlike_its_earlier_runs_by_an_f_test_of_its_variance():
    earlier = [EarlierValue(r, 100.0, 10.0, 3) for r in "abcdefg"]  # 21 df
    # F(3, 21) at p = 0.01 is 4.87: a variance ratio of 4 is not unlike them, 6 is.
    assert not unlike_earlier(20.0, 3, earlier) and unlike_earlier(10.0 * 6 ** 0.5, 3, earlier)
    assert not unlike_earlier(1.0, 3, earlier)  # a run more precise than they were borrows their variance


def _run(root, name: str, host: dict, campaign: str = "quick", estimate: float = 100.0, se: float = 5.0,
         version: int = SUMMARY_VERSION):
    run = root / campaign / name
    run.mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps({"environment": {"host": host}, "campaign": {"name": campaign}}))
    row = {**POINT.as_record(), "target": POINT.target,
           "orb_added_latency_ns": {"baseline": "c-socket", "estimate": estimate, "se_ns": se, "se_df": 3}}
    (run / "summary.json").write_text(json.dumps({"summary_version": version, "points": [row]}))
    return RunStore(run)


def test_gather_takes_earlier_runs_of_the_campaign_on_this_host(tmp_path):
    for i in range(12):
        _run(tmp_path, f"20261129-1000{i:02d}-vm", HOST, estimate=100.0 + i)
    _run(tmp_path, "20261129-100100-vm", {**HOST, "hostname": "other"})   # another host
    _run(tmp_path, "20261129-100101-vm", HOST, campaign="middleware")     # another campaign (its own directory)
    (tmp_path / "quick" / "20261129-100102-vm").mkdir()                   # no manifest: an unfinished start
    _run(tmp_path, "20261129-100103-vm", HOST, version=SAME_ESTIMATE_FROM - 1)  # its estimates were unscaled
    this = _run(tmp_path, "20261129-110000-vm", HOST)
    _run(tmp_path, "20261129-120000-vm", HOST)                            # later than this run
    data = gather(this)
    assert data["runs"] == [f"20261129-1000{i:02d}-vm" for i in range(2, 12)]  # the last ten
    earlier = read_earlier(this.path)[POINT.slug]
    assert [e.estimate for e in earlier] == [100.0 + i for i in range(2, 12)]
    assert (this.path / EARLIER_RUNS_FILE).is_file()
    assert read_earlier(tmp_path) == {}  # a run without the file
    # The summary's step: the point's interval pooled with those ten (estimates 102-111 ns, se 5), and the table
    # says so.
    run = added(100.0, 1.0).replace(n_launches=6)
    out = with_run_to_run({POINT: PointSummary(point=POINT, orb_added_latency_ns=run)}, this.path)[POINT]
    widest = out.orb_added_latency_ns
    assert widest.ci95_low < 98.0 and widest.run_to_run.runs == 11
    assert interval_over(out) == "6 launches, with 10 earlier runs"


def test_pooled_intervals_cover_the_truth_and_other_runs_estimates():
    # Simulated runs of six launches each (launch sd 60 ns), each run shifted by its own offset (sd 40 ns): the
    # run-level variance no run's launches can see. Each run is pooled with the ten before it.
    rng = np.random.default_rng(7)
    runs = []
    for _ in range(200):
        offset = 40.0 * rng.standard_normal()
        values = {launch: [1500.0 + offset + 60.0 * rng.standard_normal()] for launch in range(6)}
        lv = over_launches(values)
        runs.append(added(lv["estimate"], lv["se"], t=(lv["ci95_high"] - lv["ci95_low"]) / 2 / lv["se"], df=lv["df"]))
    history = [EarlierValue(str(i), r.estimate, r.se_ns, r.se_df) for i, r in enumerate(runs)]
    wide = [over_runs(r, history[i - 10:i]) for i, r in enumerate(runs) if i >= 10]
    own = runs[10:]

    def cover(intervals: list[OrbAdded]) -> float:
        return statistics.fmean(a.ci95_low <= 1500.0 <= a.ci95_high for a in intervals)

    def capture(intervals: list[OrbAdded]) -> float:
        return statistics.fmean(a.ci95_low <= b.estimate <= a.ci95_high
                                for i, a in enumerate(intervals) for j, b in enumerate(own) if i != j)

    assert cover(own) < 0.88 and capture(own) < 0.75  # the launches alone miss the run-level offsets
    # Pooled over runs, the interval is honest: it covers the truth 0.95 of the time, and so holds another run's
    # estimate about as often as honest intervals can (0.83 at a known spread; a little less with tau estimated).
    assert cover(wide) >= 0.93 and capture(wide) >= 0.80


def test_agreement_reads_both_the_pooled_and_the_own_intervals():
    """`orbench agreement` gives cross-run capture by the intervals as the summaries give them and by each run's
    own (its launches alone), so a user sees what pooling with earlier runs did."""
    from types import SimpleNamespace

    from orbench.summary.agreement import Agreement, _added, _capture, format_agreement, target_and_mode

    earlier = [EarlierValue(r, e, 20.0, 3) for r, e in (("a", 0.0), ("b", 100.0), ("c", 200.0))]
    one = over_runs(added(100.0, 10.0), earlier)     # own [80, 120], pooled far wider
    other = added(150.0, 10.0)                     # no earlier runs: its own interval [130, 170]
    runs = [SimpleNamespace(points=[PointSummary(point=POINT, orb_added_latency_ns=a)]) for a in (one, other)]
    pooled_capture = _capture([_added(s) for s in runs], target_and_mode)[("omniorb", "twoway")]
    own_capture = _capture([_added(s, own=True) for s in runs], target_and_mode)[("omniorb", "twoway")]
    assert (pooled_capture.held, pooled_capture.pairs) == (1, 2)  # the pooled one holds 150
    assert (own_capture.held, own_capture.pairs) == (0, 2)          # 150 is outside [80, 120], 100 outside [130, 170]
    text = format_agreement(Agreement(["r1", "r2"], 3, capture={("omniorb", "twoway"): pooled_capture},
                                      own_capture={("omniorb", "twoway"): own_capture}))
    header = next(line for line in text.splitlines() if line.startswith("target"))
    assert header.split()[-2:] == ["own", "held"]
    assert text.splitlines()[-1].split() == ["all", "0.50", "1", "/", "2", "0.00", "0", "/", "2"]


def test_agreement_says_the_honest_capture_at_each_rows_own_launches():
    """A campaign with launches_for (quick: 6 launches of the C++ workers, 3 of the others) expects another
    capture per row: each row gets its launches and the honest rate at them, from its estimates' launches."""
    from types import SimpleNamespace

    from orbench.summary.agreement import Agreement, Capture, _launches, format_agreement, honest_capture

    jacorb = POINT.replace(target="jacorb")
    def run(n: int) -> SimpleNamespace:
        return SimpleNamespace(points=[
            PointSummary(point=POINT, orb_added_latency_ns=added(100.0, 10.0).replace(n_launches=6)),
            PointSummary(point=jacorb, orb_added_latency_ns=added(900.0, 90.0).replace(n_launches=n))])

    runs = [run(3), run(4)]
    launches = _launches(runs)
    assert launches == {("omniorb", "twoway"): 6, ("jacorb", "twoway"): 3}  # the fewest of any run
    rows = {("omniorb", "twoway"): Capture(9, 10), ("jacorb", "twoway"): Capture(8, 10)}
    text = format_agreement(Agreement(["r1", "r2"], 3, row_launches=launches, capture=rows))
    table = {line.split()[0]: line.split() for line in text.splitlines()
             if line.split()[:1] in (["omniorb"], ["jacorb"])}
    assert table["omniorb"][-2:] == [f"{honest_capture(6):.2f}", "6"]
    assert table["jacorb"][-2:] == [f"{honest_capture(3):.2f}", "3"]
    # Every row at the campaign's launches: the one rate in the header, no column.
    text = format_agreement(Agreement(["r1", "r2"], 3, row_launches={k: 3 for k in rows}, capture=rows))
    assert f"about {honest_capture(3):.2f} at 3 launches" in text and "honest " not in text.splitlines()[3]


def test_a_run_with_too_few_runs_on_its_host_carries_the_prior_run_spread():
    """Fewer than MIN_RUNS runs: tau is PRIOR_TAU_SHARE of the estimate, the half-width t(df) sqrt(se^2 + tau^2) with
    Satterthwaite's df for tau taken as known, never narrower than the run's own (then `unlike`, and compare
    tests its launches)."""
    run = added(1000.0, 10.0, t=quantile(0.975, 3))  # own: +-31.8
    out = with_prior(run, 1)
    tau = PRIOR_TAU_SHARE * 1000.0
    df = int((100 + tau * tau) ** 2 / (100 ** 2 / 3))
    half = quantile(0.975, df) * (100 + tau * tau) ** 0.5
    assert out.run_to_run.prior and out.run_to_run.tau_ns == tau and out.run_to_run.pooled_df == df
    assert (out.ci95_low, out.ci95_high) == (pytest.approx(1000 - half), pytest.approx(1000 + half))
    assert half > 31.8 and not out.run_to_run.unlike and "prior run-to-run tau of 20 ns" in out.ci_method
    wide = added(1000.0, 100.0, t=5.0)  # its own +-500 (a trimmed mean's, say) is wider than the prior's +-325
    kept = with_prior(wide, 2)
    assert (kept.ci95_low, kept.ci95_high) == (wide.ci95_low, wide.ci95_high) and kept.run_to_run.unlike
    # A run-level spread the launches cannot see (2% of the estimate between runs, within-run se 0.5%): its own
    # intervals hold another run's estimate far less often than the prior's do.
    rng = np.random.default_rng(5)
    levels = 1000.0 + rng.normal(0, 20.0, 40)
    runs = [added(float(m + rng.normal(0, 5.0)), 5.0, t=quantile(0.975, 3)) for m in levels]
    def capture(intervals):
        held = [a.ci95_low <= b.estimate <= a.ci95_high for i, a in enumerate(intervals)
                for j, b in enumerate(intervals) if i != j]
        return sum(held) / len(held)
    own, prior = capture(runs), capture([with_prior(r, 1) for r in runs])
    assert own < 0.6 and prior > 0.8, (own, prior)
