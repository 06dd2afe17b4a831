"""Exports read back: the CSV holds every sample under its whole point, the HdrHistogram logs (one per point)
decode with hdrh's own reader to the same counts and (within HdrHistogram's 3 digits) the same percentiles."""

import csv
import shutil

import numpy as np
from hdrh.log import HistogramLogReader
from orbench.campaign.spec import read_campaign
from orbench.results.point import Point
from orbench.results.store import RunStore
from orbench.running.runner import Runner
from orbench.stats.stats import read_samples
from orbench.summary.compare import compare_runs
from orbench.summary.export import export_run

from tests.conftest import FIXTURES, require_targets


def intervals(log) -> list:
    reader = HistogramLogReader(str(log), None)
    out = []
    while (h := reader.get_next_interval_histogram()) is not None:
        out.append(h)
    return out


def test_csv_and_hdr_logs_round_trip(tmp_path):
    shutil.copytree(FIXTURES / "run-small", tmp_path / "run")
    store = RunStore(tmp_path / "run")
    result = export_run(store)
    trials = [t for t in store.read_trials() if t.ok]
    total = sum(t.calls for t in trials)
    with open(result["csv"], newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == result["rows"] == total
    first = trials[0]
    raw = read_samples(store.path / first.samples_file)
    mine = [int(r["latency_ns"]) for r in rows if (Point.from_record(r), int(r["trial"])) == (first.point, first.trial)]
    assert mine == raw.tolist()

    log = next(p for p in result["hdr_logs"] if p.name == "same-core-twoway-octets-1000B-omniorb.hlog")
    raw = [read_samples(store.path / t.samples_file) for t in trials
           if (t.point.target, t.point.mode, t.point.payload_bytes) == ("omniorb", "twoway", 1000)]
    hs = intervals(log)
    assert len(hs) == len(raw) == 3
    for h, x in zip(hs, raw):
        assert h.get_total_count() == x.size
        assert abs(h.get_value_at_percentile(50) - np.percentile(x, 50)) <= 0.002 * np.percentile(x, 50) + 1
        assert h.get_max_value() >= x.max() * 0.999


LOADS = """
name = "export-loads"
targets = ["omniorb", "c-socket"]
modes = ["twoway"]
payload_bytes = [64]
clients = [1, 2]
rates_hz = [0, 1000]
trials = 1
calls = 60
warmup = 10
"""


def test_export_and_compare_keep_every_point_of_a_run_with_loads_apart(write_campaign, results_root):
    """A real run with clients [1, 2] and rates_hz [0, 1000]: 4 loads x 2 targets = 8 points, so 8 logs, each
    holding only its own point's samples, and samples.csv says which load each sample was measured at; compared
    with itself, 8 rows. (Keyed without clients and rate, the export merged the 4 loads of a target into one
    log, and compare made 2 rows of the 8 points.)"""
    require_targets("omniorb", "c-socket")
    campaign = read_campaign(write_campaign(LOADS))
    store = RunStore.create(campaign.name)
    assert Runner(campaign, store).run() == 0
    result = export_run(store)
    trials = {t.point: t for t in store.read_trials()}
    assert len(trials) == 8
    assert sorted(p.name for p in result["hdr_logs"]) == sorted(f"{p.slug}.hlog" for p in trials)
    for log in result["hdr_logs"]:
        point = next(p for p in trials if f"{p.slug}.hlog" == log.name)
        (h,) = intervals(log)
        assert h.get_total_count() == trials[point].calls == 60 * point.clients
    with open(result["csv"], newline="") as f:
        rows = list(csv.DictReader(f))
    assert {"host_pair", "options", "clients", "rate_hz"} <= set(rows[0])
    counts: dict[Point, int] = {}
    for r in rows:
        counts[Point.from_record(r)] = counts.get(Point.from_record(r), 0) + 1
    assert counts == {p: t.calls for p, t in trials.items()}
    compared = compare_runs(store, store)
    assert sorted(Point.from_record(r) for r in compared["points"]) == sorted(trials)
