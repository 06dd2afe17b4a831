"""Exports of the checked-in fixture run, read back: the CSV holds every sample, the HdrHistogram logs decode
with hdrh's own reader to the same counts and (within HdrHistogram's 3 digits) the same percentiles."""

import csv
import shutil

import numpy as np
from hdrh.log import HistogramLogReader
from orbench.export import export_run
from orbench.results import RunStore
from orbench.stats import read_samples

from tests.conftest import FIXTURES


def test_csv_and_hdr_logs_round_trip(tmp_path):
    shutil.copytree(FIXTURES / "run-small", tmp_path / "run")
    store = RunStore(tmp_path / "run")
    result = export_run(store)
    trials = [r for r in store.read_trials() if r["status"] == "ok"]
    total = sum(int(r["calls"]) for r in trials)
    with open(result["csv"], newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == result["rows"] == total
    first = trials[0]
    raw = read_samples(store.path / first["samples_file"])
    mine = [int(r["latency_ns"]) for r in rows if (r["target"], r["mode"], r["payload_bytes"], r["trial"]) ==
            (first["target"], first["mode"], first["payload_bytes"], first["trial"])]
    assert mine == raw.tolist()

    log = next(p for p in result["hdr_logs"] if p.name == "same-core-twoway-octets-1000B-omniorb.hlog")
    reader = HistogramLogReader(str(log), None)
    intervals = []
    while (h := reader.get_next_interval_histogram()) is not None:
        intervals.append(h)
    raw = [read_samples(store.path / r["samples_file"]) for r in trials
           if (r["target"], r["mode"], r["payload_bytes"]) == ("omniorb", "twoway", "1000")]
    assert len(intervals) == len(raw) == 3
    for h, x in zip(intervals, raw):
        assert h.get_total_count() == x.size
        assert abs(h.get_value_at_percentile(50) - np.percentile(x, 50)) <= 0.002 * np.percentile(x, 50) + 1
        assert h.get_max_value() >= x.max() * 0.999
