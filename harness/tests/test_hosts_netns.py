"""Campaigns across real hosts over real SSH: two network-namespace hosts, each with its own sshd, server on one
and client on the other, and the faults a real network has (a killed server, an interrupt, an unreachable
host, a missing JDK, a link that goes down). After each, no worker may be left on any host.

Needs root and `ip netns`; skips with the reason otherwise (CI runs as root, so these run there).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from orbench.campaign.spec import read_campaign
from orbench.hosts.netns import Lab, netem_missing, why_no_lab
from orbench.results.store import RunStore
from orbench.running.runner import Runner
from orbench.summary.summary import write_summary

from tests.conftest import require_targets, run_cli

pytestmark = pytest.mark.skipif(bool(why_no_lab()), reason=why_no_lab() or "")

# A worker that dies must be reported within this (the promise).
DEATH_NOTICED_S = 10.0


@pytest.fixture
def workdir(tmp_path):
    return tmp_path / "remote"


def campaign_text(lab: Lab, workdir: Path, targets: list[str], name: str = "nshosts", trials: int = 2,
                  sizes: str = "[1, 1024]", pair: str = '["alpha", "beta"]', extra: str = "",
                  host_extra: dict | None = None, calls: int = 300) -> str:
    return f"""
name = "{name}"
targets = {json.dumps(targets)}
modes = ["twoway"]
payload_bytes = {sizes}
trials = {trials}
calls = {calls}
warmup = 50
jvm_warmup = 1500
host_pairs = [{pair}]
{extra}
{lab.campaign_ssh()}
{lab.campaign_hosts(workdir, **(host_extra or {}))}
"""


def assert_no_workers(lab: Lab, wait_s: float = 10.0) -> None:
    """No orbench worker in any namespace host and no port bound but sshd's (after a short grace)."""
    deadline = time.monotonic() + wait_s
    while True:
        left = {h.name: (h.worker_pids(), h.listening_ports()) for h in lab.hosts}
        if not any(p or s for p, s in left.values()):
            return
        if time.monotonic() > deadline:
            pytest.fail(f"workers or ports left on the hosts: {left}")
        time.sleep(0.2)


# The C++ ORB and its baseline in `make test` (4.1 s alone, quiet); the JVM's (a jar deployed, JVMs started over
# SSH) in the slow layer: every step they share is the C++ one's, and test_missing_jdk_on_a_host keeps a remote
# JDK's check fast.
LANGUAGES = {"c++": ("omniorb", "c-socket"), "java": ("jacorb", "java-socket")}


@pytest.mark.parametrize("language", ["c++", pytest.param("java", marks=pytest.mark.slow)])
def test_an_orb_and_its_baseline_across_two_hosts(language, lab, workdir, write_campaign, results_root):
    orb, baseline = LANGUAGES[language]
    require_targets(orb, baseline)
    # The anatomy read around every trial (each is then sequential), to check it on both hosts each time.
    path = write_campaign(campaign_text(lab, workdir, [orb], extra='anatomy_trials = "all"'))
    code, out, err = run_cli("run", str(path), "--no-report")
    assert code == 0, err
    run_dir = (results_root / "nshosts" / "latest").resolve()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    alpha, beta = lab.hosts
    # Both hosts' environments, with the facts that matter across machines.
    for host, peer in ((alpha, beta), (beta, alpha)):
        env = manifest["hosts"][host.name]["environment"]
        assert env["url"] == host.url and env["peer_address"] == peer.address
        assert env["kernel"] and env["logical_cpus"] >= 1 and env["usable_cpus"]
        assert env["peer_dev"] == "eth0" and env["peer_dev_mtu"] == 1500
        assert env["sysctl.net.ipv4.tcp_congestion_control"]
        assert manifest["hosts"][host.name]["campaign_dir"].startswith(str(workdir))
    pair = manifest["host_pairs"][0]
    assert len(manifest["host_pairs"]) == 1 and pair["label"] == "alpha--beta" and pair["server"] == "alpha"
    assert pair["client"] == "beta" and pair["bind_address"] == alpha.address
    assert pair["placements"][0]["name"] == "same-core" and pair["placements"][0]["pinned"]
    # Deployed into the per-campaign directory: binaries, jar and lib/ only.
    alpha_dir = Path(manifest["hosts"]["alpha"]["campaign_dir"])
    deployed = "java/target/orbench-workers.jar" if language == "java" else "cpp/build/orbench-omniorb-server"
    assert (alpha_dir / deployed).is_file()
    assert not (alpha_dir / "cpp/build/CMakeCache.txt").exists()
    # Servers bound the named address and advertised it.
    workers = manifest["targets"][baseline]["workers"]["alpha--beta same-core"]
    assert workers["endpoint"].startswith(f"tcp://{alpha.address}:")
    assert workers["server"]["target"] == baseline
    summary = json.loads((run_dir / "summary.json").read_text())
    orb_points = [p for p in summary["points"] if p["kind"] == "orb"]
    assert {p["target"] for p in orb_points} == {orb} and len(orb_points) == 2
    for p in orb_points:
        assert p["host_pair"] == "alpha--beta" and p["status"] == "ok"
        added = p["orb_added_latency_ns"]
        assert added["pairs"] == 2 and added["baseline"] == baseline
    # The samples came home: every ok row's file is in the local store.
    trials = RunStore(run_dir).read_trials()
    assert len(trials) == 8 and all(t.ok and t.point.host_pair == "alpha--beta" for t in trials)
    assert all((run_dir / t.samples_file).stat().st_size == 300 * 8 for t in trials)
    # Each trial's load figures were read on the pair's two hosts (over SSH), not on the harness's machine.
    assert all(t.usage_hosts == "alpha beta" and t.loadavg_1m is not None and t.steal_pct is not None
               for t in trials)
    assert {s["host_pair"] for s in manifest["stopping"]} == {"alpha--beta"}
    assert not list((alpha_dir.parent / "beta" / "samples").iterdir()), "remote samples are removed once copied"
    # The anatomy of each call was read where each worker ran: the server's counters on alpha, the client's
    # and its socket's on beta (over SSH); the C baseline's wire bytes are exact (12-byte header + payload per
    # request, two resets and a counters request besides).
    assert all(t.client_cpu_us and t.server_cpu_us and t.anatomy_calls == t.calls + t.warmup for t in trials)
    for t in trials:
        if t.point.target == "c-socket":
            made = t.anatomy_calls
            assert t.wire_out_bytes == round((made * (12 + t.point.payload_bytes) + 36) / made, 2), t
        # The send/recv counter was deployed and preloaded on both hosts, and read there: one send and one recv
        # per twoway call at each end for the C baseline and omniORB (GIOP's header and body in one recv).
        if t.point.target in ("c-socket", "omniorb"):
            for figure in (t.client_sends, t.client_recvs, t.server_sends, t.server_recvs):
                assert figure is not None and abs(figure - 1) <= 0.05, t
    assert (alpha_dir / "cpp/build/liborbench-syscount.so").is_file()
    assert_no_workers(lab, wait_s=2)


def test_remote_server_killed_is_reported_and_the_campaign_goes_on(lab, workdir, write_campaign, results_root):
    require_targets("omniorb", "c-socket")
    campaign = read_campaign(write_campaign(campaign_text(lab, workdir, ["omniorb"], sizes="[1, 1000]")))
    store = RunStore.create(campaign.name)
    alpha = lab.hosts[0]
    seen: dict = {}

    def kill_remote_server(runner, t):
        if not seen and t.point.target == "c-socket" and t.trial == 0:
            # While they run: servers listen on alpha's address only, never 0.0.0.0.
            seen["listening"] = alpha.listening_ports()
            pid = next(p for p in alpha.worker_pids()
                       if b"omniorb-server" in Path(f"/proc/{p}/cmdline").read_bytes())
            os.kill(pid, signal.SIGKILL)  # kill -9 on the server host
            seen["killed_at"] = time.monotonic()
        elif "killed_at" in seen and t.status == "failed" and "reported_after" not in seen:
            seen["reported_after"] = time.monotonic() - seen["killed_at"]

    failed = Runner(campaign, store, on_trial_done=kill_remote_server).run()
    assert seen["listening"] and all(s.startswith(alpha.address + ":") for s in seen["listening"])
    assert failed == 1 and seen["reported_after"] < DEATH_NOTICED_S
    trials = store.read_trials()
    bad = [t for t in trials if t.status == "failed"]
    assert bad[0].point.target == "omniorb" and "server" in bad[0].error and "alpha" in bad[0].error
    # The campaign went on: omniORB, restarted, measured again after the failure (the groups are interleaved, so
    # the failed trial's group and the other one both ran on).
    assert any(t.ok and t.point.target == "omniorb" and t.seq > bad[0].seq for t in trials), "the campaign went on"
    other = next(t.point.group for t in trials if t.point.group != bad[0].point.group)
    summary = write_summary(store)
    status = {p.point.payload_bytes: p.status for p in summary.points if p.point.target == "omniorb"}
    assert status == {bad[0].point.payload_bytes: "partial", other.payload_bytes: "ok"}
    assert_no_workers(lab)


@pytest.mark.slow  # tens of seconds of remote campaign
def test_interrupted_campaign_resumes_without_redoing_trials(lab, workdir, write_campaign, results_root):
    require_targets("omniorb", "c-socket")
    path = write_campaign(campaign_text(lab, workdir, ["omniorb"], name="resume", trials=3, sizes="[1, 1000, 4000]"))
    proc = subprocess.Popen([sys.executable, "-m", "orbench", "run", str(path), "--no-report"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    trials_csv = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = list((results_root / "resume").glob("*/trials.csv"))
        if found and len(found[0].read_text().splitlines()) >= 1 + 4:
            trials_csv = found[0]
            break
        time.sleep(0.1)
    assert trials_csv is not None, proc.communicate(timeout=60)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "--resume" in err
    assert_no_workers(lab, wait_s=5)
    run_dir = trials_csv.parent
    before = RunStore(run_dir).read_trials()
    assert 4 <= len(before) < 18 and json.loads((run_dir / "manifest.json").read_text())["status"] == "interrupted"

    code, out, err = run_cli("run", "--resume", str(run_dir), "--no-report")
    assert code == 0, err
    trials = RunStore(run_dir).read_trials()
    done_before = {(t.point, t.trial) for t in before if t.ok}
    keys = [(t.point, t.trial) for t in trials if t.ok]
    assert len(keys) == len(set(keys)) == 18, "every trial once"
    assert trials[:len(before)] == before, "finished trials are kept as they were"
    assert not done_before & {(t.point, t.trial) for t in trials[len(before):]}
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "complete" and len(manifest["resumed"]) == 1
    assert_no_workers(lab)


def test_unreachable_host_and_unknown_host_key_fail_fast_and_clearly(lab, workdir, write_campaign, results_root):
    require_targets("c-socket")
    dead = f"ssh://root@10.200.{lab.k}.77:22"  # inside the lab's subnet, nobody there
    path = write_campaign(campaign_text(lab, workdir, ["c-socket"], pair=f'["alpha", "{dead}"]'))
    started = time.monotonic()
    code, _out, err = run_cli("run", str(path), "--no-report")
    assert code == 2 and time.monotonic() - started < 30
    assert f"10.200.{lab.k}.77" in err and "unreachable" in err and "nothing ran" in err
    assert not (results_root / "nshosts").exists() or not any((results_root / "nshosts").iterdir())
    # A host whose key is not in known_hosts is refused (StrictHostKeyChecking=yes), never trusted on first use.
    text = campaign_text(lab, workdir, ["c-socket"]).replace(str(lab.known_hosts), str(workdir / "empty_known"))
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "empty_known").write_text("")
    code, _out, err = run_cli("run", str(write_campaign(text, "strict.toml")), "--no-report")
    assert code == 2 and "Host key verification failed" in err
    assert_no_workers(lab, wait_s=2)


def test_missing_jdk_on_a_host_is_named_before_anything_runs(lab, workdir, write_campaign, results_root):
    require_targets("jacorb", "java-socket")
    path = write_campaign(campaign_text(lab, workdir, ["jacorb"],
                                        host_extra={"beta": {"java": "/nonexistent/jdk/bin/java"}}))
    code, _out, err = run_cli("run", str(path), "--no-report")
    assert code == 2, err
    assert "beta" in err and "target jacorb" in err and "/nonexistent/jdk/bin/java" in err and "no JDK" in err
    assert "target java-socket" in err
    assert_no_workers(lab, wait_s=2)


@pytest.mark.slow  # tens of seconds of remote campaign
def test_link_down_mid_run_fails_the_pair_clearly_without_hanging(lab, workdir, write_campaign, results_root):
    require_targets("omniorb", "c-socket")
    campaign = read_campaign(write_campaign(campaign_text(lab, workdir, ["omniorb"], sizes="[1, 1000, 4000]")))
    store = RunStore.create(campaign.name)
    beta = lab.hosts[1]
    cut: dict = {}

    def cut_the_client_host(runner, t):
        if not cut:
            lab.cut(beta)
            cut["at"] = time.monotonic()

    try:
        failed = Runner(campaign, store, on_trial_done=cut_the_client_host).run()
        took = time.monotonic() - cut["at"]
    finally:
        lab.mend(beta)
    trials = store.read_trials()
    assert failed == len(trials) - 1 and trials[0].ok
    assert took < 30, f"the run took {took:.0f} s after the link went down"
    assert "beta" in trials[1].error
    assert all("host pair alpha--beta given up" in t.error and "beta" in t.error for t in trials[2:])
    warnings = store.read_manifest()["warnings"]
    assert any("orbench cleanup" in w for w in warnings), warnings
    # Once the link is back, `orbench cleanup` ends whatever the dead channel left behind.
    code, out, err = run_cli("cleanup", str(store.path))
    assert code == 0, err
    assert_no_workers(lab)


@pytest.mark.slow  # tens of seconds of remote campaign
def test_slow_lossy_wan_link(lab, workdir, write_campaign, results_root, tmp_path):
    """1 ms each way, 0.5% loss, 100 Mbit/s: with tc netem where the kernel has it, else the userspace link
    of orbench/hosts/wanlink.py (this machine's kernel has no sch_netem). The run must finish and see the delay."""
    require_targets("omniorb", "c-socket")
    wan = {"delay_ms": 1.0, "loss": 0.005, "rate_mbit": 100}
    own_lab = None
    if netem_missing():
        own_lab = Lab.create(tmp_path / "wanlab", wan=wan)
        wan_lab = own_lab
    else:
        wan_lab = lab
        lab.netem(f"delay {wan['delay_ms']}ms loss {wan['loss'] * 100}% rate {wan['rate_mbit']}mbit")
    try:
        path = write_campaign(campaign_text(wan_lab, workdir, ["omniorb"], name="wan", sizes="[1, 32768]",
                                            calls=200))
        code, _out, err = run_cli("run", str(path), "--no-report")
        assert code == 0, err
        summary = json.loads((results_root / "wan" / "latest" / "summary.json").read_text())
        assert len(summary["points"]) == 4
        # Two 1 ms one-way delays per round trip, whatever the ORB.
        assert all(p["status"] == "ok" and p["latency_ns"]["p50"] > 2_000_000 for p in summary["points"])
        manifest = json.loads((results_root / "wan" / "latest" / "manifest.json").read_text())
        assert manifest["hosts"]["beta"]["environment"]["peer_dev"] == "eth0"
        assert_no_workers(wan_lab)
    finally:
        if own_lab is not None:
            own_lab.close()
        else:
            for h in lab.hosts:
                h.run("tc", "qdisc", "del", "dev", "eth0", "root", check=False)
