"""summary.json from checked-in raw samples of a real run (fixtures/run-small: omniORB and the C socket
baseline, twoway and oneway, 1 B and 1000 B, 3 trials of 300 calls, same-core, made on the 2-core dev VM)."""

import csv
import json
import shutil
from dataclasses import replace

import numpy as np
import pytest
from orbench.results.store import RunStore
from orbench.summary.model import SUMMARY_VERSION, RunSummary
from orbench.summary.summary import current_summary, read_summary, summarize, write_summary

from tests.conftest import FIXTURES

RUN = FIXTURES / "run-small"


@pytest.fixture
def store(tmp_path):
    shutil.copytree(RUN, tmp_path / "run")
    return RunStore(tmp_path / "run")


def trial_rows():
    with open(RUN / "trials.csv", newline="") as f:
        return list(csv.DictReader(f))


def samples_of(target, mode, size):
    rows = [r for r in trial_rows() if (r["target"], r["mode"], r["payload_bytes"]) == (target, mode, str(size))]
    return {int(r["trial"]): np.fromfile(RUN / r["samples_file"], dtype="<i8") for r in rows}


def test_pooled_percentiles_match_the_raw_samples(store):
    summary = summarize(store)
    for p in summary.points:
        raw = np.concatenate(list(samples_of(p.point.target, p.point.mode, p.point.payload_bytes).values()))
        assert p.latency_ns.count == raw.size
        assert p.latency_ns.p50 == pytest.approx(np.median(raw))
        assert p.latency_ns.p99 == pytest.approx(np.percentile(raw, 99))
        assert p.latency_ns.max == raw.max()


def test_orb_added_latency_is_the_mean_paired_p50_difference(store):
    summary = summarize(store)
    for p in summary.points:
        if p.point.target != "omniorb":
            continue
        orb = samples_of("omniorb", p.point.mode, p.point.payload_bytes)
        base = samples_of("c-socket", p.point.mode, p.point.payload_bytes)
        diffs = [np.median(orb[k]) - np.median(base[k]) for k in sorted(orb)]
        added = p.orb_added_latency_ns
        assert added.baseline == "c-socket" and added.pairs == len(diffs) == 3
        assert added.estimate == pytest.approx(np.mean(diffs))
        half = 4.303 * np.std(diffs, ddof=1) / np.sqrt(3)
        assert added.ci95_low == pytest.approx(np.mean(diffs) - half, rel=1e-3)
        assert added.ci95_high == pytest.approx(np.mean(diffs) + half, rel=1e-3)
        # The ORB's p50 minus its baseline's is the ORB-added estimate, to within what taking each p50 as a
        # geometric mean (its interval is on the log scale) moves it: well under a nanosecond here.
        base_point = next(b for b in summary.points if b.point == p.point.group.with_target("c-socket"))
        assert p.p50 - base_point.p50 == pytest.approx(added.estimate, abs=1.0)


def test_oneway_keeps_client_time_and_throughput_apart(store):
    summary = summarize(store)
    oneway = [p for p in summary.points if p.point.mode == "oneway"]
    assert oneway
    for p in oneway:
        ow = p.oneway
        assert ow.client_time_per_call_ns == p.latency_ns
        assert ow.lost_messages == 0 and ow.received_messages == ow.calls
        assert ow.receiver_throughput_msgs_per_s > 0
    twoway = [p for p in summary.points if p.point.mode == "twoway"]
    assert twoway and all(p.oneway is None for p in twoway)
    assert all("oneway" not in p for p in summary.to_json()["points"] if p["mode"] == "twoway")


def test_lost_messages_are_reported(store):
    rows = trial_rows()
    for r in rows:
        if r["mode"] == "oneway" and r["target"] == "omniorb" and r["trial"] == "0":
            r["received_messages"] = str(int(r["calls"]) - 7)
            r["lost_messages"] = "7"
    with open(store.trials_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    summary = summarize(store)
    lost = [p for p in summary.points if p.point.mode == "oneway" and p.point.target == "omniorb"]
    assert lost and all(p.oneway.lost_messages == 7 for p in lost)
    assert any("7 of" in w and "lost" in w for w in summary.warnings)


def test_a_stopping_record_belongs_to_its_own_host_pair(store):
    """Two host pairs' records of the same placement, mode and payload: each point gets its own pair's (keyed
    without the host pair, the record listed last won for both)."""
    manifest = json.loads(store.manifest_path.read_text())
    where = {"placement": "same-core", "mode": "twoway", "payload_type": "octets", "payload_bytes": 1}
    manifest["stopping"] = [{**where, "reason": "fixed", "trials": 3},
                            {**where, "host_pair": "alpha--beta", "reason": "ci", "trials": 2}]
    store.manifest_path.write_text(json.dumps(manifest))
    points = [p for p in summarize(store).points if p.point.mode == "twoway" and p.point.payload_bytes == 1]
    assert points and all(p.stopping.reason == "fixed" and p.stopping.trials == 3 for p in points)


def test_older_runs_are_read_in_the_current_layout(store):
    """The fixture was written with results schema 1: read through the upgrade, every trial has every column
    of today, typed, and the manifest has what later versions added."""
    from orbench.results.point import Point
    from orbench.results.upgrade import SCHEMA_VERSION

    manifest, trials = store.read()
    assert manifest["schema_version_read"] == 1 and manifest["schema_version"] == SCHEMA_VERSION
    assert manifest["stopping"] == [] and manifest["environment"]["host"]["hostname"] == "vm"
    assert manifest["hosts"]["local"]["environment"]["host"]["hostname"] == "vm"
    assert len(trials) == len(trial_rows())
    first = trials[0]
    assert first.point == Point(placement="same-core", mode="twoway", payload_type="octets", payload_bytes=1,
                                target="omniorb")
    assert isinstance(first.calls, int) and isinstance(first.p50_ns, float) and first.trial_end_unix is None
    assert first.usage_hosts == "local" and first.client_p50s_ns is None



def test_an_old_skip_by_the_rule_reads_as_given_up(store):
    """Before schema 11 a trial given up by the skip rule was `skipped` with an error saying so; it reads as
    `given_up`, while a target that cannot run the point stays `skipped`."""
    rows = trial_rows()
    rows[0].update(status="skipped", error="skipped after 2 failed or stalled trials in a row; the last: no progress")
    rows[1].update(status="skipped", error="unsupported: oneway")
    with open(store.path / "trials.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    by_seq = {t.seq: t for t in store.read_trials()}
    assert by_seq[int(rows[0]["seq"])].status == "given_up"
    assert by_seq[int(rows[1]["seq"])].status == "skipped"


def test_a_known_answer_is_judged_against_its_interval():
    from orbench.results.point import Point
    from orbench.summary.model import KnownAnswerRow, OrbAdded, PointSummary, TrialInterval
    from orbench.summary.pairing import known_answer
    from orbench.summary.table import known_answer_lines

    point = Point(placement="same-core", mode="twoway", payload_type="octets", payload_bytes=1,
                  target="c-socket-delay@2000")
    measured = PointSummary(point=point, p50_ci95_ns=TrialInterval(estimate=17_000.0))
    added = OrbAdded(baseline="c-socket", estimate=2100.0, ci95_low=1900.0, ci95_high=2300.0, pairs=20)
    ok = known_answer(2000, added, measured)
    assert ok.covered and ok.within_tolerance and ok.error_ns == 100 and ok.mean_p50_ns == 17_000.0
    # Covered, but 300 ns off with a 350 ns half-width: within max(350, 5% of 2000 = 100).
    wide = known_answer(2000, replace(added, estimate=2300.0, ci95_low=1950.0, ci95_high=2650.0), measured)
    assert wide.covered and wide.within_tolerance
    # The median's interval is asymmetric: the side towards N is what the estimate's distance is held against.
    lopsided = known_answer(2000, replace(added, estimate=2256.0, ci95_low=1962.0, ci95_high=2450.0), measured)
    assert lopsided.covered and lopsided.within_tolerance
    missed = known_answer(2000, replace(added, estimate=2600.0, ci95_low=2500.0, ci95_high=2700.0), measured)
    assert not missed.covered and not missed.within_tolerance
    lines = known_answer_lines((KnownAnswerRow(point, ok), KnownAnswerRow(point, missed)))
    assert lines[1] == "known answers: 1 of 2 intervals cover the known N"
    assert "2.0 us" in lines[4] and "2.1 us [1.9 us, 2.3 us]" in lines[4] and lines[5].split()[-2:] == ["NO", "NO"]


def test_summary_json_round_trips_through_its_types(store):
    """to_json and from_json are inverses on a real run's summary: every key summary.json holds has its field."""
    data = json.loads(json.dumps(write_summary(store).to_json()))
    assert data == json.loads(store.summary_path.read_text())
    again = RunSummary.from_json(data)
    assert again.to_json() == data
    assert again == RunSummary.from_json(again.to_json())
    assert {"schema_version", "summary_version", "points", "known_answers", "warnings", "warnings_detail",
            "equivalence", "machine", "known_answer_fits"} <= set(data)
    omniorb = next(p for p in data["points"] if p["target"] == "omniorb")
    assert {"latency_ns", "p50_ci95_ns", "trial_p50_ns", "load", "orb_added_latency_ns"} <= set(omniorb)
    # Null where null is the answer: a baseline's family, a tail percentile from 900 calls.
    assert all("family" in p and p["latency_ns"]["p99.99"] is None for p in data["points"])
    assert next(p for p in data["points"] if p["target"] == "c-socket")["family"] is None


def test_an_older_summary_json_is_recomputed_not_misread(store):
    """summary.json of an older orbench is never parsed as current: read_summary refuses it, current_summary
    recomputes it from the raw samples and writes it back, and the report is made from that. The first file is
    what orbench wrote for this fixture before summary.json had types (fixtures/summary-before-types.json); its
    keys are today's, which the types also read."""
    from orbench_plots.report import make_report

    before = json.loads((FIXTURES / "summary-before-types.json").read_text())
    assert "summary_version" not in before
    store.summary_path.write_text(json.dumps(before))
    assert read_summary(store) is None
    summary = current_summary(store)
    assert len(summary.points) == 8 and summary.summary_version == SUMMARY_VERSION
    assert read_summary(store) == summary
    # Same keys: the typed reading of the old file holds today's points, with the same paired estimates (a p50's
    # estimate is a geometric mean since its interval is made on the log scale, so it moved by a few ns).
    old = RunSummary.from_json(before)
    assert [p.point for p in old.points] == [p.point for p in summary.points]
    for was, now in zip(old.points, summary.points):
        assert (was.orb_added_latency_ns is None) == (now.orb_added_latency_ns is None)
        if now.orb_added_latency_ns is not None:
            assert was.orb_added_latency_ns.estimate == pytest.approx(now.orb_added_latency_ns.estimate)
        assert was.p50 == pytest.approx(now.p50, rel=1e-3)
    # Older still (results schema 1, keys since gone) or of an older layout: refused too, never misread.
    for old in ({"schema_version": 1, "points": [{"target": "omniorb", "p50_ns": 1.0}], "warnings": []},
                {**summary.to_json(), "summary_version": SUMMARY_VERSION - 1}):
        store.summary_path.write_text(json.dumps(old))
        assert read_summary(store) is None
    report = make_report(store.path)
    assert "omniorb" in report.read_text() and read_summary(store) == summary


@pytest.mark.parametrize("mb_per_s, shown", [(12.34, "12.3 MB/s"), (0.1, "0.1 MB/s"), (0.0456, "45.6 kB/s"),
                                             (0.000312, "312 B/s"), (None, "-")])
def test_a_throughput_is_shown_in_a_unit_that_shows_it(mb_per_s, shown):
    """A oneway of 1 B at a few thousand calls a second is kilobytes a second: never 0.0 MB/s."""
    from orbench.results.units import fmt_throughput

    assert fmt_throughput(mb_per_s) == shown
