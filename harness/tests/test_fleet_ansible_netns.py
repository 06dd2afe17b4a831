"""A lab's Ansible inventory directory on three network-namespace hosts with real sshd: group_vars/ and
host_vars/, a range, two levels of children and a constructed group name the hosts a campaign runs on, with
ssh's key and known_hosts coming from the inventory's variables alone; `orbench prepare` (ansible-playbook)
reports what it did on its first run and nothing to change under --check after it; `orbench targets --host`
says what a prepared host can run. Needs root and `ip netns` (skips otherwise)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from orbench.hosts.inventory import read_inventory
from orbench.hosts.netns import Lab, why_no_lab
from orbench.results.store import RunStore

from tests.conftest import require_targets, run_cli

pytestmark = pytest.mark.skipif(bool(why_no_lab()), reason=why_no_lab() or "")

NAMES = ("node01", "node02", "node03")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    lab = Lab.create(tmp_path_factory.mktemp("ansible") / "lab", names=NAMES)
    try:
        yield lab
    finally:
        lab.close()


def write_inventory(lab: Lab, where: Path, workdir: Path) -> Path:
    inv = where / "inventory"
    (inv / "group_vars").mkdir(parents=True)
    (inv / "host_vars").mkdir()
    # No .ini extension: Ansible skips that one in an inventory directory.
    (inv / "10-hosts").write_text(
        "[rack]\nnode[01:03]\n\n[servers]\nnode01 bench_role=server\n\n[rack_b]\nnode[02:03] bench_role=client\n\n"
        "[clients:children]\nrack_b\n\n[lab:children]\nservers\nclients\n")
    (inv / "20-by-role.yml").write_text(
        "plugin: constructed\nstrict: true\nkeyed_groups:\n  - key: bench_role\n    prefix: role\n")
    (inv / "group_vars" / "lab.yml").write_text(
        f"ansible_user: root\nansible_ssh_private_key_file: {lab.identity}\n"
        f"ansible_ssh_common_args: -F /dev/null -o UserKnownHostsFile={lab.known_hosts} -o GlobalKnownHostsFile=/dev/null\n"
        f"ansible_python_interpreter: /usr/bin/python3\norbench_workdir: {workdir}\n")
    for h in lab.hosts:
        (inv / "host_vars" / f"{h.name}.yml").write_text(f"ansible_host: {h.address}\n")
    return inv


def test_a_campaign_on_an_inventory_directory(lab, tmp_path, write_campaign, results_root):
    require_targets("c-socket")
    inv = write_inventory(lab, tmp_path, tmp_path / "remote")
    inventory = read_inventory(inv)
    assert inventory.hosts_of("lab") == list(NAMES) or sorted(inventory.hosts_of("lab")) == list(NAMES)
    assert inventory.hosts_of("role_client") == ["node02", "node03"]  # the constructed group
    # The constructed group serves, the nested children's hosts are clients; no [ssh] key or known_hosts.
    path = write_campaign(f"""
name = "ansible"
targets = ["c-socket"]
modes = ["twoway"]
payload_bytes = [64]
trials = 2
calls = 200
warmup = 50
inventory = "{inv}"
host_pairs = [["role_server", "clients"]]
[ssh]
connect_timeout_s = 3
""")
    code, _out, err = run_cli("run", str(path), "--no-report")
    assert code == 0, err
    run_dir = (results_root / "ansible" / "latest").resolve()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert [p["label"] for p in manifest["host_pairs"]] == ["node01--node02", "node01--node03"]
    assert not any(p.get("skipped") for p in manifest["host_pairs"])
    rows = RunStore(run_dir).read_trials()
    assert len(rows) == 4 and all(r.status == "ok" for r in rows), [(r.status, r.error) for r in rows]
    node2 = manifest["hosts"]["node02"]
    assert node2["url"] == f"ssh://root@{lab.hosts[1].address}"
    assert node2["campaign_dir"].startswith(str(tmp_path / "remote"))
    # The manifest says which inventory and which variables: the key's path, never the key.
    assert node2["inventory"]["source"] == str(inv)
    assert node2["inventory"]["variables"]["ansible_ssh_private_key_file"] == str(lab.identity)
    assert node2["inventory"]["variables"]["ansible_host"] == lab.hosts[1].address
    assert "bench_role" not in node2["inventory"]["variables"]
    text = (run_dir / "manifest.json").read_text()
    key_body = Path(lab.identity).read_text().splitlines()[1]
    assert key_body not in text


@pytest.mark.slow  # half a minute: two ansible-playbook runs over SSH
def test_prepare_then_nothing_to_change_then_targets_on_the_host(lab, tmp_path):
    require_targets("c-socket", "java-socket")
    inv = write_inventory(lab, tmp_path, tmp_path / "remote")
    code, out, err = run_cli("prepare", str(inv), "--targets", "c-socket,java-socket", "-q")
    assert code == 0, out + err
    lines = {n: next(line for line in out.splitlines() if line.strip().startswith(f"{n}:")) for n in NAMES}
    for n in NAMES:
        assert "changed" in lines[n] and "Unpack the workers" in lines[n], out
        assert (tmp_path / "remote" / "prepared" / n / "cpp" / "build" / "orbench-csocket-server").exists()
    code, out, err = run_cli("prepare", str(inv), "--targets", "c-socket,java-socket", "--check", "-q")
    assert code == 0, out + err
    for n in NAMES:
        assert f"{n}: nothing to change" in out, out
    # A group names its hosts: the servers group is node01 alone, and what it can run now.
    code, out, err = run_cli("targets", "-i", str(inv), "--host", "servers")
    assert code == 0, out + err
    assert "node01" in out and "node02" not in out
    state = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert state["c-socket"].rstrip().endswith("available") and state["java-socket"].rstrip().endswith("available")
    assert "MISSING" in state["omniorb"]  # not prepared for: its workers are not there
