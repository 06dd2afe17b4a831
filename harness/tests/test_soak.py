"""Soak points through the harness: durations, the worker's buckets as HdrHistogram logs without loss, and
real soaks of real workers run by the Runner as one-point campaigns: intervals written as they arrive, memory
flat (from /proc) while millions of calls go by, a Ctrl-C keeping every closed interval, a soak of schema 9
still read and reported."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader
from orbench.campaign.duration import format_duration, parse_duration
from orbench.campaign.soakfile import SoakSettings, soak_campaign
from orbench.results.soak import SoakRecord, read_jsonl, soak_records
from orbench.results.store import RunStore
from orbench.running.runner import Runner
from orbench.running.soak.intervals import SOAK_DIGITS, SOAK_HIGHEST_NS, bucket_lowest, histogram_of

from tests.conftest import require_targets

MIB = 1 << 20


@pytest.mark.parametrize("text, seconds", [("24h", 86400), ("90m", 5400), ("45s", 45), ("1h30m", 5400),
                                           ("2d", 172800), ("0.5s", 0.5), ("600", 600), (90, 90)])
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("bad", ["", "1x", "h", "-5m", "0s", "1h 30", "5mm", True])
def test_bad_durations_say_what_a_duration_is(bad):
    with pytest.raises(ValueError):
        parse_duration(bad)


def test_durations_print_back_short():
    assert [format_duration(s) for s in (5400, 90, 86400, 0.5, 45)] == ["1h30m", "1m30s", "1d", "0.5s", "45s"]


def test_every_protocol_bucket_is_the_same_hdrhistogram_counts_index():
    h = HdrHistogram(1, SOAK_HIGHEST_NS, SOAK_DIGITS)
    assert h.counts_len == 7296
    assert all(h._counts_index_for(max(1, bucket_lowest(i))) == i for i in range(1, h.counts_len))
    event = {"buckets": [[0, 2], [300, 5], [1259, 7]]}
    got = histogram_of(event)
    assert got.get_total_count() == 14
    assert got.get_count_at_index(300) == 5 and got.get_count_at_index(1259) == 7


def _soak(results_root, target: str, **settings) -> tuple[RunStore, SoakRecord]:
    """A one-point soak campaign, as `orbench soak TARGET` builds it, run by the Runner."""
    name = f"soak-{target}"
    campaign = soak_campaign(results_root / f"{name}.toml", name, "", [target], SoakSettings(**settings))
    store = RunStore.create(name, results_root)
    Runner(campaign, store, argv=["test"], stream=open(os.devnull, "w")).run()
    [record] = soak_records(store.read_manifest())
    return store, record


def test_paced_soak_of_two_clients_writes_every_interval(results_root):
    require_targets("c-socket")
    store, record = _soak(results_root, "c-socket", duration_s=3, interval_s=1, rate_hz=100, clients=2,
                          arrivals="poisson", seed=5)
    assert record.status == "finished", record.failures
    assert store.read_manifest()["kind"] == "soak" and record.dir == "soak/same-core-twoway-octets-64B-c2-r100-poisson-c-socket-l0"
    folder = record.path(store.path)
    rows = read_jsonl(folder / "intervals.jsonl")
    assert sorted((r["client"], r["index"]) for r in rows) == [(k, i) for k in (0, 1) for i in (0, 1, 2)]
    for k in (0, 1):
        answer = record.answers[str(k)]
        assert answer["arrivals"] == "poisson" and answer["seed"] == 5 + k
        assert sum(r["calls"] for r in rows if r["client"] == k) == answer["calls"]
        assert 150 < answer["calls"] < 450  # 100 Hz for 3 s, Poisson
        # The log holds what the worker sent: same counts per interval, read back by HdrHistogram's reader.
        reader = HistogramLogReader(str(folder / f"client-{k}.hlog"), HdrHistogram(1, SOAK_HIGHEST_NS, SOAK_DIGITS))
        counts = []
        while (h := reader.get_next_interval_histogram()) is not None:
            counts.append(h.get_total_count())
        assert counts == [r["calls"] for r in sorted(rows, key=lambda r: r["index"]) if r["client"] == k]
    # The group's twoway calls all reached the one server: the last client to finish saw them all, with the
    # group's warm-up calls (1000 each for a C++ target; a group's server is reset once, before them).
    total = sum(record.answers[str(k)]["calls"] for k in (0, 1)) + 2 * 1000
    assert max(record.answers[str(k)]["received"]["messages"] for k in (0, 1)) == total
    resources = read_jsonl(folder / "resources.jsonl")
    assert [r["index"] for r in resources] == [0, 1, 2]
    assert all(r["server"]["rss_bytes"] > 0 and len(r["clients"]) == 2 for r in resources)
    assert all(c["rss_bytes"] > 0 and c["cpu_ns"] > 0 and c["host"] == "local" for r in resources for c in r["clients"])
    # The soak's report: latency per interval, misses and calls, memory and CPU (no GC figure: C++).
    from orbench_plots.soak_report import make_soak_report

    text = make_soak_report(store.path).read_text()
    images = re.findall(r"<img src='([^']+)'", text)
    assert images == ["figures/soak-latency.png", "figures/soak-misses.png", "figures/soak-resources.png"]
    assert all((store.path / i).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for i in images)


def _growth(store: RunStore, record: SoakRecord, who: str) -> int:
    """RSS of `who` ("server" or "client") at the last interval minus at the third (after start-up)."""
    resources = read_jsonl(record.path(store.path) / "resources.jsonl")
    value = (lambda r: r["server"]["rss_bytes"]) if who == "server" else (lambda r: r["clients"][0]["rss_bytes"])
    return value(resources[-1]) - value(resources[2])


@pytest.mark.slow  # a measurement over tens of seconds
def test_closed_loop_soaks_keep_memory_flat(results_root):
    """40 s of closed-loop calls (C++: hundreds of thousands; kept whole they would be 8 B each) with the
    resident memory of client and server read from /proc every 4 s: flat after start-up. The C++ and the
    Java pair run at the same time."""
    require_targets("c-socket", "jacorb")
    out: dict[str, tuple[RunStore, SoakRecord]] = {}
    threads = [threading.Thread(target=lambda t=t: out.__setitem__(t, _soak(results_root, t, duration_s=40,
                                                                            interval_s=4, payload_bytes=32)))
               for t in ("c-socket", "jacorb")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for target, limit in (("c-socket", 1 * MIB), ("jacorb", 24 * MIB)):
        store, record = out[target]
        assert record.status == "finished", record.failures
        calls = record.answers["0"]["calls"]
        assert calls > 10_000, f"{target}: only {calls} calls in 40 s"
        for who in ("client", "server"):
            grew = _growth(store, record, who)
            assert grew < limit, f"{target} {who} grew {grew / MIB:.1f} MiB over the soak ({calls} calls)"
        rows = read_jsonl(record.path(store.path) / "intervals.jsonl")
        assert [r["index"] for r in rows] == list(range(10))


def test_interrupted_soak_keeps_its_closed_intervals_and_resumes(results_root, tmp_path):
    """SIGINT to `orbench soak` mid-run: exit 130, every interval closed before it kept; `--resume` runs the
    rest of the duration, numbering on, with the gap recorded."""
    require_targets("c-socket")
    env = {**os.environ, "ORBENCH_RESULTS": str(results_root)}
    proc = subprocess.Popen([sys.executable, "-m", "orbench", "soak", "c-socket", "--duration", "4s",
                             "--interval", "0.5s", "--rate", "50", "--name", "cut"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    run_dir = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = list((results_root / "cut").glob("*/soak/*/intervals.jsonl"))
        if found and len(read_jsonl(found[0])) >= 2:
            folder = found[0].parent
            run_dir = folder.parent.parent
            break
        time.sleep(0.2)
    assert run_dir is not None, "no intervals written"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    rows = read_jsonl(folder / "intervals.jsonl")
    assert len(rows) >= 2 and [r["index"] for r in rows] == list(range(len(rows)))
    manifest = RunStore(run_dir).read_manifest()
    assert manifest["status"] == "interrupted" and soak_records(manifest)[0].status == "interrupted"
    logs = (folder / "client-0.hlog").read_text().splitlines()
    assert sum(1 for line in logs if not line.startswith(("#", '"'))) == len(rows)
    kept = len(rows)
    assert kept < 8, "interrupted before the end"
    proc = subprocess.run([sys.executable, "-m", "orbench", "soak", "--resume", str(run_dir)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = read_jsonl(folder / "intervals.jsonl")
    assert [r["index"] for r in rows] == list(range(8))  # 4 s in 0.5 s intervals, each once
    manifest = RunStore(run_dir).read_manifest()
    [record] = soak_records(manifest)
    assert manifest["status"] == "complete" and record.status == "finished"
    assert record.resumed[0]["intervals_kept"] == kept and len(manifest["resumed"]) == 1
    gaps = read_jsonl(folder / "gaps.jsonl")
    assert len(gaps) == 1 and gaps[0]["after_index"] == kept - 1 and gaps[0]["seconds"] > 0
    logs = (folder / "client-0.hlog").read_text().splitlines()
    stamps = [float(line.split(",")[0]) for line in logs if not line.startswith(("#", '"'))]
    assert len(stamps) == 8 and stamps == sorted(stamps)  # one log, time stamps from the first start


def test_soak_files_are_checked_key_by_key(tmp_path):
    from orbench.campaign.soakfile import load_soak_file
    from orbench.errors import UserError
    from orbench.paths import campaigns_dir

    for name in ("tine", "tine-short"):
        soak = load_soak_file(campaigns_dir() / f"{name}.toml")
        assert soak.settings.rate_hz == 10 and soak.settings.clients == 3 and soak.targets[0].name == "jacorb"
    assert load_soak_file(campaigns_dir() / "tine.toml").settings.duration_s == 4 * 3600
    base = 'name = "x"\ntargets = ["jacorb"]\nduration = "1m"\n'
    for extra, words in (('colour = "red"\n', "unknown key(s) colour"), ('interval = "5q"\n', "key interval"),
                         ('rate_hz = "fast"\n', "key rate_hz"), ('clients = true\n', "key clients"),
                         ('arrivals = "poisson"\n', "needs a rate")):
        path = tmp_path / "bad.toml"
        path.write_text(base + extra)
        with pytest.raises(UserError) as exc:
            load_soak_file(path)
        assert str(path) in str(exc.value) and words in str(exc.value), str(exc.value)
    path = tmp_path / "bad.toml"
    path.write_text(base.replace('"jacorb"', '"orbix"'))
    with pytest.raises(UserError, match="no such target"):
        load_soak_file(path)


def test_soak_campaign_keys_are_checked(tmp_path):
    """A campaign of soak points says what is wrong with its soak keys, naming the file and the key; it adds
    no baseline (a soak compares nothing with one)."""
    from orbench.campaign.spec import read_campaign
    from orbench.errors import UserError

    base = 'name = "s"\ntargets = ["omniorb"]\nmodes = ["twoway"]\npayload_bytes = [64]\nduration_s = 60\n'
    path = tmp_path / "s.toml"
    path.write_text(base)
    campaign = read_campaign(path)
    assert campaign.is_soak and campaign.settings.targets == ("omniorb",) and campaign.settings.interval_s == 10
    for extra, words in (("interval_s = 120\n", "key interval_s"), ('arrivals = "poisson"\n', "key arrivals"),
                         ('modes = ["oneway"]\nclients = [2]\n', "key clients"), ("duration_s = 0\n", "duration_s")):
        text = base.replace("duration_s = 60\n", "") + (extra if "duration_s" in extra else "duration_s = 60\n"
                                                          + extra)
        path.write_text(text.replace('modes = ["twoway"]\n', "") if "modes" in extra else text)
        with pytest.raises(UserError) as exc:
            read_campaign(path)
        assert str(path) in str(exc.value) and words in str(exc.value), str(exc.value)


@pytest.mark.slow  # a measurement over tens of seconds
def test_tine_short_soak(results_root):
    """The TINE setting's short form, as a user runs it: three JacORB clients at 10 Hz each for 30 s,
    every interval of every client written, every call answered, deadline misses counted."""
    require_targets("jacorb")
    env = {**os.environ, "ORBENCH_RESULTS": str(results_root)}
    proc = subprocess.run([sys.executable, "-m", "orbench", "soak", "tine-short"], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    run_dir = (results_root / "tine-short" / "latest").resolve()
    manifest = RunStore(run_dir).read_manifest()
    [record] = soak_records(manifest)
    assert manifest["status"] == "complete" and record.status == "finished" and record.point.target == "jacorb"
    assert manifest["campaign"]["targets"] == ["jacorb"]  # a soak adds no baseline
    rows = read_jsonl(record.path(run_dir) / "intervals.jsonl")
    assert sorted({(r["client"], r["index"]) for r in rows}) == [(k, i) for k in range(3) for i in range(6)]
    assert all(r["calls"] == 50 for r in rows)  # 10 Hz x 5 s, by intended send time
    assert all("gc" in r for r in rows)
    answers = record.answers
    assert all(answers[str(k)]["calls"] == 300 for k in range(3))
    assert sum(a["deadline_misses"] for a in answers.values()) == sum(r["deadline_misses"] for r in rows)
    assert (run_dir / "report.html").is_file() and "soak-gc.png" in (run_dir / "report.html").read_text()


def test_a_soak_of_schema_9_still_loads_and_reports(tmp_path):
    """A soak written by the separate soak runner of schema 9 (its settings under `soak`, its files in soak/):
    read through the upgrade it is a campaign of one soak point whose files are in soak/, and its report is
    made from them."""
    import shutil

    run_dir = tmp_path / "oldsoak" / "20261125-161021-vm"
    shutil.copytree(Path(__file__).parent / "fixtures" / "soak-v9", run_dir)
    manifest = RunStore(run_dir).read_manifest()
    assert manifest["schema_version_read"] == 9 and manifest["kind"] == "soak" and manifest["status"] == "complete"
    [record] = soak_records(manifest)
    assert record.dir == "soak" and record.status == "finished" and record.point.target == "c-socket"
    assert record.point.clients == 2 and record.point.rate_hz == 200 and record.interval_s == 1
    assert [record.answers[k]["calls"] for k in ("0", "1")] == [600, 600]
    rows = read_jsonl(record.path(run_dir) / "intervals.jsonl")
    assert sorted((r["client"], r["index"]) for r in rows) == [(k, i) for k in (0, 1) for i in (0, 1, 2)]
    assert manifest["campaign"]["duration_s"] == 3 and manifest["campaign"]["targets"] == ["c-socket"]
    from orbench_plots.soak_report import make_soak_report

    text = make_soak_report(run_dir).read_text()
    assert re.findall(r"<img src='([^']+)'", text) == ["figures/soak-latency.png", "figures/soak-misses.png",
                                                       "figures/soak-resources.png"]
