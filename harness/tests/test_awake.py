"""awake_cpus (running/awake.py): a SCHED_IDLE busy loop on each pinned CPU for the whole run, gone when the run
ends however it ends, and counted as orbench's own work rather than as other work on the machine. Real
processes, and a real campaign through the runner."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from statistics import median

import pytest
from orbench.running.awake import AwakeCPUs
from orbench.running.cpu_usage import own_tree_ticks

from tests.conftest import require_targets, run_cli


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _cpu_ns(pid: int) -> int:
    """The scheduler's on-CPU time of the process's main thread (/proc/PID/schedstat), ns."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])


def test_one_idle_policy_loop_per_cpu_that_spins_and_ends_with_the_block():
    cpus = sorted(os.sched_getaffinity(0))
    with AwakeCPUs(cpus) as awake:
        pids = [p.pid for p in awake.procs]
        assert len(pids) == len(cpus)
        before = [_cpu_ns(p) for p in pids]
        for pid, cpu, ran in zip(pids, cpus, before):
            assert os.sched_getscheduler(pid) == os.SCHED_IDLE
            assert os.sched_getaffinity(pid) == {cpu}
            # It runs when its CPU has nothing else to run: at once on an idle machine, later on a busy one.
            deadline = time.monotonic() + 10
            while _cpu_ns(pid) <= ran and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _cpu_ns(pid) > ran, "a busy loop that does not run keeps nothing awake"
        assert awake.as_dict()["cpus"] == cpus
        # The harness's CPU accounting counts its own process tree, so the loops are not "other work".
        assert set(pids) <= set(own_tree_ticks())
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids)


def test_the_loops_end_when_the_harness_is_killed(tmp_path):
    """SIGKILL leaves no cleanup to the harness: the kernel ends the loops (PR_SET_PDEATHSIG)."""
    script = ("import sys, time\nfrom orbench.running.awake import AwakeCPUs\n"
              "a = AwakeCPUs([0])\na.start()\nprint(a.procs[0].pid, flush=True)\ntime.sleep(60)\n")
    harness = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert harness.stdout is not None
        loop = int(harness.stdout.readline())
        assert _alive(loop)
        harness.send_signal(signal.SIGKILL)
        harness.wait()
        deadline = time.monotonic() + 5
        while _alive(loop) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(loop), "a busy loop outlived the harness that started it"
    finally:
        harness.kill()
        harness.wait()


@pytest.mark.exclusive  # it reads other processes' share of the CPUs: `make test` runs it alone
def test_a_campaign_keeps_its_pinned_cpus_awake_and_counts_the_loops_as_its_own(write_campaign, results_root):
    require_targets("c-socket")
    path = write_campaign('name = "awake"\ntargets = ["c-socket"]\nmodes = ["twoway"]\npayload_bytes = [64]\n'
                          'placements = ["split-core"]\ntrials = 3\ncalls = 2000\nwarmup = 100\nawake_cpus = true\n')
    code, out, err = run_cli("run", str(path), "--no-report")
    assert code == 0, err
    run_dir = results_root / "awake" / "latest"
    manifest = json.loads((run_dir / "manifest.json").read_text())
    placement = manifest["placements"][0]
    assert manifest["awake_cpus"]["cpus"] == sorted({int(placement["server_cpus"]), int(placement["client_cpus"])})
    assert manifest["campaign"]["awake_cpus"] is True
    rows = [line.split(",") for line in (run_dir / "trials.csv").read_text().splitlines()]
    trials = [dict(zip(rows[0], r)) for r in rows[1:]]
    foreign = [float(t["foreign_cpu_pct"]) for t in trials if t["foreign_cpu_pct"]]
    # On a 2-CPU machine two loops counted as other work would read as about half of it (the "busy machine"
    # warning); on a larger one this bound says less, and the test above checks the accounting itself.
    assert foreign and median(foreign) < 30, foreign
    assert "busy machine" not in err
