"""The campaign dimensions: payload types, option sets (TCP_NODELAY, socket buffers), oneway sync
scope. Validation names file, key and value; real short runs over loopback show what each option does."""

import json

import pytest
from orbench.campaign.spec import read_campaign
from orbench.errors import UserError
from orbench.results.store import RunStore
from orbench.running.runner import Runner
from orbench.summary.summary import write_summary
from orbench.targets.descriptor import counted_payload_bytes, read_descriptor, read_targets
from orbench.targets.options import option_label, plan_options

from tests.conftest import campaign_error, require_targets

BASE = """
name = "dims"
targets = ["c-socket"]
modes = ["twoway"]
payload_bytes = [100]
"""


def test_option_sets_are_validated_naming_file_key_and_value(write_campaign):
    bad_type = campaign_error(write_campaign, BASE + 'option_sets = [{tcp_nodelay = true}, {tcp_nodelay = "no"}]\n')
    assert "option_sets[1].tcp_nodelay" in bad_type and "'no'" in bad_type
    unknown = campaign_error(write_campaign, BASE + "option_sets = [{tcp_nodelai = true}]\n")
    assert "option_sets[0]" in unknown and "tcp_nodelai" in unknown
    too_small = campaign_error(write_campaign, BASE + "option_sets = [{socket_buffer_bytes = 0}]\n")
    assert "option_sets[0].socket_buffer_bytes" in too_small and "value 0" in too_small
    scope = campaign_error(write_campaign, BASE + 'option_sets = [{sync_scope = "sometimes"}]\n')
    assert "option_sets[0].sync_scope" in scope and "sometimes" in scope
    same = campaign_error(write_campaign, BASE.replace('modes = ["twoway"]', 'modes = ["twoway"]\n'
                                              'option_sets = [{}, {tcp_nodelay = false}]')
                  + "[options]\ntcp_nodelay = false\n")
    assert "option_sets[1]" in same and "tcp_nodelay=false" in same
    ptype = campaign_error(write_campaign, BASE.replace('modes = ["twoway"]', 'modes = ["twoway"]\n'
                                               'payload_types = ["octets", "floats"]'))
    assert "payload_types[1]" in ptype and "floats" in ptype


def test_option_sets_merge_over_options(write_campaign):
    campaign = read_campaign(write_campaign(BASE + "[options]\nsocket_buffer_bytes = 65536\n", name="a.toml"))
    assert campaign.option_sets() == [{"socket_buffer_bytes": 65536}]
    text = BASE.replace('modes = ["twoway"]', 'modes = ["twoway"]\noption_sets = [{tcp_nodelay = true}, '
                                              '{tcp_nodelay = false}]') + "[options]\nsocket_buffer_bytes = 65536\n"
    sets = read_campaign(write_campaign(text, name="b.toml")).option_sets()
    assert [option_label(s) for s in sets] == ["tcp_nodelay=true+socket_buffer_bytes=65536",
                                               "tcp_nodelay=false+socket_buffer_bytes=65536"]


def test_each_target_gets_what_it_can_do_and_skips_the_rest():
    targets = read_targets()
    plan = plan_options(targets["c-socket"], {"tcp_nodelay": False, "socket_buffer_bytes": 65536})
    assert plan.unsupported is None
    assert plan.client == {"tcp_nodelay": False, "socket_buffer_bytes": 65536}
    assert plan.server_args == ("--option", "socket_buffer_bytes=65536", "--option", "tcp_nodelay=false")
    # omniORB always sets TCP_NODELAY: true runs with nothing passed, false is skipped with the reason.
    assert plan_options(targets["omniorb"], {"tcp_nodelay": True}).client == {}
    assert "always has tcp_nodelay = true" in plan_options(targets["omniorb"], {"tcp_nodelay": False}).unsupported
    assert "does not support option socket_buffer_bytes" in plan_options(
        targets["jacorb"], {"socket_buffer_bytes": 1024}).unsupported
    # sync_scope is a client option: never on a server's command line.
    tao = plan_options(targets["tao"], {"sync_scope": "none", "tcp_nodelay": False})
    assert tao.client == {"sync_scope": "none", "tcp_nodelay": False}
    assert tao.server_args == ("--option", "tcp_nodelay=false")


def test_descriptor_options_are_checked(tmp_path):
    text = (read_targets()["c-socket"].path.read_text()
            .replace('options = ["tcp_nodelay", "socket_buffer_bytes"]', 'options = ["tcp_nodelay"]\n'
                     'fixed_options = { no_delay = true }'))
    path = tmp_path / "c-socket.toml"
    path.write_text(text)
    with pytest.raises(UserError, match="key supports.fixed_options: value .*'no_delay'"):
        read_descriptor(path)


def test_counted_bytes_per_payload_type():
    assert [counted_payload_bytes(t, 1000) for t in ("octets", "records", "longs", "doubles", "strings")] == \
        [1000, 992, 1000, 1000, 992]
    assert counted_payload_bytes("records", 1) == 0


NAGLE = """
name = "nagle-test"
targets = ["omniorb", "c-socket"]
modes = ["twoway"]
payload_bytes = [100]
trials = 1
calls = 25
warmup = 3
option_sets = [{tcp_nodelay = true}, {tcp_nodelay = false}, {sync_scope = "none"}]
"""


def test_nagle_on_shows_the_delayed_ack_stall_and_off_does_not(write_campaign, results_root):
    """Real measurement: c-socket at 100 B, header-then-body writes with Nagle on wait for the peer's delayed
    ACK (about 40 ms on Linux), one write with TCP_NODELAY takes microseconds. omniORB cannot turn Nagle on
    and has no sync scope: both are skipped with the reason, not failed."""
    require_targets("omniorb", "c-socket")
    campaign = read_campaign(write_campaign(NAGLE))
    store = RunStore.create(campaign.name)
    assert Runner(campaign, store).run() == 0
    summary = write_summary(store)
    p50 = {(p.point.target, p.point.options): p.latency_ns and p.latency_ns.p50 for p in summary.points}
    assert p50[("c-socket", "tcp_nodelay=false")] > 20e6
    assert p50[("c-socket", "tcp_nodelay=true")] < 1e6
    assert p50[("omniorb", "tcp_nodelay=true")] < 1e6
    skipped = {(t.point.target, t.point.options): t.error for t in store.read_trials() if t.status == "skipped"}
    assert "always has tcp_nodelay = true" in skipped[("omniorb", "tcp_nodelay=false")]
    assert "unsupported" in skipped[("omniorb", "sync_scope=none")]
    assert "SyncScopePolicy" in skipped[("omniorb", "sync_scope=none")]  # the worker's own refusal
    assert "sync_scope" in skipped[("c-socket", "sync_scope=none")]
    # ORB-added latency pairs within one option set only.
    orb = next(p for p in summary.points if p.point.target == "omniorb" and p.point.options == "tcp_nodelay=true")
    assert orb.added is not None
    manifest = json.loads(store.manifest_path.read_text())
    assert manifest["targets"]["c-socket"]["option_sets"]["tcp_nodelay=false"]["server_args"] == \
        ["--option", "tcp_nodelay=false"]
    nagle = [t for t in store.read_trials() if t.ok and t.point.options == "tcp_nodelay=false"]
    assert nagle and all("tcp_nodelay=false" in t.samples_file for t in nagle)


TYPES = """
name = "types-test"
targets = ["omniorb", "c-socket"]
modes = ["twoway", "echo"]
payload_types = ["longs", "doubles", "strings"]
payload_bytes = [1000]
trials = 1
calls = 100
warmup = 10
"""


def test_payload_types_run_and_count_their_bytes(write_campaign, results_root):
    require_targets("omniorb", "c-socket")
    campaign = read_campaign(write_campaign(TYPES))
    store = RunStore.create(campaign.name)
    assert Runner(campaign, store).run() == 0
    trials = [t for t in store.read_trials() if t.ok]
    assert len(trials) == 2 * 3 * 2
    for t in trials:
        assert t.received_bytes == 100 * counted_payload_bytes(t.point.payload_type, 1000), t
    summary = write_summary(store)
    assert {p.point.payload_type for p in summary.points if p.added} == \
        {"longs", "doubles", "strings"}
