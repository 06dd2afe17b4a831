"""A fleet of four network-namespace hosts with real sshd, named through an Ansible inventory: a campaign of
two groups runs every server x client pair, and the host that is down skips only the pairs that need it,
with the reason in the results, while the others run. Needs root and `ip netns` (skips otherwise)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from orbench.hosts.netns import Lab, why_no_lab
from orbench.results.store import RunStore

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
        started = time.monotonic()
        code, out, err = run_cli("run", str(path), "--no-report")
        took = time.monotonic() - started
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
    # One connect timeout (3 s) for delta, not one per trial.
    assert took < 120, f"the campaign took {took:.0f} s"
