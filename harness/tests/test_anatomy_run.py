"""The anatomy of a call in real campaigns: trials.csv fields, the anatomy mode's traced trials, summary.json,
the report's section and `orbench export`, with the socket baselines' wire bytes known to the byte."""

from __future__ import annotations

import csv
import json
import os

import pytest
from orbench.anatomy.delta import trial_fields
from orbench.results.store import RunStore
from orbench.results.trial import MEASUREMENT_FIELDS
from orbench.summary.summary import current_summary, read_summary

from tests.conftest import campaign_error, require_targets, run_cli

HEADER, REPLY, COUNTERS_REPLY = 12, 24, 40
PAYLOAD, CALLS, WARMUP = 100, 1000, 100

CAMPAIGN = f"""
name = "anatomy"
targets = ["c-socket", "java-socket"]
modes = ["twoway"]
payload_bytes = [{PAYLOAD}]
trials = 2
calls = {CALLS}
warmup = {WARMUP}
jvm_warmup = {WARMUP}
anatomy_trials = "all"
"""


def test_every_trial_field_is_a_measurement_field():
    from orbench.anatomy.delta import Window
    from orbench.anatomy.snapshot import HostSnapshot

    empty = HostSnapshot(0.0, {}, {}, {})
    fields = trial_fields(Window(1, 2, empty, empty, empty, empty, True), 10, 10, {"allocations": 1}, {})
    assert set(fields) <= set(MEASUREMENT_FIELDS)


def test_an_unknown_anatomy_mode_names_the_key(write_campaign):
    assert "anatomy" in campaign_error(write_campaign, CAMPAIGN + 'anatomy = "everything"\n')


def test_the_anatomy_of_the_socket_baselines(write_campaign, results_root):
    require_targets("c-socket", "java-socket")
    code, out, err = run_cli("run", str(write_campaign(CAMPAIGN)), "--anatomy")
    assert code == 0, err
    run_dir = (results_root / "anatomy" / "latest").resolve()
    store = RunStore(run_dir)
    trials = store.read_trials()
    assert len(trials) == 4 and all(t.ok for t in trials)
    made = CALLS + WARMUP
    for t in trials:
        # Every request of the run command: the calls, two resets and a counters request (12-byte header each).
        assert t.anatomy_calls == made
        assert t.wire_out_bytes == round((made * (HEADER + PAYLOAD) + 3 * HEADER) / made, 2)
        assert t.wire_in_bytes == round((made * REPLY + 2 * REPLY + COUNTERS_REPLY) / made, 2)
        assert t.wire_out_segs == round((made + 3) / made, 3) and t.tcp_retrans == 0
        assert t.client_cpu_us > 0 and t.server_cpu_us > 0
        assert t.client_vcsw is not None and t.server_ivcsw is not None
        if t.point.target == "c-socket":
            # Blocking request-reply: the client sleeps in recv at most once per call.
            assert t.client_vcsw <= 1.1
            # send/recv are not read/write calls (syscr, syscw) but the counter's: one of each per call, each
            # end; the timed loop allocates nothing.
            assert t.client_writes < 0.01 and t.client_allocs == 0 and t.client_alloc_bytes == 0
            assert abs(t.client_sends - 1) <= 0.01 and abs(t.server_recvs - 1) <= 0.01
        else:
            # java.net.Socket streams read and write: one write per request, one or two reads per reply; no
            # send or recv.
            assert abs(t.client_writes - 1) <= 0.05 and 1 <= t.client_reads <= 2.05
            assert t.client_sends == 0 and t.server_recvs == 0
            assert t.client_thread_alloc_bytes is not None and t.client_gc_count is not None
            assert t.server_alloc_bytes is not None
    traced = store.read_traced()
    assert {t.point.target for t in traced} == {"c-socket", "java-socket"}
    strace_ok = all(t.ok for t in traced)
    if not strace_ok:
        why = "; ".join(t.error for t in traced)
        if os.geteuid() != 0 and ("ptrace" in why or "not permitted" in why):
            pytest.skip(f"strace cannot attach here: {why}")
        raise AssertionError(why)
    c_traced = next(t for t in traced if t.point.target == "c-socket")
    calls = dict(item.split("=") for item in c_traced.client_syscalls.split(";"))
    # One send per call; one recv per reply (header and body arrive together).
    assert abs(float(calls["sendto"]) - 1) <= 0.05 and 1 <= float(calls["recvfrom"]) <= 2.05

    summary = read_summary(RunStore(run_dir))
    assert summary is not None
    point = next(p for p in summary.points if p.point.target == "c-socket")
    anatomy = point.anatomy
    assert anatomy.wire_out_bytes.median == trials[0].wire_out_bytes
    assert anatomy.wire_out_bytes.trials == 2 and anatomy.syscalls.client["sendto"] > 0.95
    assert anatomy.client_writes_sends.median == pytest.approx(1, abs=0.01)
    assert anatomy.server_reads_recvs.median == pytest.approx(1, abs=0.01)
    report = (run_dir / "report.html").read_text()
    assert "Anatomy of a call" in report and "anatomy-cpu-" in report
    assert "read + recv / write + send" in report

    code, out, err = run_cli("export", str(run_dir))
    assert code == 0, err
    with open(run_dir / "export" / "anatomy.csv", newline="") as f:
        rows = {r["target"]: r for r in csv.DictReader(f)}
    assert float(rows["c-socket"]["wire_out_bytes"]) == trials[0].wire_out_bytes
    assert rows["c-socket"]["client_syscalls"].startswith(("sendto=", "recvfrom="))
    assert float(rows["c-socket"]["client_writes_sends"]) == anatomy.client_writes_sends.median


BASELINES = ["c-socket", "java-socket", "java-nio", "java-jni", "java-jni-direct", "python-socket"]


@pytest.mark.slow
@pytest.mark.parametrize("targets", [BASELINES, ["java-ffm"]], ids=["default-jdk", "java-ffm"])
def test_every_socket_baseline_makes_one_write_and_one_read_per_twoway_call(targets, write_campaign,
                                                                             results_root):
    """The anatomy of a run of every socket baseline, twoway at 1 KB: about one write-family and one read-family
    call per call at each end, send/recv included (C, JNI, FFM, Python) or read/write (java.net, NIO)."""
    require_targets(*targets)
    jdk = ""
    if "java-ffm" in targets:
        from orbench.hosts.jdk import newest_jdk
        from orbench.targets.descriptor import read_targets

        found = newest_jdk(read_targets()["java-ffm"].required_java)
        jdk = f"jdk = {json.dumps(str(found.java))}" if found else ""
    text = f"""
name = "baselines"
targets = {json.dumps(targets)}
modes = ["twoway"]
payload_bytes = [1024]
trials = 2
calls = 2000
warmup = 200
jvm_warmup = 2000
{jdk}
"""
    code, _out, err = run_cli("run", str(write_campaign(text)), "--no-report")
    assert code == 0, err
    summary = read_summary(RunStore((results_root / "baselines" / "latest").resolve()))
    assert summary is not None
    seen = {}
    for point in summary.points:
        a = point.anatomy
        assert a is not None, point.point.target
        figures = {name: a.median(name) for name in ("client_reads_recvs", "client_writes_sends",
                                                     "server_reads_recvs", "server_writes_sends")}
        seen[point.point.target] = figures
    assert set(seen) == set(targets)
    for target, figures in seen.items():
        for name, value in figures.items():
            assert value is not None and abs(value - 1) <= 0.1, (target, name, seen)


def test_anatomy_off_reads_nothing(write_campaign, results_root):
    require_targets("c-socket")
    text = CAMPAIGN.replace('"c-socket", "java-socket"', '"c-socket"').replace("trials = 2", "trials = 1")
    code, _out, err = run_cli("run", str(write_campaign(text + 'anatomy = "off"\n')), "--no-report")
    assert code == 0, err
    store = RunStore((results_root / "anatomy" / "latest").resolve())
    assert [t.anatomy_calls for t in store.read_trials()] == [None]
    assert not store.traced_path.exists()


def test_a_run_from_before_the_send_recv_counter_reads_without_its_counts(write_campaign, results_root):
    """A schema-11 run (no send/recv columns) reads through the upgrade with those counts empty, never 0: its
    summary has reads and writes alone, no read + recv sums, and the report marks the figure as read/write only."""
    import csv as csv_module

    from orbench.commands.common import make_report
    from orbench.results.trial import COLUMNS

    require_targets("c-socket")
    text = CAMPAIGN.replace('"c-socket", "java-socket"', '"c-socket"').replace("trials = 2", "trials = 1")
    code, _out, err = run_cli("run", str(write_campaign(text)), "--no-report")
    assert code == 0, err
    run_dir = (results_root / "anatomy" / "latest").resolve()
    # As version 11 wrote it: without the four columns, its manifest saying 11, no summary yet.
    new = ("client_recvs", "client_sends", "server_recvs", "server_sends")
    path = run_dir / "trials.csv"
    with open(path, newline="") as f:
        rows = list(csv_module.DictReader(f))
    assert rows and all(rows[0][c] for c in new)  # this run counted them
    with open(path, "w", newline="") as f:
        w = csv_module.DictWriter(f, fieldnames=[c for c in COLUMNS if c not in new])
        w.writeheader()
        w.writerows({k: v for k, v in r.items() if k not in new} for r in rows)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    (run_dir / "manifest.json").write_text(json.dumps({**manifest, "schema_version": 11}))
    (run_dir / "summary.json").unlink(missing_ok=True)

    store = RunStore(run_dir)
    (trial,) = store.read_trials()
    assert trial.client_sends is None and trial.server_recvs is None and trial.client_reads is not None
    anatomy = current_summary(store).points[0].anatomy
    assert anatomy.client_reads is not None and anatomy.client_sends is None
    assert anatomy.client_reads_recvs is None and anatomy.server_writes_sends is None
    report = make_report(run_dir)
    assert report is not None and "read / write only: send/recv not counted" in report.read_text()
