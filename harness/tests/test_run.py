"""Real campaigns over loopback: results on disk, ORB-added latency with intervals, a crash mid-run."""

import json
import os
import signal
from pathlib import Path

import pytest
from orbench.campaign.spec import read_campaign
from orbench.results.store import SCHEMA_VERSION, RunStore
from orbench.running.runner import Runner
from orbench.running.schedule import launch_seed, round_order
from orbench.summary.summary import write_summary
from orbench.targets.conformance import Conformance
from orbench.targets.descriptor import read_targets

from tests.conftest import require_targets, run_cli

SMALL = """
name = "small"
targets = ["omniorb", "c-socket"]
modes = ["twoway", "oneway"]
payload_bytes = [1, 1000]
trials = 3
calls = 300
warmup = 50
"""


def test_small_campaign_end_to_end(write_campaign, results_root):
    require_targets("omniorb", "c-socket")
    code, out, err = run_cli("run", str(write_campaign(SMALL)))
    assert code == 0, err
    run_dir = results_root / "small" / "latest"
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["schema_version"] == SCHEMA_VERSION
    assert manifest["environment"]["host"]["kernel"].startswith("Linux") and manifest["placements"][0]["pinned"]
    assert manifest["targets"]["omniorb"]["workers"]["same-core"]["server"]["orb_version"]
    summary = json.loads((run_dir / "summary.json").read_text())
    orb_points = [p for p in summary["points"] if p["target"] == "omniorb"]
    assert len(orb_points) == 4
    for p in orb_points:
        added = p["orb_added_latency_ns"]
        # 3 trials of 300 calls, each two slices of 150 but the first, which reads the anatomy whole: 2 x 2 pairs
        assert added["baseline"] == "c-socket" and added["pairs"] == 4
        assert added["ci95_low"] <= added["estimate"] <= added["ci95_high"]
        assert p["latency_ns"]["p50"] <= p["latency_ns"]["p99"] <= p["latency_ns"]["max"]
    oneway = [p for p in summary["points"] if p["mode"] == "oneway"]
    assert all(p["oneway"]["lost_messages"] == 0 and p["oneway"]["receiver_throughput_msgs_per_s"] > 0
               for p in oneway)
    assert (run_dir / "report.html").exists()
    assert "ORB-added" in out  # the summary table
    # Every round runs one trial of each target, in the order schedule.round_order draws from the recorded seed.
    trials = RunStore(run_dir.resolve()).read_trials()
    seed = launch_seed(manifest["campaign"]["order_seed"], 0)
    assert manifest["launches"][0] == {**manifest["launches"][0], "launch": 0, "seed": seed}
    group = trials[0].point.group
    mine = [t for t in trials if t.point.group == group]  # the groups' rounds are interleaved (interleave_groups)
    for k in range(3):
        assert [t.point.target for t in mine[2 * k:2 * k + 2]] == \
            [t.name for t in round_order(read_campaign(write_campaign(SMALL)).targets, group, k, seed,
                                         {"omniorb": "c-socket"})]
        assert [t.trial for t in mine[2 * k:2 * k + 2]] == [k, k]


def test_crashed_server_fails_its_point_and_the_campaign_goes_on(write_campaign, results_root):
    require_targets("omniorb", "c-socket")
    # Group after group (not interleaved), so the first group ends before the crash.
    campaign = read_campaign(write_campaign(SMALL.replace("trials = 3", "trials = 2") + "interleave_groups = false\n"))
    store = RunStore.create(campaign.name)
    killed = {}

    done = []

    def kill_after_first_point(runner, t):
        # After the first point group finished (2 trials of 2 targets, in any order; the launch draws the order
        # of groups), kill -9 the omniORB server before its next trial.
        done.append(t)
        if not killed and len(done) == 4:
            assert len({x.point.group for x in done}) == 1
            killed["pid"] = runner.sessions["omniorb"].server.pid
            os.kill(killed["pid"], signal.SIGKILL)

    failed = Runner(campaign, store, on_trial_done=kill_after_first_point).run()
    summary = write_summary(store)
    assert killed and failed >= 1
    trials = store.read_trials()
    groups = list(dict.fromkeys(t.point.group for t in trials))
    bad = [t for t in trials if t.status == "failed"]
    assert bad[0].point.target == "omniorb" and bad[0].point.group == groups[1]
    assert "server" in bad[0].error and "SIGKILL" in bad[0].error
    by = {p.point: p for p in summary.points}
    first, last = groups[0], groups[-1]
    assert by[first.with_target("omniorb")].status == "ok", "the finished point stays"
    # the harness restarted omniORB and went on
    assert by[last.with_target("omniorb")].status == "ok"
    assert store.read_manifest()["status"] == "complete-with-failures"
    assert store.read_manifest()["targets"]["omniorb"]["workers"]["same-core"]["starts"] == 2


def test_unknown_target_on_the_command_line(results_root):
    code, out, err = run_cli("check-target", "nosuchorb")
    assert code == 2 and "unknown target 'nosuchorb'" in err
    code, out, err = run_cli("check-target", "c-socket", "--only", "soak,sock")
    assert code == 2 and "--only: unknown group 'sock' (known: runs, shapes" in err, err


def test_check_target_on_the_command_line_runs_the_groups_asked_for(tmp_path):
    require_targets("c-socket")
    code, out, err = run_cli("check-target", "c-socket", "--only", "soak")
    assert code == 0, out + err
    assert "PASS  client connects" in out and "PASS  soak run sends its intervals" in out, out
    assert "long haul" not in out and "run twoway" not in out, out
    with pytest.raises(ValueError, match="unknown step group 'sock'"):
        Conformance(read_targets()["c-socket"], log_dir=tmp_path, only=frozenset({"soak", "sock"}))


def test_interrupted_run_stops_every_worker_and_keeps_what_finished(write_campaign, results_root):
    import subprocess
    import sys
    import time

    from orbench.paths import repo_root
    from orbench.running.cpu_usage import own_tree_ticks

    require_targets("omniorb", "c-socket")
    path = write_campaign(SMALL.replace("calls = 300", "calls = 3000").replace("trials = 3", "trials = 20"))
    proc = subprocess.Popen([sys.executable, "-m", "orbench", "run", str(path), "--no-report"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    trials = results_root / "small" / "latest" / "trials.csv"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run_dirs = list((results_root / "small").glob("2*/trials.csv")) if (results_root / "small").exists() else []
        if run_dirs and len(run_dirs[0].read_text().splitlines()) >= 4:
            trials = run_dirs[0]
            break
        time.sleep(0.2)
    # This run's workers, not another test's (`make test` runs two test files at once).
    workers = {p: c for p in own_tree_ticks(proc.pid) if f"{repo_root()}/cpp/build/orbench-" in (c := _cmdline(p))}
    assert workers, "no worker of the run found running before its interrupt"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    manifest = json.loads((trials.parent / "manifest.json").read_text())
    assert manifest["status"] == "interrupted"
    assert len(trials.read_text().splitlines()) >= 4, "finished trials are kept"
    assert (trials.parent / "summary.json").exists()
    leftover = [f"{p} {c}" for p, c in workers.items() if _cmdline(p) == c]
    assert not leftover, f"workers left running: {leftover}"


def _cmdline(pid: int) -> str:
    """The process's command line, "" once it is gone (or a zombie, whose command line is empty)."""
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""

