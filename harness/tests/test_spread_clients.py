"""Clients spread over several client hosts against one server host (campaign key spread_clients): the pairs a
campaign's entries make, their labels, mistakes named with the file, key and value, which host each client
worker's command, pinning and samples path belong to, the group's span over several hosts' clocks, and a real
run of a spread over two names for this machine (runs anywhere). The real run on separate namespace hosts, each
with its own network stack and sshd, is in test_fleet_netns.py (it needs root and skips without)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from orbench.campaign.spec import read_campaign
from orbench.hosts.placement import Placement
from orbench.hosts.remote import HostSet, PairRuntime
from orbench.results.store import RunStore
from orbench.running.clients import group_span_ns
from orbench.running.schedule import disjoint_waves

from tests.conftest import campaign_error, require_targets, run_cli

HEAD = """
name = "t"
targets = ["c-socket"]
modes = ["twoway"]
payload_bytes = [1]
"""
TABLES = """
[ssh]
known_hosts = "kh"
[hosts.alpha]
url = "ssh://root@10.1.0.1"
[hosts.beta]
url = "ssh://root@10.1.0.2"
[hosts.gamma]
url = "ssh://root@10.1.0.3"
"""

INVENTORY = """\
[servers]
alpha ansible_host=10.1.0.1
[clients]
beta ansible_host=10.1.0.2
gamma ansible_host=10.1.0.3
delta ansible_host=10.1.0.4
[all:vars]
ansible_user=root
"""


@pytest.fixture
def campaign_text(tmp_path):
    """The campaign with these top-level keys, before its [ssh] and [hosts] tables (and any more tables)."""
    (tmp_path / "kh").write_text("")
    return lambda top, tables="": HEAD + top + TABLES + tables


def test_hosts_joined_by_plus_are_one_spread(write_campaign, campaign_text):
    c = read_campaign(write_campaign(campaign_text('spread_clients = true\nhost_pairs = [["alpha", "beta+gamma"], '
                                                     '["gamma", "beta"]]\n')))
    spread, single = c.host_pairs()
    assert spread.label == "alpha--beta+gamma" and spread.spread
    assert [h.name for h in spread.clients] == ["beta", "gamma"] and spread.client.name == "beta"
    assert [spread.client_of(k).name for k in range(5)] == ["beta", "gamma", "beta", "gamma", "beta"]
    assert spread.as_dict()["clients"] == ["beta", "gamma"]
    assert single.label == "gamma--beta" and not single.spread and "clients" not in single.as_dict()
    # Named one by one, the server's own host may be a client host too (as in a pair [alpha, alpha]).
    own, = read_campaign(write_campaign(campaign_text('spread_clients = true\nhost_pairs = [["alpha", "alpha+beta"]]\n'))
                         ).host_pairs()
    assert own.label == "alpha--alpha+beta"
    local, = read_campaign(write_campaign(campaign_text('spread_clients = true\n'))).host_pairs()
    assert local.label == "local" and not local.spread, "the default pair stays as it is"


def test_an_inventory_group_is_one_spread_per_server(write_campaign, tmp_path):
    (tmp_path / "kh").write_text("")
    (tmp_path / "lab.ini").write_text(INVENTORY)
    head = 'name = "t"\ntargets = ["c-socket"]\nmodes = ["twoway"]\npayload_bytes = [1]\ninventory = "lab.ini"\n'
    ssh = '[ssh]\nknown_hosts = "kh"\n'
    spread = read_campaign(write_campaign(head + 'spread_clients = true\nhost_pairs = [["servers", "clients"], '
                                                 '["beta", "clients"]]\n' + ssh)).host_pairs()
    # beta's own spread leaves beta out: a host never runs clients against itself.
    assert [p.label for p in spread] == ["alpha--beta+gamma+delta", "beta--gamma+delta"]
    pairs = read_campaign(write_campaign(head + 'host_pairs = [["servers", "clients"]]\n' + ssh)).host_pairs()
    message = campaign_error(write_campaign, head + 'spread_clients = true\nhost_pairs = [["alpha", "servers"]]\n' + ssh)
    assert "host_pairs[0]" in message and "no client host is left for server host 'alpha'" in message
    assert [p.label for p in pairs] == ["alpha--beta", "alpha--gamma", "alpha--delta"], "without the key: every pair"


@pytest.mark.parametrize("pairs, words", [
    ('[["alpha", "beta+gamma"]]', ["host_pairs[0][1]", "'beta+gamma'", "spread_clients = true"]),
])
def test_plus_without_the_key_is_refused(write_campaign, campaign_text, pairs, words):
    message = campaign_error(write_campaign, campaign_text(f"host_pairs = {pairs}\n"))
    assert all(w in message for w in words), message


@pytest.mark.parametrize("pairs, words", [
    ('[["alpha+beta", "gamma"]]', ["host_pairs[0][0]", "'alpha+beta'", "client side"]),
    ('[["alpha", "beta+beta"]]', ["host_pairs[0][1]", "'beta' is named twice"]),
    ('[["alpha", "beta+"]]', ["host_pairs[0][1]", "empty host name"]),
    ('[["alpha", "beta+nowhere"]]', ["host_pairs[0][1]", "'nowhere'", "not a [hosts] name"]),
    ('[["alpha", "beta+gamma"], ["alpha", "beta+gamma"]]', ["host_pairs[1]", "listed twice"]),
])
def test_spread_mistakes_name_file_key_value(write_campaign, campaign_text, pairs, words):
    message = campaign_error(write_campaign, campaign_text(f"spread_clients = true\nhost_pairs = {pairs}\n"))
    assert all(w in message for w in words), message


def test_spread_clients_must_be_a_boolean(write_campaign, campaign_text):
    message = campaign_error(write_campaign, campaign_text('spread_clients = "yes"\n'))
    assert "spread_clients" in message


def _runtime(write_campaign, text: str, placement: Placement, cpus: dict[str, list[int]]) -> PairRuntime:
    campaign = read_campaign(write_campaign(text))
    pair = campaign.host_pairs()[0]
    hosts = HostSet([pair], campaign.ssh_settings(), campaign.name, "run1")
    for name, usable in cpus.items():
        hosts.environments[name] = {"usable_cpus": usable}
    return PairRuntime(pair, hosts, placement)


def test_each_client_worker_runs_and_writes_on_its_own_host(write_campaign, campaign_text, tmp_path):
    text = campaign_text('spread_clients = true\nhost_pairs = [["alpha", "beta+gamma"]]\n')
    runtime = _runtime(write_campaign, text, Placement("same-core", "3", "3"),
                       {"alpha": [0, 1, 2, 3], "beta": [0, 1, 2, 3], "gamma": [0, 1]})
    target = next(t for t in read_campaign(write_campaign(text)).targets if t.name == "c-socket")
    commands = [runtime.client_command(target, k=k) for k in range(4)]
    # Each command is an ssh to its host, pinned by the placement's rule on that host's own CPUs.
    assert [c[c.index("--") - 1] for c in commands] == ["root@10.1.0.2", "root@10.1.0.3"] * 2
    assert ["taskset -c 3" in c[-1] for c in commands] == [True, False, True, False]
    assert ["taskset -c 1" in c[-1] for c in commands] == [False, True, False, True]
    # A pid file per client, so that several clients on one host can each be ended.
    pid_files = [c[-1].split("echo $$ > ")[1].split(" ")[0] for c in commands]
    assert len(set(pid_files)) == 4 and "/beta/run/" in pid_files[0] and "/gamma/run/" in pid_files[1]
    store = tmp_path / "run"
    part = store / "samples" / "x.client1.i64"
    assert runtime.client_samples_path(part, store, 1).startswith("/tmp/orbench/t/run1/gamma/samples/")
    assert runtime.client_samples_path(part, store, 2).startswith("/tmp/orbench/t/run1/beta/samples/")
    assert [runtime.via("client", k) for k in range(2)] == [str(runtime.client_hosts[0]), str(runtime.client_hosts[1])]
    # A trial of one client reads its host and the server's; of two, all three.
    assert sorted(runtime.usage_hosts(1)) == ["alpha", "beta"]
    assert {name: cpus for name, (_h, cpus) in runtime.usage_hosts(2).items()} == {
        "alpha": {3}, "beta": {3}, "gamma": {1}}


def test_a_spread_with_a_local_client_host(write_campaign, campaign_text, tmp_path):
    """A spread may mix this machine with remote hosts: the local client runs here and writes into the store."""
    text = campaign_text('spread_clients = true\nhost_pairs = [["alpha", "me+beta"]]\n',
                         '[hosts.me]\nurl = "local"\naddress = "10.9.9.9"\n')
    runtime = _runtime(write_campaign, text, Placement("unpinned", None, None), {})
    target = next(t for t in read_campaign(write_campaign(text)).targets if t.name == "c-socket")
    assert runtime.client_command(target, k=0)[0] != "ssh" and runtime.client_command(target, k=1)[0] == "ssh"
    assert runtime.via("client", 0) is None and runtime.reaper(target, "client", 0) is None
    store = tmp_path / "run"
    part = store / "samples" / "x.i64"
    assert runtime.client_samples_path(part, store, 0) == str(part)
    assert not runtime.is_local


def test_group_span_over_several_hosts_clocks():
    """Each host's clients on its own clock: the longest host span, never a difference across two clocks."""
    answers = [{"start_ns": 100, "end_ns": 1100}, {"start_ns": 9_000_000, "end_ns": 9_000_900},
               {"start_ns": 150, "end_ns": 1200}, {"start_ns": 9_000_050, "end_ns": 9_001_000}]
    assert group_span_ns(answers, ["beta", "gamma", "beta", "gamma"]) == 1100
    assert group_span_ns(answers[:1] + answers[2:3], ["local", "local"]) == 1100


def test_concurrent_pairs_see_every_host_of_a_spread(write_campaign, campaign_text):
    c = read_campaign(write_campaign(campaign_text(
        'spread_clients = true\nhost_pairs = [["alpha", "beta+gamma"], ["delta", "gamma"]]\n',
        '[hosts.delta]\nurl = "ssh://root@10.1.0.4"\n')))
    assert disjoint_waves(c.host_pairs()) == [[0], [1]], "gamma is a client host of both"


def test_the_schema_describes_the_key():
    import json

    schema = json.loads((Path(__file__).parents[1] / "orbench" / "campaign" / "campaign.schema.json").read_text())
    assert "k mod H" in schema["properties"]["spread_clients"]["description"]


def test_a_spread_over_two_local_hosts_runs_real_clients(write_campaign, results_root):
    """Real workers on any machine: a spread of two [hosts] names for this machine, 1 and 3 client processes
    per point. Client k is recorded on host k mod 2 with a pid of its own, every client's samples come back,
    and the pair's label keeps its hosts' names."""
    require_targets("c-socket")
    path = write_campaign("""
name = "spread-local"
targets = ["c-socket"]
modes = ["twoway"]
payload_bytes = [64]
clients = [1, 3]
clients_as = ["processes"]
trials = 2
calls = 300
warmup = 50
rewarm = 50
anatomy = "off"
spread_clients = true
host_pairs = [["me", "me+here"]]
[hosts.me]
url = "local"
[hosts.here]
url = "local"
""")
    code, _out, err = run_cli("run", str(path), "--no-report")
    assert code == 0, err
    run_dir = (results_root / "spread-local" / "latest").resolve()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    pair, = manifest["host_pairs"]
    assert pair["label"] == "me--me+here" and pair["clients"] == ["me", "here"]
    (name, launched), = manifest["launches"][0]["workers"].items()
    assert name.startswith("c-socket me--me+here ")
    clients = launched["clients"]
    assert [(c["client"], c["host"]) for c in clients] == [(0, "me"), (1, "here"), (2, "me")]
    assert len({c["pid"] for c in clients}) == 3 and clients[0]["pid"] == launched["client_pid"]
    rows = RunStore(run_dir).read_trials()
    assert {r.status for r in rows} == {"ok"}, [(r.point.label, r.error) for r in rows if r.status != "ok"]
    assert {r.point.host_pair for r in rows} == {"me--me+here"} and {r.point.clients for r in rows} == {1, 3}
    for r in rows:
        assert r.calls == 300 * r.point.clients and r.aggregate_calls_per_s and r.aggregate_calls_per_s > 0
        assert r.point.clients == 1 or len(r.client_p50s_ns) == 3
