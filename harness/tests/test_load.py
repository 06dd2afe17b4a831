"""The load dimensions: validation of clients / rates_hz / interop, N real clients against one real server,
the fixed-rate loop timed from the intended send time (a frozen server must show), and cross-ORB calls."""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest
from orbench.campaign.interop import interop_target
from orbench.campaign.spec import Campaign, read_campaign
from orbench.errors import UserError
from orbench.results.store import RunStore
from orbench.running.runner import Runner
from orbench.stats.stats import read_samples
from orbench.summary.summary import write_summary
from orbench.targets.descriptor import read_targets
from orbench.targets.workers import ClientWorker, ServerWorker

from tests.conftest import require_targets

BASE = """
name = "load-test"
targets = ["omniorb"]
modes = ["twoway"]
payload_bytes = [64]
"""


@pytest.mark.parametrize("extra, words", [
    ("clients = [0]", ["key clients[0]", "value 0"]),
    ("clients = [2, 2]", ["key clients", "non-unique"]),
    ("clients = [\"4\"]", ["key clients[0]", "'4'"]),
    ("rates_hz = [-5]", ["key rates_hz[0]", "value -5"]),
    ("rates_hz = [2000000]", ["key rates_hz[0]", "2000000"]),
    ("interop = [[\"jacorb\"]]", ["key interop[0]", "['jacorb']"]),
    ("interop = [[\"jacorbb\", \"omniorb\"]]", ["key interop[0]", "unknown client target 'jacorbb'"]),
    ("interop = [[\"jacorb\", \"c-socket\"]]", ["key interop[0]", "the jacorb client speaks GIOP, the c-socket server "
                                               "the OBSK wire format: they cannot talk"]),
    ("interop = [[\"grpc-cpp\", \"omniorb\"]]", ["key interop[0]", "speaks gRPC over HTTP/2, the omniorb server GIOP"]),
    ("interop = [[\"omniorb\", \"omniorb\"]]", ["key interop[0]", "same target"]),
])
def test_bad_load_keys_name_file_key_and_value(write_campaign, extra, words):
    path = write_campaign(BASE + extra)
    with pytest.raises(UserError) as err:
        read_campaign(path)
    message = str(err.value)
    assert str(path) in message
    for w in words:
        assert w in message, message


def test_load_keys_expand_into_points_and_interop_targets(write_campaign):
    c = read_campaign(write_campaign(BASE + 'clients = [4, 1]\nrates_hz = [0, 1000]\n'
                                            'interop = [["jacorb", "omniorb"], ["java-socket", "c-socket"]]\n'))
    assert [(s.clients, s.rate_hz) for s in c.load_plan.shapes("twoway")] == [(1, 0.0), (1, 1000.0), (4, 0.0),
                                                                              (4, 1000.0)]
    names = [t.name for t in c.targets]
    assert names == ["omniorb", "c-socket", "jacorb->omniorb", "java-socket->c-socket"]
    pair = c.targets[2]
    assert pair.kind == "interop" and pair.baseline is None and pair.is_jvm  # JVM warm-up for a Java side
    targets = read_targets()
    assert pair.client_argv == targets["jacorb"].client_argv and pair.server_argv == targets["omniorb"].server_argv
    assert c.settings.targets == ("omniorb", "c-socket")  # the manifest's targets stay real target names


def _campaign(write_campaign, text: str, targets: list[str],
              interop: tuple[tuple[str, str], ...] | list[tuple[str, str]] = ()) -> Campaign:
    """A campaign of exactly these targets (no baseline added: the test pays for every JVM it starts)."""
    c = read_campaign(write_campaign(text))
    known = read_targets()
    c.targets = [known[n] for n in targets] + [interop_target(known[a], known[b]) for a, b in interop]
    c.added_baselines = []
    return c


TWO_CLIENTS = """
name = "two-clients"
targets = ["omniorb"]
modes = ["oneway", "twoway"]
payload_bytes = [64]
clients = [2]
trials = 1
calls = 400
warmup = 100
jvm_warmup = 300
"""


def test_two_clients_against_one_server_and_an_interop_pair(write_campaign, results_root):
    require_targets("omniorb", "jacorb")
    campaign = _campaign(write_campaign, TWO_CLIENTS, ["omniorb", "jacorb"], [("jacorb", "omniorb")])
    store = RunStore.create(campaign.name)
    assert Runner(campaign, store).run() == 0
    summary = write_summary(store)
    trials = {(t.point.mode, t.point.target): t for t in store.read_trials()}
    assert len(trials) == 6
    for (mode, _target), t in trials.items():
        assert t.ok, t.error
        assert t.point.clients == 2 and t.calls == 800
        samples = read_samples(store.path / t.samples_file)
        assert samples.size == 800 and (samples > 0).all()
        # pooled: client 0's 400 samples, then client 1's, each client's p50 kept
        assert t.client_p50s_ns == tuple(float(f"{np.percentile(samples[k * 400:(k + 1) * 400], 50):.0f}")
                                         for k in (0, 1))
        assert t.start_barrier_complete is True
        if mode == "oneway":
            # both clients' messages counted by the one server: the closing barrier waited for the sum
            assert t.received_messages == 800 and t.lost_messages == 0, t
            assert t.sync_complete is True
        assert t.aggregate_calls_per_s > 0
        # Both clients' JIT time together where the clients are JVMs (JacORB), none from C++ ones.
        jvm_client = t.point.target.startswith("jacorb")
        assert (isinstance(t.client_jit_ms, int) and t.client_jit_ms >= 0) if jvm_client else t.client_jit_ms is None
    points = {(p.point.mode, p.point.target): p for p in summary.points}
    assert points[("twoway", "omniorb")].load.client_p50s_ns and points[("oneway", "jacorb")].oneway.lost_messages == 0
    cross = points[("twoway", "jacorb->omniorb")]
    assert cross.kind == "interop" and cross.orb_added_latency_ns is None
    assert cross.interop.server_pair_p50_ns == points[("twoway", "omniorb")].latency_ns.p50
    assert cross.interop.client_pair_p50_ns == points[("twoway", "jacorb")].latency_ns.p50
    # the jacorb client really reached the omniORB server: it answered in the workers' manifest entry
    workers = store.read_manifest()["targets"]["jacorb->omniorb"]["workers"]["same-core"]
    assert workers["server"]["orb"] == "omniORB" and workers["client"]["orb"] == "JacORB"


def _stalled_run(server_target: str, client_target: str, tmp_path) -> tuple[np.ndarray, dict]:
    """1000 twoway calls at 1 kHz; 300 ms in, the server is frozen (SIGSTOP) for 200 ms."""
    targets = read_targets()
    server = ServerWorker(server_target, targets[server_target].server_command("127.0.0.1"), tmp_path / "server.log")
    client = ClientWorker(client_target, targets[client_target].client_command(), tmp_path / "client.log")
    try:
        assert client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}})["ok"]
        warm = client.call({"cmd": "run", "mode": "twoway", "payload_type": "octets", "payload_bytes": 64,
                            "calls": 200, "warmup": 2000, "samples_file": str(tmp_path / "warm.i64")}, timeout=60)
        assert warm["ok"], warm

        def freeze() -> None:
            time.sleep(0.3)
            os.kill(server.pid, signal.SIGSTOP)
            time.sleep(0.2)
            os.kill(server.pid, signal.SIGCONT)

        stall = threading.Thread(target=freeze)
        command = {"cmd": "run", "mode": "twoway", "payload_type": "octets", "payload_bytes": 64, "calls": 1000,
                   "warmup": 0, "rate_hz": 1000, "samples_file": str(tmp_path / "paced.i64")}
        stall.start()
        answer = client.call(command, timeout=60)
        stall.join()
        assert answer["ok"], answer
        return read_samples(tmp_path / "paced.i64"), answer
    finally:
        os.kill(server.pid, signal.SIGCONT)
        client.stop()
        server.stop()


@pytest.mark.parametrize("server_target, client_target", [
    ("omniorb", "omniorb"),          # the C++ paced loop
    ("c-socket", "java-socket"),     # the Java paced loop, and a Java socket client against the C server
])
def test_fixed_rate_times_from_the_intended_send_time(server_target, client_target, tmp_path):
    require_targets(server_target, client_target)
    samples, answer = _stalled_run(server_target, client_target, tmp_path)
    assert samples.size == 1000
    # The calls scheduled during the 200 ms freeze went out late; timed from their intended send times they
    # show the stall one after the other (about 200, 199, 198 ... ms). Timed from their real send times, only
    # the one call in flight would.
    slow = samples[samples > 100_000_000]
    assert slow.size > 1, f"only {slow.size} sample above 100 ms: the stall is hidden"
    assert slow.size >= 50, slow.size
    assert samples.max() >= 150_000_000
    assert answer["deadline_misses"] > 0 and answer["deadline_misses"] >= slow.size
    # Outside the stall the client keeps the rate: about 1000 calls over about a second.
    assert 700 < answer["achieved_rate_hz"] < 1300
    assert answer["elapsed_ns"] >= 999 * 1_000_000
