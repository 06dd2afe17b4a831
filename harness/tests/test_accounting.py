"""Where the time went: the phase clock's arithmetic, the manifest's time_accounting of a real run (every second
of the wall time in one phase), the line at the end of a run and the report's bar; the planned repetitions and
the budget of a real small campaign."""

import json
import time

import pytest
from orbench.campaign.spec import read_campaign
from orbench.results.accounting import PHASES, TimeAccount, TimeRecord, time_account
from orbench.results.point import PointGroup
from orbench.results.repetitions import repetition_plans
from orbench.results.store import RunStore
from orbench.running.accounting import PhaseClock, RunClock
from orbench.running.planning import Evidence, evidence_of, group_costs, make_plan
from orbench.running.steady import JIT_BUSY_POINTS

from tests.conftest import campaign_error, require_targets, run_cli


def test_a_run_command_splits_into_warmup_timed_calls_and_the_workers_writing():
    clock = PhaseClock(warmup_phase="rewarm")
    clock.run_command(round_trip_s=0.05, elapsed_ns=20_000_000, warmup_calls=500, timed_calls=1000)
    assert clock.seconds["timed_calls"] == pytest.approx(0.02)
    assert clock.seconds["rewarm"] == pytest.approx(0.01)       # half the calls at the timed calls' pace
    assert clock.seconds["samples"] == pytest.approx(0.02)      # what is left of the round trip
    clock.run_command(0.05, 20_000_000, 500, 1000, warmup_s=0.029)  # the worker's own start, when known here
    assert clock.seconds["rewarm"] == pytest.approx(0.039) and clock.timed_calls == 2000


def test_chunks_count_as_warmup_and_the_trials_remainder_as_the_harness():
    clock = PhaseClock()
    clock.start_trial()
    clock.chunks(full_warmup=True).run_command(0.03, 10_000_000, 1000, 500)
    time.sleep(0.1)  # the chunk's 0.03 s were placed, not spent: the rest of the trial's time is the harness's
    clock.end_trial()
    assert set(clock.seconds) == {"steady_chunks", "full_warmup", "harness"}
    assert clock.seconds["harness"] >= 0.06 and clock.timed_calls == 0 and clock.trials == 1


def test_a_warm_up_piece_counts_where_its_plans_warm_up_does():
    """A oneway warm-up's untimed pieces (running/flood.py): all their time is the warm-up's, as the plan's clock
    places it: the full warm-up of a trial, the steady chunks' phase inside a chunk."""
    clock = PhaseClock(warmup_phase="full_warmup")
    clock.warmup_only().run_command(0.03, 10_000_000, 0, 500)
    assert set(clock.seconds) == {"full_warmup"} and clock.timed_calls == 0
    chunk = PhaseClock().chunks(full_warmup=False)
    chunk.warmup_only().run_command(0.03, 10_000_000, 0, 500)
    assert set(chunk.seconds) == {"steady_chunks"}


def test_the_account_places_every_second_and_reads_back():
    records = [TimeRecord(0, "same-core", {"workers": 2.0}, 2.0),
               TimeRecord(0, "g", {"timed_calls": 3.0, "rewarm": 1.0, "harness": 0.5}, 4.5, {"mode": "twoway"}, 6, 6000)]
    account = TimeAccount.of(10.0, records, {"summary_s": 1.0})
    assert account.seconds["harness"] == pytest.approx(10.0 - 6.0)
    assert account.timed_share == pytest.approx(0.3)
    assert account.line().startswith("timed calls 30% of 10s; warm-up 10%") and "then summary 1s" in account.line()
    again = TimeAccount.from_json(json.loads(json.dumps(account.to_json())))
    assert again.seconds == pytest.approx({p: v for p, v in account.seconds.items() if v})
    assert again.records[1].timed_calls == 6000
    assert again.to_json()["timed_share"] == 0.3


def test_the_run_clock_keeps_worker_starts_per_launch_and_block():
    clock = RunClock()
    with clock.workers(0, "same-core"):
        time.sleep(0.01)
    with clock.workers(0, "same-core"):
        pass
    account = clock.account()
    assert [r.scope for r in account.records] == ["same-core"] and account.seconds["workers"] >= 0.01


SMALL = """
name = "acct"
targets = ["omniorb", "c-socket"]
modes = ["twoway"]
payload_bytes = [1, 100]
launches = 2
trials = 2
calls = 300
warmup = 100
rewarm = 100
steady_cv_pct = 2
steady_chunk_calls = 200
steady_max_s = 0.2
anatomy_trials = "first-round"
"""


def test_the_first_launchs_anatomy_is_paid_once_and_the_trials_readings_per_round(tmp_path):
    """With the anatomy counters in the first launch only, the later launches' anatomy phase is each trial's own
    readings: per round for every launch, and the rest of the first launch's paid once, not per launch."""
    group = PointGroup(placement="same-core", mode="twoway", payload_type="octets", payload_bytes=1)

    def record(launch: int, anatomy: float) -> TimeRecord:
        seconds = {"anatomy": anatomy, "timed_calls": 2.0, "full_warmup": 1.0}
        return TimeRecord(launch, group.label, seconds, sum(seconds.values()), group.as_record(), rounds=2, calls=500)

    account = TimeAccount.of(30.0, [record(0, 10.0), record(1, 1.0), record(2, 1.4)])
    evidence = Evidence("test", (), tmp_path, account)
    costs, _, once = group_costs(evidence, "first-launch")
    assert costs[group].per_launch_s == pytest.approx(1.0)                 # the warm-up alone
    assert costs[group].per_round_s == pytest.approx((0.5 + 0.7) / 2)      # the later launches' readings
    assert once == pytest.approx(10.0 - 2 * 0.6)
    costs, _, once = group_costs(evidence, "first-round")                  # read in every launch: a launch's
    assert costs[group].per_launch_s == pytest.approx(1.0 + 12.4 / 3) and once == 0.0


def test_a_real_run_accounts_for_its_time(write_campaign, results_root):
    require_targets("omniorb", "c-socket")
    code, out, err = run_cli("run", str(write_campaign(SMALL)))
    assert code == 0, err
    run_dir = results_root / "acct" / "latest"
    manifest = json.loads((run_dir / "manifest.json").read_text())
    account = time_account(manifest)
    assert account is not None and 0 < account.timed_share < 1
    assert abs(sum(account.seconds.values()) - account.wall_s) < 0.01 * account.wall_s + 0.01
    groups = [r for r in account.records if r.group is not None]
    assert len(groups) == 2 * 2 and all(r.rounds == 2 and r.calls == 300 and r.timed_calls == 2 * 2 * 300
                                        for r in groups)
    assert all(r.seconds.get(p, 0) > 0 for r in groups for p in ("timed_calls", "steady_chunks", "rewarm"))
    assert {r.launch for r in account.records if r.group is None} == {0, 1}
    assert set(account.after_run) == {"summary_s", "report_s"}
    assert "orbench: time: timed calls" in err
    # The time bound ended chunks the 2% criterion did not (a loaded machine rarely meets it in 0.2 s).
    assert all(s["stopped_by"] in ("steady", "within_noise", "max_s", "max_calls") for s in manifest["steady_state"])
    # Only the first round of each group read the anatomy counters.
    trials = RunStore(run_dir.resolve()).read_trials()
    assert {(t.trial, t.anatomy_calls is not None) for t in trials} == {(0, True), (1, False)}
    report = (run_dir / "report.html").read_text()
    assert "Where the time went" in report and "<svg" in report and all(p.replace("_", " ") in report for p in PHASES)
    # The run is evidence for a plan: its variances and its costs per launch, round and call.
    campaign = read_campaign(write_campaign(SMALL + 'budget = "40s"\ntarget_added_ci_ns = 300\n'))
    groups = campaign.point_groups()
    evidence = evidence_of(RunStore(run_dir.resolve()), "the run above")
    for budget in (40.0, None):
        plan = make_plan(campaign, evidence, groups, 0, None, budget)
        assert {g.group for g in plan.groups} == set(groups) and plan.launches >= 2
        assert all(2 <= g.trials <= 20 and g.calls in (500, 600, 1200) for g in plan.groups)
        assert all(g.cost["per_call_s"] > 0 and g.cost["per_round_s"] > 0 for g in plan.groups)
        assert all("ORB-added omniorb" in g.rows and g.rows["ORB-added omniorb"].target_ns == 300 for g in plan.groups)
        assert budget is None or plan.predicted_s <= budget
        # Once max_launches ran, no plan adds one, whatever the budget left.
        done = campaign.settings.max_launches
        last = make_plan(campaign, evidence, groups, done, done - 1, None if budget is None else 1e6)
        assert not last.groups and last.launches == done and "max_launches" in last.why


BUDGET = """
name = "budget"
targets = ["omniorb", "c-socket"]
modes = ["twoway"]
payload_bytes = [1]
trials = 2
calls = 500
warmup = 200
rewarm = 200
target_added_ci_ns = 300
max_launches = 4
max_trials = 6
anatomy = "off"
budget = "{budget}"
"""


@pytest.mark.slow
def test_a_budget_run_plans_reports_and_ends_within_its_budget(write_campaign, results_root):
    """No earlier run: a pilot launch, then plans from the launches so far; the expected precision before the
    planned launches, the reached one at the end, and the whole command within its budget (and a margin for a
    loaded machine's slow last launch)."""
    require_targets("omniorb", "c-socket")
    started = time.monotonic()
    code, out, err = run_cli("run", str(write_campaign(BUDGET.format(budget="25s"))))
    took = time.monotonic() - started
    assert code == 0, err
    assert "launch 1 is a pilot" in err and "expected ORB-added omniorb" in err
    assert "expected by the last plan and reached" in err and "reached ±" in err
    manifest = json.loads((results_root / "budget" / "latest" / "manifest.json").read_text())
    plans = repetition_plans(manifest)
    assert plans and all(p.aim == "budget" for p in plans) and plans[0].source == "launches so far (1)"
    assert len(manifest["launches"]) >= 2
    # Every launch the plans made ran trials of both targets (the plan may go past the campaign's `launches`).
    trials = RunStore((results_root / "budget" / "latest").resolve()).read_trials()
    assert {(t.launch, t.point.target) for t in trials} == \
        {(k, name) for k in range(len(manifest["launches"])) for name in ("omniorb", "c-socket")}
    assert took <= 25 * 1.25, took
    # A second run plans from the first before it starts.
    code, out, err = run_cli("run", str(write_campaign(BUDGET.format(budget="20s"))))
    assert code == 0, err
    plans = repetition_plans(json.loads((results_root / "budget" / "latest" / "manifest.json").read_text()))
    assert plans[0].source.startswith("previous run ") and plans[0].after_launch is None
    # A budget its pilot launch uses up: no plan, and the end says what was reached all the same.
    code, out, err = run_cli("run", str(write_campaign(
        BUDGET.format(budget="3s").replace('name = "budget"', 'name = "budget-pilot"'))))
    assert code == 0, err
    assert "no plan was made" in err and "ORB-added omniorb: reached" in err


LEAN = """
name = "lean"
targets = ["c-socket"]
modes = ["twoway", "oneway"]
payload_bytes = [1, 100]
launches = 2
trials = 2
calls = 200
warmup = 100
rewarm = 100
rewarm_modes = ["oneway"]
steady_cv_pct = 2
steady_chunk_calls = 100
steady_max_s = 0.2
anatomy_trials = "first-launch"
"""


def test_warm_up_goes_only_where_it_is_measured_to_matter(write_campaign, results_root):
    """anatomy_trials = "first-launch" reads the counters on the first round of the first launch only;
    rewarm_modes leaves twoway's later trials without a rewarm; no trial right after the steady-state chunks
    gets one unless a reading came in between, and no later point's chunks do."""
    require_targets("c-socket")
    code, _out, err = run_cli("run", str(write_campaign(LEAN)), "--no-report")
    assert code == 0, err
    run_dir = (results_root / "lean" / "latest").resolve()
    trials = RunStore(run_dir).read_trials()
    assert len(trials) == 2 * 2 * 2 * 2 and all(t.ok for t in trials)
    assert {(t.launch, t.trial) for t in trials if t.anatomy_calls is not None} == {(0, 0)}
    assert {(t.launch, t.trial, t.point.mode, t.warmup) for t in trials} == {
        (0, 0, "twoway", 0), (0, 1, "twoway", 0), (1, 0, "twoway", 0), (1, 1, "twoway", 0),
        (0, 0, "oneway", 100), (0, 1, "oneway", 100), (1, 0, "oneway", 0), (1, 1, "oneway", 100)}
    steady = json.loads((run_dir / "manifest.json").read_text())["steady_state"]
    # The full warm-up once per launch, at the worker's first point; none before a later point's chunks.
    assert sorted(s["warmup_calls"] for s in steady) == [0] * (len(steady) - 2) + [100, 100]


def test_steady_at_first_point_warms_each_worker_once_per_launch(write_campaign, results_root):
    """steady_at = "first-point": chunks at each worker's first point of a launch only, a later point's first
    trial rewarmed as its later ones are; anatomy_payload_bytes: only those sizes' trials read the counters."""
    require_targets("c-socket")
    text = LEAN.replace('name = "lean"', 'name = "lean-first"') + (
        'steady_at = "first-point"\nanatomy_payload_bytes = [100]\n')
    code, _out, err = run_cli("run", str(write_campaign(text)), "--no-report")
    assert code == 0, err
    run_dir = (results_root / "lean-first" / "latest").resolve()
    steady = json.loads((run_dir / "manifest.json").read_text())["steady_state"]
    assert sorted((s["launch"], s["warmup_calls"]) for s in steady) == [(0, 100), (1, 100)]
    first = {(s["launch"], s["mode"], s["payload_bytes"]) for s in steady}
    trials = RunStore(run_dir).read_trials()
    assert len(trials) == 2 * 2 * 2 * 2 and all(t.ok for t in trials)
    assert {(t.launch, t.trial, t.point.payload_bytes) for t in trials if t.anatomy_calls is not None} == {
        (0, 0, 100)}
    for t in trials:
        right_after_chunks = (t.launch, t.point.mode, t.point.payload_bytes) in first and t.trial == 0
        rewarmed = t.point.mode == "oneway" and not (right_after_chunks and t.anatomy_calls is None)
        assert t.warmup == (100 if rewarmed else 0), t


def test_a_jvms_later_points_warm_until_its_jit_is_quiet(write_campaign, results_root):
    """steady_at = "first-point" on a JVM: a later point's first trial in a launch comes after chunks that run
    until neither JVM finished a compilation (steady.warm_until_jit_quiet), read from the workers' own JIT
    time; every trial says what its client compiled while timed, a C client nothing."""
    require_targets("java-socket", "c-socket")
    text = LEAN.replace('name = "lean"', 'name = "lean-jit"').replace('targets = ["c-socket"]',
                                                                    'targets = ["java-socket", "c-socket"]') + (
        'steady_at = "first-point"\njvm_warmup = 2000\n')
    code, _out, err = run_cli("run", str(write_campaign(text)), "--no-report")
    assert code == 0, err
    run_dir = (results_root / "lean-jit" / "latest").resolve()
    steady = json.loads((run_dir / "manifest.json").read_text())["steady_state"]
    later = [s for s in steady if s["target"] == "java-socket" and s["warmup_calls"] == 0]
    # Two launches of four points: the first point's steady chunks, then up to three later points' JIT-quiet
    # ones; fewer only after JIT_BUSY_POINTS of them in a row ended at the bound (a JIT that stays busy).
    for launch in (0, 1):
        mine = [s["reached"] for s in later if s["launch"] == launch]
        assert len(mine) == 3 or (len(mine) >= JIT_BUSY_POINTS and not any(mine[-JIT_BUSY_POINTS:])), steady
    for s in later:
        assert s["stopped_by"] in ("jit_quiet", "max_s", "max_calls"), s
        assert s["chunk_jit_ms"] and all(isinstance(ms, int) and ms >= 0 for ms in s["chunk_jit_ms"]), s
        assert (s["stopped_by"] == "jit_quiet") == (s["chunk_jit_ms"][-1] == 0), s
    assert not [s for s in steady if s["target"] == "c-socket" and s["warmup_calls"] == 0]
    trials = RunStore(run_dir).read_trials()
    assert all(t.ok for t in trials)
    assert all(isinstance(t.client_jit_ms, int) and t.client_jit_ms >= 0 for t in trials
               if t.point.target == "java-socket")
    assert all(t.client_jit_ms is None for t in trials if t.point.target == "c-socket")


def test_anatomy_payload_bytes_must_be_sizes_of_the_campaign(write_campaign):
    text = LEAN + "anatomy_payload_bytes = [64]\n"
    assert "anatomy_payload_bytes" in campaign_error(write_campaign, text)


def test_rewarm_modes_names_the_modes_that_get_a_rewarm(write_campaign):
    for modes, oneway, twoway in (('["oneway"]', 100, 0), ("[]", 0, 0), (None, 100, 100)):
        text = LEAN.replace('rewarm_modes = ["oneway"]\n', "" if modes is None else f"rewarm_modes = {modes}\n")
        campaign = read_campaign(write_campaign(text))
        target = campaign.targets[0]
        assert (campaign.warmup_for(target, False, "oneway"), campaign.warmup_for(target, False, "twoway")) == (
            oneway, twoway), modes
        assert campaign.warmup_for(target) == 100  # the full warm-up whatever the mode
