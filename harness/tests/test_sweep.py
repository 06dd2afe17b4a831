"""Load at scale in the harness: the load plan's shapes and order, server settings, the sweep's rates and its
stop, capacities (closed loop and at the SLO) and the queueing known answer's arithmetic, and a real campaign
with client threads, objects, a threading setting and a sweep run through the runner."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from threading import active_count
from types import SimpleNamespace

import pytest
from orbench.anatomy.snapshot import process_cpu_ns
from orbench.campaign.load import SWEEP_LOADS, LoadPlan, Slo
from orbench.campaign.spec import read_campaign
from orbench.errors import UserError
from orbench.results.point import Point, PointGroup
from orbench.results.trial import Measurement, Trial
from orbench.running.load_usage import LoadOverWindows, LoadSampler, _Reading, bottleneck
from orbench.running.measure import jain_fairness, settle_ratio
from orbench.running.schedule import sweep_last, sweep_step_runs
from orbench.running.session import TargetSession
from orbench.running.sweep import SweepState
from orbench.summary.capacity import closed_loop_capacities, crossing, speed_scaled_rates, trial_rates, with_floor_notes
from orbench.summary.model import Capacity
from orbench.summary.queueing import predicted_wait_ns, sent_path_wait_ns
from orbench.targets.descriptor import get_target
from orbench.targets.scale_checks import splitmix64
from orbench.targets.server_settings import Unsupported, server_setting

from tests.conftest import require_targets, run_cli

BASE = """
name = "sweep"
targets = ["c-socket"]
modes = ["twoway"]
payload_bytes = [64]
placements = ["split-core"]
trials = 1
calls = 300
warmup = 100
"""


# A reading's time stamp and its CPU counter are read one after the other: a sampler thread preempted between them
# shifts its window by milliseconds, so the check allows what the first reading took (its took_ns). And the kernel
# brings another process's running thread's CPU time up to date only at its scheduler tick: each of the four reads
# may be up to a tick behind (CI read 199.93 ms counted for 203.94 ms used, one 4 ms tick at HZ=250).
TICK_NS = 10_000_000  # HZ=100, the coarsest tick Linux is built with


@pytest.mark.exclusive
def test_the_load_sampler_starts_no_thread_per_trial():
    # A thread started right before a trial slows it (load_usage.py): one sampling thread serves every trial.
    worker = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        LoadSampler(worker.pid, [os.getpid()]).stop()
        threads = active_count()
        cpus = len(os.sched_getaffinity(worker.pid))
        for _ in range(3):
            started, before = time.monotonic_ns(), process_cpu_ns(worker.pid)
            sampler = LoadSampler(worker.pid, [os.getpid()])
            time.sleep(0.2)
            assert active_count() == threads  # while it samples
            sampler.stop()
            after, ended = process_cpu_ns(worker.pid), time.monotonic_ns()
            times = [r.at_ns for r in sampler.readings]
            assert len(times) >= 3 and times == sorted(times)  # the thread read it while it ran, in order
            # The busy loop's CPU time between the first and last reading, from its share of the CPUs it may use,
            # against what it used from before the sampler started to after it stopped, less what its one thread
            # can have used outside the readings (at most their wall time, and the first reading's counter may be
            # read up to its took_ns late): right however busy the machine is. The share is rounded to 4 decimals,
            # and each difference of two reads may be off by a tick either way.
            window = times[-1] - times[0]
            used = sampler.fields(times[0], times[-1])["server_cpu_util"] * cpus * window
            rounding = 1e-4 * cpus * window + 2 * TICK_NS
            outside = (times[0] - started) + (ended - times[-1]) + sampler.readings[0].took_ns
            assert after - before - outside - rounding <= used <= after - before + rounding, (used, after - before)
            assert used > 0
    finally:
        worker.kill()
        worker.wait()


def test_a_slice_counts_its_sides_cpu_over_their_own_work_not_the_command_around_it():
    """A known answer: a slice of 20 warm-up and 40 timed calls per thread, the timed calls 2 ms, so the warm-up
    1 ms at their pace; the command reaches the client 0.5 ms after the first reading and the answer leaves it
    0.5 ms after the last call. A server busy through every call used 3 ms of its one CPU: saturated. Spread over
    the readings' 4 ms, as a long trial's interpolation reads it, it would be 0.75 and the row would say "client"."""
    ms = 1_000_000
    sampler = SimpleNamespace(server_cpus=1, client_cpus=1, shared=False, readings=[
        _Reading(0, server_cpu_ns=0, client_cpu_ns=0, server_threads=5),
        _Reading(4 * ms, server_cpu_ns=3 * ms, client_cpu_ns=int(3.2 * ms), server_threads=5)])
    load = LoadOverWindows()
    for _ in range(3):
        load.add(sampler, start_ns=int(1.5 * ms), end_ns=int(3.5 * ms), warmup=20, calls=40)
    fields = load.fields()
    assert fields["server_cpu_util"] == pytest.approx(1.0)
    assert fields["client_cpu_util"] == pytest.approx(3.2 / 3.5, abs=1e-4)  # from the first reading to the last call
    assert fields["bottleneck"] == "server" and fields["server_threads"] == 5
    # A server idle half its calls' time reads half; a slice whose worker gave no instants adds nothing.
    half = LoadOverWindows()
    half.add(SimpleNamespace(**{**vars(sampler), "readings": [sampler.readings[0], replace(
        sampler.readings[1], server_cpu_ns=int(1.5 * ms), client_cpu_ns=ms)]}), int(1.5 * ms), int(3.5 * ms), 20, 40)
    half.add(sampler, None, None, 20, 40)
    assert half.fields()["server_cpu_util"] == pytest.approx(0.5) and half.fields()["bottleneck"] == "none"


def test_slo_parses_absolute_and_relative_bounds():
    assert Slo.parse("2ms").bound_ns(None) == 2e6
    assert Slo.parse("500us").bound_ns(123.0) == 5e5
    assert Slo.parse("10x").bound_ns(20_000.0) == 200_000.0
    assert Slo.parse("10x").bound_ns(None) is None
    with pytest.raises(ValueError):
        Slo.parse("10 ms")


def test_the_plan_adds_the_probe_and_the_unloaded_point_and_puts_steps_last(write_campaign):
    campaign = read_campaign(write_campaign(BASE + 'clients = [4]\nclients_as = ["threads"]\n'
                                                   '[sweep]\nclients = 8\n'))
    shapes = campaign.load_plan.shapes("twoway")
    assert (shapes[0].clients, shapes[0].clients_as) == (4, "threads")
    assert {(s.clients, s.clients_as) for s in shapes if not s.offered_load} == {(4, "threads"), (1, "processes"),
                                                                                  (8, "threads")}
    assert [s.offered_load for s in shapes if s.offered_load] == list(SWEEP_LOADS)
    assert not [s for s in campaign.load_plan.shapes("oneway") if s.offered_load]   # no sweep of oneways
    groups = tuple(campaign.point_groups())
    order = sweep_last(groups, tuple(reversed(range(len(groups)))), seed=3)
    steps = [groups[i].offered_load for i in order if groups[i].is_sweep_step]
    assert steps == sorted(steps) and order[-len(steps):] == tuple(i for i in order if groups[i].is_sweep_step)


def test_a_paired_step_runs_beside_its_middleware_at_its_rate_and_while_its_sweep_runs():
    """The baseline's paired step sits right before or after its middleware's step (either, over rounds), offers
    the middleware's share of the middleware's capacity, and stops pairing once the middleware's sweep stopped
    at a lighter step (not at the step where it stopped: that step ran and pairs)."""
    group = PointGroup(placement="split-core", mode="twoway", payload_type="octets", payload_bytes=64, clients=4,
                       clients_as="threads", arrivals="poisson", offered_load=0.5)
    unit, baselines = ["jacorb", "omniorb", "c-socket", "ice-cpp"], {"omniorb": "c-socket", "ice-cpp": "c-socket"}
    sides = set()
    for round_number in range(8):
        runs = sweep_step_runs(unit, group, round_number, 7, baselines)
        assert [t for t, load_of in runs if not load_of] == unit and len(runs) == 6
        for orb in ("omniorb", "ice-cpp"):
            at, paired = runs.index((orb, "")), runs.index(("c-socket", orb))
            assert abs(at - paired) == 1
            sides.add(paired - at)
    assert sides == {-1, 1}

    plan = LoadPlan.from_settings({"clients": [1], "clients_as": ["processes"], "rates_hz": [0], "threading":
                                   ["default"], "objects": [1], "object_order": "round-robin",
                                   "sweep": {"clients": 4}})
    assert plan.sweep is not None and plan.sweep.paired
    state = SweepState(plan)
    probe = group.replace(arrivals="fixed", offered_load=0.0)
    for seq, (target, rate) in enumerate((("omniorb", 40_000.0), ("c-socket", 100_000.0))):
        state.note(Trial.of(seq, probe.with_target(target), 0, Measurement(status="ok", aggregate_calls_per_s=rate)))
    paired = group.with_target("c-socket").replace(load_of="omniorb")
    assert state.rate_for(paired) == (pytest.approx(20_000.0), None)
    assert state.rate_for(group.with_target("c-socket")) == (pytest.approx(50_000.0), None)
    # omniORB's clients fall behind at 0.5x: its sweep stops there; the pair at 0.5x still runs, 0.65x does not.
    state.note(Trial.of(3, group.with_target("omniorb"), 0, Measurement(
        status="ok", offered_rate_hz=20_000.0, achieved_rate_hz=15_000.0, p50_ns=50_000.0, p99_ns=90_000.0)))
    assert state.rate_for(paired) == (pytest.approx(20_000.0), None)
    rate, why = state.rate_for(paired.replace(offered_load=0.65))
    assert rate is None and "nothing to pair with: omniorb's sweep stopped (past saturation" in why
    assert state.rate_for(group.with_target("c-socket").replace(offered_load=0.65))[0] == pytest.approx(65_000.0)


def test_a_sweep_limited_to_some_server_settings_runs_only_there(write_campaign):
    body = (BASE.replace('["c-socket"]', '["omniorb"]') + 'threading = ["default", "pool-4"]\nobjects = [1, 100]\n'
            '[sweep]\nclients = 8\nthreading = ["default"]\nobjects = [1]\n')
    campaign = read_campaign(write_campaign(body))
    steps = {(g.threading, g.objects) for g in campaign.point_groups() if g.is_sweep_step}
    probes = {(g.threading, g.objects) for g in campaign.point_groups() if g.clients == 8}
    assert steps == probes == {("default", 1)}
    assert {(g.threading, g.objects) for g in campaign.point_groups()} == {
        ("default", 1), ("default", 100), ("pool-4", 1), ("pool-4", 100)}
    assert campaign.load_plan.to_settings()["sweep"]["objects"] == [1]
    with pytest.raises(UserError) as err:
        read_campaign(write_campaign(body.replace('objects = [1]\n', 'objects = [10]\n')))
    assert "sweep.objects[0]" in str(err.value) and "10" in str(err.value)


def test_a_threading_value_no_middleware_offers_is_an_error_naming_the_key(write_campaign):
    path = write_campaign(BASE.replace('["c-socket"]', '["omniorb"]') + 'threading = ["default", "pol-4"]\n')
    with pytest.raises(UserError) as err:
        read_campaign(path)
    assert "threading[1]" in str(err.value) and "pol-4" in str(err.value) and "pool-SIZE" in str(err.value)


def test_server_settings_in_the_middleware_s_own_words():
    pool = server_setting(get_target("omniorb"), "pool-4", 1)
    assert pool.args == ("-ORBthreadPerConnectionPolicy", "0", "-ORBmaxServerThreadPoolSize", "4")
    assert "maxServerThreadPoolSize=4" in pool.words
    assert server_setting(get_target("omniorb"), "default", 100).args == ("--objects", "100")
    # The baseline keeps its one model at every setting, and has no objects to serve.
    floor = server_setting(get_target("c-socket"), "pool-4", 100)
    assert floor.args == () and "whatever the setting" in floor.words
    with pytest.raises(Unsupported, match="no threading setting 'pool-4'"):
        server_setting(get_target("grpc-cpp"), "pool-4", 1)
    with pytest.raises(Unsupported, match="services, not objects"):
        server_setting(get_target("grpc-cpp"), "default", 10)


def test_fairness_settle_bottleneck_and_crossing():
    assert jain_fairness([10, 10, 10]) == 1.0 and jain_fairness([30, 0, 0]) == pytest.approx(1 / 3, abs=1e-4)
    assert jain_fairness([5]) is None
    import numpy as np
    assert settle_ratio(np.array([100] * 100 + [300] * 100)) == pytest.approx(3.0)
    assert bottleneck(0.95, 0.2, shared=False) == "server" and bottleneck(0.3, 0.95, shared=False) == "client"
    assert bottleneck(0.5, 0.45, shared=True) == "shared-cpu" and bottleneck(0.3, 0.3, shared=False) == "none"
    # p99 crosses 100 between 1000 calls/s (p99 50) and 2000 (p99 150): halfway.
    assert crossing([(500.0, 40.0), (1000.0, 50.0), (2000.0, 150.0)], 100.0) == (1500.0, None)
    assert crossing([(500.0, 40.0), (1000.0, 50.0)], 100.0) == (1000.0, "above")
    assert crossing([(500.0, 140.0), (1000.0, 150.0)], 100.0) == (500.0, "below")
    assert crossing([(500.0, 40.0), (1000.0, None)], 100.0) == (500.0, None)   # skipped past saturation


def test_a_capacity_censored_below_names_its_baseline_when_the_floor_missed_the_bound_too():
    def slo(target: str, below: int, above: int = 0) -> Capacity:
        point = Point(placement="split-core", mode="twoway", payload_type="octets", payload_bytes=64, target=target)
        censored = (f"{below} of 3 launches below the lowest step" if below
                    else f"{above} of 3 launches above the highest step")
        return Capacity(point=point, kind="slo", arrivals="poisson", per_launch=(1.0, 2.0, 3.0), censored=censored,
                        launches_below=below, note="the clients' CPU" if target == "jacorb" else None)
    found = with_floor_notes([slo("omniorb", 3), slo("jacorb", 1), slo("grpc-cpp", 2), slo("c-socket", 2),
                              slo("java-socket", 0, above=3)],
                             {"omniorb": "c-socket", "jacorb": "java-socket", "grpc-cpp": "cpp-grpc-floor"})
    notes = {c.point.target: c.note for c in found}
    assert "its baseline c-socket was over the bound at its lightest step too (2 of 3 launches)" in notes["omniorb"]
    assert notes["jacorb"] == "the clients' CPU"          # its baseline was censored above: no floor note
    assert notes["grpc-cpp"] is None                      # no row for its baseline
    assert notes["c-socket"].startswith("the socket floor itself") and notes["java-socket"] is None


def test_pollaczek_khinchine_with_a_fixed_service_time_is_m_d_1():
    s_ns, rho = 50_000.0, 0.8
    rate = rho / s_ns * 1e9
    assert predicted_wait_ns(rate, s_ns, s_ns * s_ns) == pytest.approx(rho * s_ns / (2 * (1 - rho)))
    assert predicted_wait_ns(1.0 / s_ns * 1e9, s_ns, s_ns * s_ns) is None


def test_the_wait_of_the_arrivals_sent_follows_lindley_and_converges_to_pollaczek_khinchine():
    s_ns, rate = 1e6, 500.0   # rho 0.5
    draws = splitmix64(7)
    gaps = [-math.log1p(-(next(draws) >> 11) * 2.0**-53) * 1e9 / rate for _ in range(4)]
    waits, w = [0.0], 0.0
    for g in gaps:
        w = max(0.0, w + s_ns - g)
        waits.append(w)
    assert sent_path_wait_ns(5, rate, 7, s_ns) == pytest.approx(sum(waits) / 5)
    # A long path's mean wait is the expectation's, M/D/1 (rho S / 2(1 - rho)), within its sampling error.
    assert sent_path_wait_ns(400_000, rate, 11, s_ns) == pytest.approx(predicted_wait_ns(rate, s_ns, s_ns**2),
                                                                       rel=0.03)
    # Another seed is another path: a different mean.
    assert sent_path_wait_ns(2000, rate, 12, s_ns) != sent_path_wait_ns(2000, rate, 13, s_ns)


def test_a_sweep_with_threads_objects_and_a_pool_through_the_runner(write_campaign, results_root):
    """c-socket and omniORB: 1 and 4 client threads, 1 and 20 objects, as shipped and with a pool of 2, and a
    Poisson sweep at 4 threads. Every step's rate is its share of the same launch's probe, the steps run after
    the probe in rising order, the baselines run the objects points unchanged, and summary.json has the
    capacities and the manifest each server setting in omniORB's words. Beside each of omniORB's steps c-socket
    runs at omniORB's rate (a paired step, next to it), and omniORB's steps carry the ORB-added latency from
    those pairs."""
    require_targets("c-socket", "omniorb")
    path = write_campaign(BASE.replace('["c-socket"]', '["omniorb"]') + """
clients = [1, 4]
clients_as = ["threads"]
threading = ["default", "pool-2"]
objects = [1, 20]
[sweep]
clients = 4
step_calls = 300
step_min_s = 0.05
""")
    code, out, err = run_cli("run", str(path), "--no-report")
    assert code in (0, 1), err
    run_dir = results_root / "sweep" / "latest"
    trials = [line.split(",") for line in (run_dir / "trials.csv").read_text().splitlines()]
    header, rows = trials[0], [dict(zip(trials[0], r)) for r in trials[1:]]
    assert "offered_load" in header and "threading" in header and "objects" in header
    failed = [r for r in rows if r["status"] == "failed"]
    assert not failed, [(r["target"], r["error"]) for r in failed]
    paired = [r for r in rows if r["load_of"]]
    assert paired and {r["load_of"] for r in paired} == {"omniorb"} and {r["target"] for r in paired} == {"c-socket"}
    for r in paired:
        orb = [o for o in rows if o["target"] == "omniorb" and not o["load_of"] and all(
            o[k] == r[k] for k in ("threading", "objects", "offered_load", "launch"))]
        assert len(orb) == 1, r
        assert abs(int(orb[0]["seq"]) - int(r["seq"])) == 1  # right before or after it
        if r["status"] == "ok":
            assert float(r["offered_rate_hz"]) == pytest.approx(float(orb[0]["offered_rate_hz"]), rel=1e-6)
        else:
            assert r["status"] == "skipped" and ("past saturation" in r["error"] or "nothing to pair" in r["error"])
    for target in ("omniorb", "c-socket"):
        for threading in ("default", "pool-2"):
            for objects in ("1", "20"):
                mine = [r for r in rows if (r["target"], r["threading"], r["objects"]) == (target, threading, objects)
                        and not r["load_of"]]
                probe = [r for r in mine if r["clients"] == "4" and float(r["offered_load"] or 0) == 0]
                assert len(probe) == 1 and probe[0]["status"] == "ok", (target, threading, objects)
                capacity = float(probe[0]["aggregate_calls_per_s"])
                steps = sorted((r for r in mine if float(r["offered_load"] or 0) > 0), key=lambda r: int(r["seq"]))
                assert [float(r["offered_load"]) for r in steps] == sorted(float(r["offered_load"]) for r in steps)
                assert int(steps[0]["seq"]) > int(probe[0]["seq"])
                for r in steps:
                    if r["status"] == "ok":
                        assert float(r["offered_rate_hz"]) == pytest.approx(float(r["offered_load"]) * capacity, rel=1e-3)
                        assert r["fairness"] and 0 < float(r["fairness"]) <= 1
                    else:
                        assert r["status"] == "skipped" and "past saturation" in r["error"], r["error"]
    summary = json.loads((run_dir / "summary.json").read_text())
    kinds = {(c["target"], c["threading"], int(c["objects"]), c["kind"]) for c in summary["capacities"]}
    for target in ("omniorb", "c-socket"):
        for threading in ("default", "pool-2"):
            for objects in (1, 20):
                assert (target, threading, objects, "closed-loop") in kinds
                assert (target, threading, objects, "slo") in kinds
    for c in summary["capacities"]:
        ci = c.get("capacity_closed_loop_calls_per_s") or c.get("capacity_at_slo_calls_per_s")
        assert ci["estimate"] > 0 and math.isfinite(ci["estimate"])
    assert not any(c.get("load_of") for c in summary["capacities"])
    ok_steps = {(r["threading"], r["objects"], r["offered_load"]) for r in paired if r["status"] == "ok"}
    for p in summary["points"]:
        if p.get("offered_load") and p["target"] == "omniorb" and (
                p["threading"], str(p["objects"]), str(p["offered_load"])) in ok_steps:
            added = p["orb_added_latency_ns"]
            assert added["baseline"] == "c-socket" and added["estimate"] is not None, p
    manifest = json.loads((run_dir / "manifest.json").read_text())
    words = [w["server_setting"]["words"] for w in manifest["targets"]["omniorb"]["workers"].values()]
    assert any("maxServerThreadPoolSize=2" in w for w in words)
    # A point's group reads back with every dimension (an older reader's defaults for a newer run's columns).
    group = PointGroup.from_record(rows[-1])
    assert group.clients_as in ("threads", "processes")


def test_load_plan_reads_the_campaign_keys():
    plan = LoadPlan.from_settings({"clients": [4, 1], "clients_as": ["threads"], "rates_hz": [0], "threading":
                                   ["default"], "objects": [1, 100], "object_order": "random", "arrivals": "poisson",
                                   "sweep": {"clients": 8, "slo_p99": "3ms"}})
    assert plan.clients == (1, 4) and plan.sweep is not None and plan.sweep.slo.p99_ns == 3e6
    assert plan.server_settings() == [("default", 1), ("default", 100)]
    assert plan.sweep.step_calls_per_client(rate_hz=80_000.0) == 5000  # 0.5 s at 80k/s over 8 clients


def test_a_sliced_trial_counts_at_its_median_slice():
    """Known answer: 4 client threads, five slices at 40 us a call and one at 60 us (a slow phase): the trial's
    rate is the median slice's, its measured calls/s times its mean time per call over the median (Little's law:
    44/40 of it); a trial in one piece keeps its measured rate."""
    point = Point(target="omniorb", placement="split-core", mode="twoway", payload_type="octets", payload_bytes=64,
                  clients=4, clients_as="threads")
    sliced = Trial(seq=0, point=point, launch=0, trial=0, status="ok", aggregate_calls_per_s=90_000.0,
                   slice_means_ns=(40_000.0,) * 5 + (60_000.0,))
    whole = Trial(seq=1, point=point, launch=1, trial=0, status="ok", aggregate_calls_per_s=90_000.0)
    rates = trial_rates([sliced, whole])
    assert rates[(0, 0)] == pytest.approx(90_000.0 * (260_000.0 / 6) / 40_000.0)
    assert rates[(1, 0)] == 90_000.0


def test_a_sweeps_later_steps_are_warmed_by_its_first():
    """The full warm-up goes to a sweep's first step only (and to each closed-loop point's first trial): the later
    steps run the same calls at another rate, right after it, a baseline's at a middleware's rate too."""
    session = TargetSession(target=None, runtime=None, logs_dir=Path("."), options={}, tag="t")  # type: ignore[arg-type]
    probe = Point(target="c-socket", placement="split-core", mode="twoway", payload_type="octets", payload_bytes=64,
                  clients=16, clients_as="threads")
    step = probe.replace(arrivals="poisson", offered_load=0.05)
    assert session.first_at(probe) and session.first_at(step)
    assert not session.first_at(step.replace(offered_load=0.2))
    assert not session.first_at(step.replace(offered_load=0.35, load_of="omniorb"))
    assert not session.first_at(probe) and session.first_at(probe.replace(clients=4))
    assert session.first_at(step.replace(payload_bytes=1024, offered_load=0.5))  # another sweep (Point.without_load)


def _closed_loop(target: str, clients: int, launch: int, rate: float, means: tuple[float, ...]) -> Trial:
    point = Point(target=target, placement="split-core", mode="twoway", payload_type="octets", payload_bytes=64,
                  clients=clients, clients_as="threads" if clients > 1 else "processes")
    return Trial(seq=launch, point=point, launch=launch, trial=0, status="ok", aggregate_calls_per_s=rate,
                 slice_means_ns=means)


def _sliced_pair(orb_slow: dict[int, float], base_slow: dict[int, float]) -> dict[Point, list[Trial]]:
    """omniORB at 40 us a call in its slices (130k calls/s at 4 threads), c-socket's beside them at 30 us, in five
    launches; in a launch of `orb_slow`/`base_slow` that side ran that many times slower through the trial."""
    by_point: dict[Point, list[Trial]] = {}
    for launch in range(5):
        f, g = orb_slow.get(launch, 1.0), base_slow.get(launch, 1.0)
        for clients, rate in ((1, 25_000.0), (4, 130_000.0)):
            for t in (_closed_loop("omniorb", clients, launch, rate / f, (40_000.0 * f * clients / 4,) * 6),
                      _closed_loop("c-socket", clients, launch, 4 * rate / 3 / g, (30_000.0 * g * clients / 4,) * 6)):
                by_point.setdefault(t.point, []).append(t)
    return by_point


def test_a_launch_the_host_ran_slow_throughout_counts_at_its_usual_speed():
    """Known answer: in one launch of five the host ran 1.5 times slower through the whole trial, both sides
    alike. Scaled by the baseline's slices, that launch reads as the others (130k calls/s), where its median
    slice alone reads 87k; the capacity's interval is then as narrow as the four alone make it."""
    by_point = _sliced_pair({2: 1.5}, {2: 1.5})
    rows = {c.point.target: c for c in closed_loop_capacities(by_point, {"omniorb": "c-socket"})}
    unscaled = {c.point.target: c for c in closed_loop_capacities(by_point)}["omniorb"]
    assert rows["omniorb"].per_launch == pytest.approx((130_000.0,) * 5) and rows["omniorb"].at_clients == 4
    assert "usual speed" in (rows["omniorb"].capacity_closed_loop_calls_per_s.method or "")
    assert min(unscaled.per_launch) == pytest.approx(130_000.0 / 1.5)
    # The baseline itself is not scaled by itself: its slow launch stays in its row.
    assert min(rows["c-socket"].per_launch) == pytest.approx(4 * 130_000.0 / 3 / 1.5)


def test_a_mode_of_the_baseline_alone_is_not_passed_to_the_middleware():
    """Known answer: the baseline ran twice as slow in one launch (a mode of its own: c-socket's at 64 threads)
    and the middleware beside it did not move: its capacity stays 130k calls/s in every launch, not 260k there."""
    by_point = _sliced_pair({}, {3: 2.0})
    orb, base = ([t for p, ts in by_point.items() if p.target == name and p.clients == 4 for t in ts]
                 for name in ("omniorb", "c-socket"))
    assert speed_scaled_rates(orb, base) == {}  # nothing to scale: the middleware did not follow
    row = {c.point.target: c for c in closed_loop_capacities(by_point, {"omniorb": "c-socket"})}["omniorb"]
    assert row.per_launch == pytest.approx((130_000.0,) * 5)
