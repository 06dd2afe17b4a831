"""A soak point in a campaign on a host pair of two network-namespace hosts with real sshd: the server on one,
two clients on the other, run by the same Runner as every campaign; each interval's resident memory and CPU of
every worker is read on the host it runs on (over SSH), from the worker's own pid there, not from the local
ssh process that carries its protocol. Needs root and `ip netns` (skips otherwise)."""

from __future__ import annotations

import pytest
from orbench.hosts.netns import why_no_lab
from orbench.results.soak import read_jsonl, soak_records
from orbench.results.store import RunStore

from tests.conftest import require_targets, run_cli
from tests.test_hosts_netns import assert_no_workers, campaign_text

pytestmark = pytest.mark.skipif(bool(why_no_lab()), reason=why_no_lab() or "")


def test_soak_point_on_a_remote_pair_reads_remote_memory_per_interval(lab, tmp_path, write_campaign, results_root):
    require_targets("c-socket")
    soak = "duration_s = 3\ninterval_s = 1\nrates_hz = [200]\nclients = [2]"
    path = write_campaign(campaign_text(lab, tmp_path / "remote", ["c-socket"], name="nssoak", sizes="[64]",
                                        extra=soak))
    code, out, err = run_cli("run", str(path))
    assert code == 0, err
    run_dir = (results_root / "nssoak" / "latest").resolve()
    manifest = RunStore(run_dir).read_manifest()
    assert manifest["kind"] == "soak" and manifest["status"] == "complete"
    [record] = soak_records(manifest)
    assert record.status == "finished", record.failures
    assert record.point.host_pair == "alpha--beta" and record.hosts == {"server": "alpha", "client": "beta"}
    assert all(record.answers[k]["calls"] == 600 for k in ("0", "1"))  # 200 Hz for 3 s, by intended send time
    folder = record.path(run_dir)
    rows = read_jsonl(folder / "intervals.jsonl")
    assert sorted((r["client"], r["index"]) for r in rows) == [(k, i) for k in (0, 1) for i in (0, 1, 2)]
    # The workers' pids on their hosts, as they reported them (the launch record).
    launched = manifest["launches"][0]["workers"]
    [pids] = launched.values()
    resources = read_jsonl(folder / "resources.jsonl")
    assert [r["index"] for r in resources] == [0, 1, 2]
    for r in resources:
        server, clients = r["server"], r["clients"]
        assert server["host"] == "alpha" and server["pid"] == pids["server_pid"] and server["rss_bytes"] > 0
        assert [c["host"] for c in clients] == ["beta", "beta"] and all(c["rss_bytes"] > 0 for c in clients)
        assert clients[0]["pid"] == pids["client_pid"] and clients[1]["pid"] != clients[0]["pid"]
        assert r["harness"]["host"] == "local" and r["harness"]["rss_bytes"] > 0
    # CPU time read over SSH moves on from interval to interval: the workers' own clocks, not a constant.
    for who in (lambda r: r["server"], lambda r: r["clients"][0], lambda r: r["clients"][1]):
        cpu = [who(r)["cpu_ns"] for r in resources]
        assert cpu == sorted(cpu) and cpu[-1] > cpu[0], cpu
    # The remote hosts' memory figure is in the soak report, labelled with the host.
    assert "soak-resources.png" in (run_dir / "report.html").read_text()
    assert_no_workers(lab, wait_s=5)
