"""Stalls, environment differences, grouped warnings and the attribution of CPU load to orbench's own processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from orbench.results.run_warnings import RunWarning, grouped_lines
from orbench.running.cpu_usage import cpu_times, foreign_cpu_pct, own_ticks_used, own_tree_ticks
from orbench.stats.stalls import find_stall
from orbench.summary.envdiff import environment_differences


def test_a_few_calls_taking_most_of_the_time_are_a_stall():
    # The TAO case: 34 calls of ~208 ms in a trial of 5000 calls of ~20 us: 97% of the time in 0.7% of calls.
    samples = np.full(5000, 20_000.0)
    samples[100:134] = 208e6
    stall = find_stall(samples)
    assert stall is not None and stall.calls == 34 and stall.of_calls == 5000
    assert stall.share > 0.97 and stall.longest_ns == 208e6


def test_a_steady_trial_or_a_second_mode_is_no_stall():
    rng = np.random.default_rng(2)
    assert find_stall(rng.lognormal(np.log(20_000), 0.2, 5000)) is None
    one_pause = np.full(5000, 20_000.0)
    one_pause[7] = 5e6  # a 5 ms GC pause in a 100 ms trial: 5%, not most of its time
    assert find_stall(one_pause) is None
    bimodal = np.concatenate([np.full(4000, 20_000.0), np.full(1000, 400_000.0)])  # 20% of calls: a mode
    assert find_stall(bimodal) is None
    hiccup = np.full(1000, 1_000.0)  # a oneway trial of 1 ms, and one 3 ms hiccup: 75% of it, but 3 ms only
    hiccup[500] = 3e6
    assert find_stall(hiccup) is None


def _manifest(kernel="6.1", commit="a" * 40, orb_version="4.2.5", server_cpus="1"):
    return {"environment": {"host": {"kernel": kernel, "cpu_model": "Xeon", "logical_cpus": 2,
                                     "java_version": 'openjdk version "17.0.15"'},
                            "git": {"commit": commit, "dirty": False}},
            "placements": [{"name": "same-core", "server_cpus": server_cpus, "client_cpus": "1"}],
            "targets": {"omniorb": {"workers": {"same-core": {
                "server": {"orb": "omniORB", "orb_version": orb_version},
                "client": {"orb": "omniORB", "orb_version": orb_version}}}}}}


def test_environment_differences_name_what_differs():
    assert environment_differences(_manifest(), _manifest()) == []
    diffs = environment_differences(_manifest(), _manifest(kernel="6.12", commit="b" * 40, orb_version="4.3.0",
                                                            server_cpus="0"))
    texts = [d.text() for d in diffs]
    assert texts[0] == "kernel: '6.1' vs '6.12'"
    assert any(t.startswith("placement same-core: 'server CPUs 1") for t in texts)
    assert any("omniorb version" in t and "4.3.0" in t for t in texts)
    assert "orbench commit: 'aaaaaaaaaaaa' vs 'bbbbbbbbbbbb'" in texts


def test_warnings_are_one_line_per_kind_with_the_worst_case():
    warnings = [RunWarning("trial p50s unsteady", f"twoway {n} B omniorb", f"robust CV {n}%", n) for n in (30, 60, 45)]
    warnings.append(RunWarning("busy machine", "", "other processes used 40% of the CPUs", 40))
    assert grouped_lines(warnings) == [
        "trial p50s unsteady: twoway 60 B omniorb: robust CV 60% (and 2 more like it: summary.json lists all)",
        "busy machine: other processes used 40% of the CPUs",
    ]


# Spins until it has used 0.5 s of CPU (however loaded the machine is), says so, then waits to be killed.
SPIN = ("import sys, time\nwhile time.process_time() < 0.5: pass\nprint('spun', flush=True)\n"
        "sys.stdin.read()")


def _spin(argv_prefix: list[str]) -> subprocess.Popen:
    proc = subprocess.Popen([*argv_prefix, sys.executable, "-c", SPIN], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    return proc


def test_cpu_time_of_orbench_s_process_tree_is_its_own():
    # A worker is a child of the harness (through taskset, a shell or ssh): its CPU time is orbench's own.
    before, cpus_before = own_tree_ticks(), cpu_times()
    child = _spin(["sh", "-c", 'exec "$@"', "sh"])
    assert child.stdout.readline().strip() == "spun"
    own = own_ticks_used(before, own_tree_ticks())
    cpus_after = cpu_times()
    child.stdin.close()
    child.wait()
    assert own >= 45, own  # 0.5 s is 50 jiffies at USER_HZ 100
    # Its time is taken out of the machine's busy time: what is left is other processes' share.
    assert foreign_cpu_pct(cpus_before, cpus_after, own) < foreign_cpu_pct(cpus_before, cpus_after, 0)


def test_cpu_time_of_a_child_that_ended_stays_orbench_s_own():
    # A short command the harness ran and reaped between two readings (the anatomy's snapshot script): its time
    # moves into the harness's reaped-children time, and stays in the tree.
    before = own_tree_ticks()
    child = _spin([])
    assert child.stdout.readline().strip() == "spun"
    child.stdin.close()
    child.wait()
    assert own_ticks_used(before, own_tree_ticks()) >= 45


def test_cpu_time_of_a_process_outside_the_tree_is_foreign():
    # A process that left the tree (its parent exited, it was re-parented) is other work on the machine.
    before = own_tree_ticks()
    script = "import time\nwhile time.process_time() < 0.5: pass\ntime.sleep(60)"
    orphan = subprocess.Popen(["sh", "-c", f"{sys.executable} -c '{script}' > /dev/null 2>&1 < /dev/null & echo $!"],
                              stdout=subprocess.PIPE, text=True)
    pid = int(orphan.stdout.readline())
    orphan.wait()
    try:
        deadline = time.monotonic() + 60
        while _ticks(pid) < 45 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _ticks(pid) >= 45, "the orphan did not spin"
        assert own_ticks_used(before, own_tree_ticks()) < 20
    finally:
        os.kill(pid, signal.SIGKILL)


def _ticks(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rfind(")") + 2:].split()
    return int(fields[11]) + int(fields[12])
