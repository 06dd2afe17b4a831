"""A fleet of four network-namespace hosts with real sshd, named through an Ansible inventory: a campaign of
two groups runs every server x client pair, and the host that is down skips only the pairs that need it,
with the reason in the results, while the others run; a point's clients spread over two client hosts against
one server host. Needs root and `ip netns` (skips otherwise)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from orbench.hosts.netns import Lab, NsHost, why_no_lab
from orbench.hosts.readiness import unavailable_reason
from orbench.results.store import RunStore
from orbench.running.cpu_usage import cpus_allowed
from orbench.targets.descriptor import read_targets

from tests.conftest import require_targets, run_cli

pytestmark = pytest.mark.skipif(bool(why_no_lab()), reason=why_no_lab() or "")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    lab = Lab.create(tmp_path_factory.mktemp("fleet") / "lab", names=("alpha", "beta", "gamma", "delta"))
    try:
        yield lab
    finally:
        lab.close()


def inventory_ini(lab: Lab, workdir: Path) -> str:
    host = {h.name: h for h in lab.hosts}
    lines = ["[servers]"] + [f"{n} ansible_host={host[n].address}" for n in ("alpha", "gamma")]
    lines += ["", "[clients]"] + [f"{n} ansible_host={host[n].address}" for n in ("beta", "delta")]
    lines += ["", "[lab:children]", "servers", "clients", "", "[lab:vars]", "ansible_user=root", "ansible_port=22",
              f"orbench_workdir={workdir}"]
    return "\n".join(lines) + "\n"


@pytest.mark.slow  # half a minute: a campaign over three namespace hosts, one of them down
def test_groups_of_an_inventory_and_a_down_host(fleet, tmp_path, write_campaign, results_root):
    require_targets("c-socket", "java-socket")
    workdir = tmp_path / "remote"
    (tmp_path / "lab.ini").write_text(inventory_ini(fleet, workdir))
    delta = next(h for h in fleet.hosts if h.name == "delta")
    fleet.cut(delta)  # delta is down for the whole campaign
    try:
        path = write_campaign(f"""
name = "fleet"
targets = ["c-socket", "java-socket"]
modes = ["twoway"]
payload_bytes = [64]
trials = 2
calls = 200
warmup = 50
jvm_warmup = 500
inventory = "lab.ini"
host_pairs = [["servers", "clients"]]
{fleet.campaign_ssh()}
""")
        code, out, err = run_cli("run", str(path), "--no-report")
    finally:
        fleet.mend(delta)
    assert code == 0, err
    run_dir = (results_root / "fleet" / "latest").resolve()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    labels = [p["label"] for p in manifest["host_pairs"]]
    assert labels == ["alpha--beta", "alpha--delta", "gamma--beta", "gamma--delta"]
    skipped = {p["label"]: p.get("skipped") for p in manifest["host_pairs"]}
    assert skipped["alpha--beta"] is None and skipped["gamma--beta"] is None
    assert "unreachable host delta" in skipped["alpha--delta"] and "unreachable host delta" in skipped["gamma--delta"]
    assert "unreachable" in manifest["hosts"]["delta"]
    assert manifest["hosts"]["alpha"]["url"] == f"ssh://root@{fleet.hosts[0].address}:22"
    assert manifest["hosts"]["alpha"]["campaign_dir"].startswith(str(workdir))  # orbench_workdir from the inventory
    rows = RunStore(run_dir).read_trials()
    by_pair: dict[str, set[str]] = {}
    for r in rows:
        by_pair.setdefault(r.point.host_pair, set()).add(r.status)
    assert by_pair == {"alpha--beta": {"ok"}, "gamma--beta": {"ok"}, "alpha--delta": {"skipped"},
                       "gamma--delta": {"skipped"}}
    assert all("unreachable host delta" in r.error for r in rows if r.status == "skipped")
    assert any("delta" in w for w in manifest["warnings"])
    # The remote JVMs' GC logs came back into the run's logs/, for both sides of both pairs that ran.
    for pair in ("alpha--beta", "gamma--beta"):
        for role in ("server", "client"):
            logs = list((run_dir / "logs").glob(f"{pair}-*java-socket-{role}-gc-*.log"))
            assert logs and "Using G1" in logs[0].read_text(), (pair, role, sorted(p.name for p in (run_dir / "logs").iterdir()))
    # One connect attempt to delta, at the start, not one per trial: every trial of its pairs carries the reason
    # that start probe recorded for the pair, word for word (a trial that tried to connect would fail with its own).
    assert all(r.error == skipped[r.point.host_pair] for r in rows if r.status == "skipped")


def _campaign(fleet: Lab, workdir: Path, pairs: str, extra: str = "", calls: int = 1000,
              sizes: str = "[64, 1024]") -> str:
    return f"""
name = "pairs"
targets = ["c-socket"]
modes = ["twoway"]
payload_bytes = {sizes}
trials = 3
calls = {calls}
warmup = 50
host_pairs = {pairs}
{extra}
{fleet.campaign_ssh()}
{fleet.campaign_hosts(workdir)}
"""


@pytest.mark.slow  # tens of seconds of remote campaign
def test_host_pairs_interleave_trial_by_trial(fleet, tmp_path, write_campaign, results_root):
    """Two pairs take turns round by round (pair 1, pair 2, pair 1, ...), as targets do, instead of one pair's
    whole campaign after the other's."""
    require_targets("c-socket")
    path = write_campaign(_campaign(fleet, tmp_path / "remote", '[["alpha", "beta"], ["gamma", "delta"]]'))
    code, _out, err = run_cli("run", str(path), "--no-report")
    assert code == 0, err
    rows = sorted(RunStore((results_root / "pairs" / "latest").resolve()).read_trials(), key=lambda t: t.seq)
    assert len(rows) == 12 and all(r.status == "ok" for r in rows)
    order = [(r.point.payload_bytes, r.trial, r.point.host_pair) for r in rows]
    # The point groups (sizes) interleave in the launch's order; inside each the pairs alternate trial by trial.
    assert sorted({size for size, _k, _pair in order}) == [64, 1024]
    for size in (64, 1024):
        assert [(k, pair) for s, k, pair in order if s == size] == [
            (k, pair) for k in range(3) for pair in ("alpha--beta", "gamma--delta")]


@pytest.mark.slow  # tens of seconds of remote campaign
def test_pairs_sharing_no_host_run_at_the_same_time(fleet, tmp_path, write_campaign, results_root):
    """With concurrent_pairs, alpha--beta and gamma--delta (no host in common) run each round at the same time,
    gamma--beta (beta is busy) in a wave of its own; the manifest records the waves, and the trials of one wave
    overlap in time."""
    require_targets("c-socket")
    path = write_campaign(_campaign(fleet, tmp_path / "remote",
                                    '[["alpha", "beta"], ["gamma", "delta"], ["gamma", "beta"]]',
                                    "concurrent_pairs = true", calls=100000, sizes="[64]"))
    code, _out, err = run_cli("run", str(path), "--no-report")
    assert code == 0, err
    run_dir = (results_root / "pairs" / "latest").resolve()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["concurrent_pairs"] == [{"placement": "same-core", "options": "",
                                             "waves": [["alpha--beta", "gamma--delta"], ["gamma--beta"]]}]
    rows = RunStore(run_dir).read_trials()
    assert len(rows) == 9 and all(r.status == "ok" for r in rows)

    def span(r):
        """The timed calls: elapsed_ns up to when the answer came back (within the client's ~1 ms of wrap-up)."""
        return (r.trial_end_unix - r.elapsed_ns / 1e9, r.trial_end_unix)

    by = {(r.point.payload_bytes, r.trial, r.point.host_pair): span(r) for r in rows}
    overlapping = 0
    for size in (64,):
        for k in range(3):
            (a0, a1), (b0, b1) = by[(size, k, "alpha--beta")], by[(size, k, "gamma--delta")]
            overlapping += a0 < b1 and b0 < a1
            (c0, c1) = by[(size, k, "gamma--beta")]
            assert c0 > max(a1, b1) - 0.01, "the pair sharing beta waits for the wave before it"
    # Run one after the other, no round could overlap; run together, one pair's timed calls can still start after
    # the other's ended (in a CI run the two pairs' 10000 calls, 0.11 s, started 0.55-0.65 s apart in every round;
    # the cause is not traced), so trials of ~1 s and one overlapping round are the proof.
    assert overlapping >= 1, by


class NamespaceWatch:
    """Which C++ client workers run in each host's network namespace, read every 0.1 s while a campaign
    runs (the namespaces share the pid space, so a pid seen here is the pid a worker reports of itself), with
    the CPUs each was allowed."""

    def __init__(self, hosts: list[NsHost]):
        self.hosts = hosts
        self.clients: dict[str, dict[int, str | None]] = {h.name: {} for h in hosts}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(0.1):
            for host in self.hosts:
                for pid in host.worker_pids():
                    try:
                        program = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
                    except OSError:
                        continue
                    # The worker itself (its shell and taskset exec it), not a script that names its file.
                    if program.endswith("-client"):
                        self.clients[host.name].setdefault(pid, cpus_allowed(pid))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


@pytest.mark.slow  # a minute and more: every trial's readings and samples go over SSH
def test_clients_spread_over_two_client_hosts(fleet, tmp_path, write_campaign, results_root):
    """spread_clients: one server host (alpha), clients on two client hosts (beta, gamma), 1, 2 and 4 client
    processes per point: client k ran on beta for even k and on gamma for odd k (the pids the workers reported,
    seen in each host's namespace while the run ran, pinned there as recorded), their samples came back from
    both hosts, and the summary has throughput per client count and the closed-loop capacity."""
    require_targets("c-socket")
    targets = ["c-socket"] + (["omniorb"] if unavailable_reason(read_targets()["omniorb"]) is None else [])
    workdir = tmp_path / "remote"
    path = write_campaign(f"""
name = "spread"
targets = {json.dumps(targets)}
modes = ["twoway"]
payload_bytes = [64]
clients = [1, 2, 4]
clients_as = ["processes"]
trials = 2
calls = 2000
warmup = 100
rewarm = 100
anatomy = "off"
spread_clients = true
host_pairs = [["alpha", "beta+gamma"]]
{fleet.campaign_ssh()}
{fleet.campaign_hosts(workdir)}
""")
    host = {h.name: h for h in fleet.hosts}
    watch = NamespaceWatch([host["alpha"], host["beta"], host["gamma"]])
    try:
        code, _out, err = run_cli("run", str(path), "--no-report")
    finally:
        watch.stop()
    assert code == 0, err
    run_dir = (results_root / "spread" / "latest").resolve()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    pair, = manifest["host_pairs"]
    assert pair["label"] == "alpha--beta+gamma" and pair["clients"] == ["beta", "gamma"]
    assert not watch.clients["alpha"], "no client ran on the server host"
    for target in targets:
        launched = manifest["launches"][0]["workers"][f"{target} alpha--beta+gamma same-core"]
        clients = launched["clients"]
        assert [c["client"] for c in clients] == [0, 1, 2, 3]
        assert [c["host"] for c in clients] == ["beta", "gamma", "beta", "gamma"]
        assert len({c["pid"] for c in clients}) == 4 and clients[0]["pid"] == launched["client_pid"]
        for c in clients:
            seen = watch.clients[c["host"]]
            assert c["pid"] in seen, (target, c, watch.clients)
            assert seen[c["pid"]] == c["cpus"], "pinned on its host as recorded"
    rows = [r for r in RunStore(run_dir).read_trials() if r.point.target in targets]
    assert {r.status for r in rows} == {"ok"}, [(r.point.label, r.error) for r in rows if r.status != "ok"]
    assert {r.point.host_pair for r in rows} == {"alpha--beta+gamma"}
    for r in rows:
        assert r.calls == 2000 * r.point.clients and r.aggregate_calls_per_s and r.aggregate_calls_per_s > 0
        assert r.point.clients == 1 or len(r.client_p50s_ns) == r.point.clients
        assert r.usage_hosts.split() == (["alpha", "beta"] if r.point.clients == 1 else ["alpha", "beta", "gamma"])
    # Every client's samples were fetched back from its host and removed there.
    for name in ("beta", "gamma"):
        left = list(workdir.glob(f"spread/*/{name}/samples/*"))
        assert not left, left
    summary = json.loads((run_dir / "summary.json").read_text())
    throughput = {(p["target"], p["clients"]): p["load"]["aggregate_calls_per_s"] for p in summary["points"]
                  if p["host_pair"] == "alpha--beta+gamma" and p.get("load")}
    for target in targets:
        assert all(throughput.get((target, n), 0) > 0 for n in (1, 2, 4)), throughput
        row, = [c for c in summary["capacities"] if c["kind"] == "closed-loop" and c["target"] == target]
        assert row["host_pair"] == "alpha--beta+gamma" and row["at_clients"] in (1, 2, 4)
        assert row["capacity_closed_loop_calls_per_s"]["estimate"] > 0
