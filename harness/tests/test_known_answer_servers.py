"""The known-answer servers (`--delay-ns N`, harness/PROTOCOL.md): real socket servers that spin N ns per
payload-carrying request, driven by their real clients over loopback."""

from __future__ import annotations

import pytest
from orbench.stats.stats import read_samples
from orbench.targets.descriptor import read_targets
from orbench.targets.workers import ClientWorker, ServerWorker

from tests.conftest import require_targets

DELAY_NS = 300_000  # far above a loopback call (tens of us), so no sample can be shorter by luck
CALLS = 40


@pytest.mark.parametrize("name", ["c-socket", "java-socket", "java-nio"])
def test_every_payload_carrying_call_costs_the_delay(name, tmp_path):
    require_targets(name)
    target = read_targets()[name].with_server_args(("--delay-ns", str(DELAY_NS)))
    server = ServerWorker(name, target.server_command("127.0.0.1"), tmp_path / "server.log")
    client = ClientWorker(name, target.client_command(), tmp_path / "client.log")
    try:
        assert server.ready["worker"]["delay_ns"] == DELAY_NS
        assert client.call({"cmd": "hello"})["ok"]
        assert client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}})["ok"]
        for mode in ("twoway", "echo", "oneway"):
            path = tmp_path / f"{mode}.i64"
            answer = client.call({"cmd": "run", "mode": mode, "payload_type": "octets", "payload_bytes": 1000,
                                  "calls": CALLS, "warmup": 5, "samples_file": str(path),
                                  "sync_timeout_ms": 20000}, timeout=120)
            assert answer["ok"], answer
            assert answer["received"]["messages"] == CALLS
            if mode == "oneway":
                # The client does not wait for a oneway, but the server spins before it reads the next one and
                # the closing barrier waits for the last: the whole trial takes at least calls x delay.
                assert answer["elapsed_ns"] >= CALLS * DELAY_NS, answer
                assert answer["warmup_sync"]["complete"], answer
            else:
                # A twoway or echo reply leaves the server only after its spin: no call can be shorter.
                assert read_samples(path).min() >= DELAY_NS, (mode, read_samples(path).min())
    finally:
        client.stop()
        server.stop()


@pytest.mark.parametrize("name", ["c-socket", "java-socket"])
@pytest.mark.parametrize("bad", ["-1", "2us", "2000000000"])
def test_a_bad_delay_is_a_start_error_naming_it(name, bad, tmp_path):
    require_targets(name)
    target = read_targets()[name].with_server_args(("--delay-ns", bad))
    from orbench.errors import WorkerError

    with pytest.raises(WorkerError) as exc:
        ServerWorker(name, target.server_command("127.0.0.1"), tmp_path / "server.log")
    assert "delay-ns" in str(exc.value)
