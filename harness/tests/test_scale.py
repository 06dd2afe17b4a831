"""Load at scale with real workers over loopback (PROTOCOL.md, "Load at scale"): a group of client processes
each on several threads, a paced run on threads, a server's many objects called round-robin and at random
(across runs, after a reconnect, from another language's client), and what a worker refuses."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest
from orbench.stats.stats import read_samples
from orbench.targets.descriptor import read_targets
from orbench.targets.scale_checks import random_objects
from orbench.targets.workers import ClientWorker, ServerWorker

from tests.conftest import require_targets, run_cli

PAYLOAD = 64


def _server(name: str, tmp_path, *args: str) -> ServerWorker:
    target = read_targets()[name]
    return ServerWorker(name, target.server_command("127.0.0.1") + list(args), tmp_path / f"{name}-server.log")


def _client(name: str, tmp_path, tag: str = "") -> ClientWorker:
    return ClientWorker(name, read_targets()[name].client_command(), tmp_path / f"{name}-client{tag}.log")


def _connect(client: ClientWorker, server: ServerWorker) -> None:
    answer = client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}}, watch=[server])
    assert answer["ok"], answer


def _run(client: ClientWorker, server: ServerWorker, path, **fields) -> dict:
    command = {"cmd": "run", "mode": "twoway", "payload_type": "octets", "payload_bytes": PAYLOAD, "warmup": 0,
               "samples_file": str(path), "sync_timeout_ms": 20000, **fields}
    return client.call(command, timeout=120, watch=[server])


def test_a_group_of_processes_on_threads_shares_one_server(tmp_path):
    """Two c-socket client processes of 3 threads each, run at once against one server: the harness resets
    once, each process's barriers wait for the group's sums, and the server counts every call."""
    require_targets("c-socket")
    server = _server("c-socket", tmp_path)
    clients = [_client("c-socket", tmp_path, str(k)) for k in range(2)]
    try:
        for c in clients:
            _connect(c, server)
        assert clients[0].call({"cmd": "reset_counters"})["ok"]
        answers: dict[int, dict] = {}

        def run(k: int) -> None:
            answers[k] = _run(clients[k], server, tmp_path / f"group-{k}.i64", mode="oneway", calls=300, warmup=20,
                              threads=3, clients=2)

        workers = [threading.Thread(target=run, args=(k,)) for k in range(2)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        for k, answer in answers.items():
            assert answer["ok"], answer
            assert answer["threads"] == 3 and sum(answer["thread_calls"]) == 900 and answer["calls"] == 900
            assert answer["start_barrier"]["complete"] and answer["sync"]["complete"], answer
            # The group's total since the reset, warm-ups included: 2 processes x 3 threads x (20 + 300).
            assert answer["received"]["messages"] == 2 * 3 * 320, answer
            assert read_samples(tmp_path / f"group-{k}.i64").size == 900
        # The two processes' timed calls overlapped: each started before the other ended.
        a, b = answers[0], answers[1]
        assert a["start_ns"] < b["end_ns"] and b["start_ns"] < a["end_ns"]
    finally:
        for c in clients:
            c.stop()
        server.stop()


def test_a_paced_run_on_threads_keeps_the_process_rate(tmp_path):
    """4 threads at 2 kHz over the process, Poisson: 400 calls take about 0.2 s, from t_0 on; samples from the
    intended send times (never negative), the rate the answer reports near the one asked."""
    require_targets("c-socket")
    server = _server("c-socket", tmp_path)
    client = _client("c-socket", tmp_path)
    try:
        _connect(client, server)
        answer = _run(client, server, tmp_path / "paced.i64", calls=100, warmup=10, threads=4, rate_hz=2000,
                      arrivals="poisson", seed=5)
        assert answer["ok"], answer
        assert answer["arrivals"] == "poisson" and answer["seed"] == 5 and "deadline_misses" in answer
        assert answer["elapsed_ns"] >= 0.1e9, answer   # 400 exponential gaps of mean 0.5 ms
        assert 1000 < answer["achieved_rate_hz"] < 4000, answer
        samples = read_samples(tmp_path / "paced.i64")
        assert samples.size == 400 and (samples > 0).all()
    finally:
        client.stop()
        server.stop()


def test_objects_round_robin_random_and_kept_across_runs(tmp_path):
    """omniORB with 30 objects: every object called round-robin, the random order's objects exactly those
    SplitMix64 draws, references kept across runs and fetched again after a reconnect; more objects than
    the server has is an error naming both."""
    require_targets("omniorb")
    server = _server("omniorb", tmp_path, "--objects", "30")
    client = _client("omniorb", tmp_path)
    try:
        assert server.ready["worker"]["objects"] == 30
        _connect(client, server)
        for attempt in range(2):
            answer = _run(client, server, tmp_path / "rr.i64", calls=90, warmup=5, objects=30)
            assert answer["ok"] and answer["objects"] == 30 and answer["object_order"] == "round-robin", answer
            assert server.stats()["objects_called"] == 30
            if attempt == 0:
                _connect(client, server)  # drops the references: the next run fetches them again
        answer = _run(client, server, tmp_path / "random.i64", calls=12, objects=30, object_order="random", seed=3)
        assert answer["ok"] and answer["seed"] == 3, answer
        assert server.stats()["objects_called"] == len(set(random_objects(30, 12, 3)))
        # Fewer objects than the server has: the first ones only.
        assert _run(client, server, tmp_path / "few.i64", calls=20, objects=4)["ok"]
        assert server.stats()["objects_called"] == 4
        too_many = _run(client, server, tmp_path / "many.i64", calls=10, objects=31)
        assert not too_many["ok"] and too_many["error_kind"] == "remote"
        assert "30 objects" in too_many["error"] and "31" in too_many["error"], too_many
        # One object: as without the field (the server still counts which objects were called).
        assert _run(client, server, tmp_path / "one.i64", calls=10)["ok"]
        assert server.stats()["objects_called"] == 1
    finally:
        client.stop()
        server.stop()


def test_what_workers_refuse(tmp_path):
    """Soaks take neither threads nor objects; gRPC has no objects; a socket baseline has none either; the
    fields' values are checked (usage)."""
    require_targets("c-socket", "grpc-cpp")
    for name, fields, kind in [
        ("c-socket", {"objects": 2}, "unsupported"),
        ("c-socket", {"threads": 0}, "usage"),
        ("c-socket", {"threads": 257}, "usage"),
        ("c-socket", {"object_order": "sorted"}, "usage"),
        ("c-socket", {"duration_s": 0.1, "threads": 2}, "unsupported"),
        ("grpc-cpp", {"objects": 2}, "unsupported"),
    ]:
        server = _server(name, tmp_path)
        client = _client(name, tmp_path)
        try:
            _connect(client, server)
            command = {"cmd": "run", "mode": "twoway", "payload_type": "octets", "payload_bytes": 8,
                       "sync_timeout_ms": 5000, **fields}
            if "duration_s" not in fields:
                command |= {"calls": 10, "samples_file": str(tmp_path / "refused.i64")}
            answer = client.call(command, watch=[server])
            assert not answer["ok"] and answer["error_kind"] == kind, (name, fields, answer)
            assert client.call({"cmd": "hello"})["ok"]
        finally:
            client.stop()
            server.stop()


@pytest.mark.slow
@pytest.mark.parametrize("client_name, server_name", [("jacorb", "omniorb"), ("omniorb", "jacorb"),
                                                      ("ice-java", "ice-cpp")])
def test_references_from_another_language(client_name, server_name, tmp_path):
    """A Java ORB's client calls the objects of a C++ ORB's server and the other way round (the references
    are IORs, any ORB's), and Ice Java those of Ice C++, on threads: every object called, every call counted."""
    require_targets(client_name, server_name)
    server = _server(server_name, tmp_path, "--objects", "25")
    client = _client(client_name, tmp_path)
    try:
        _connect(client, server)
        answer = _run(client, server, tmp_path / "cross.i64", calls=50, warmup=5, threads=2, objects=25,
                      object_order="random", seed=11)
        assert answer["ok"], answer
        assert answer["received"]["messages"] == 100 and sum(answer["thread_calls"]) == 100
        order = random_objects(25, 100, 11)
        assert server.stats()["objects_called"] == len(set(order))
        assert np.all(read_samples(tmp_path / "cross.i64") > 0)
    finally:
        client.stop()
        server.stop()


OBJECTS = """
name = "objects-anatomy"
targets = ["omniorb"]
modes = ["twoway"]
payload_bytes = [64]
objects = [2000]
launches = 1
trials = 1
calls = 300
warmup = 100
"""


def test_the_anatomy_of_a_first_trial_at_many_objects_leaves_the_references_out(write_campaign, results_root):
    """The client fetches the 2000 references it does not hold (a remote call each) in an untimed call before the
    first trial, so the trial's anatomy is its calls' own: about one context switch per call on each side, where
    the fetch inside the trial would add some 10 per call (2000 calls' switches over 400)."""
    require_targets("omniorb")
    code, out, err = run_cli("run", str(write_campaign(OBJECTS)), "--no-report")
    assert code == 0, err
    summary = json.loads((results_root / "objects-anatomy" / "latest" / "summary.json").read_text())
    (point,) = [p for p in summary["points"] if p["target"] == "omniorb"]
    anatomy = point["anatomy"]
    assert anatomy["client_vcsw"]["median"] < 2.0 and anatomy["server_vcsw"]["median"] < 2.0, anatomy
