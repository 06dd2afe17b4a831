"""The history page over three real runs of one small campaign, the third with its C socket server slowed by
300 us per call (the known-answer server's --delay-ns): that run is flagged against the second, as
`orbench compare` flags it (drift-aware: the baseline's move is the machine's drift, omniORB's ORB-added latency
is what moved), and the page renders in headless Chromium with every figure."""

from __future__ import annotations

import re
import shutil

import pytest
from orbench.campaign.spec import read_campaign
from orbench.results.store import RunStore
from orbench.running.runner import Runner
from orbench.summary.history import build_history
from orbench.summary.summary import write_summary
from orbench.targets.descriptor import read_targets

from tests.browser import rendered_body
from tests.conftest import require_targets

CAMPAIGN = """\
name = "tiny"
description = "history test: omniORB vs the C socket baseline, twoway"
targets = ["omniorb"]
modes = ["twoway"]
payload_bytes = [64, 1024]
trials = 6
calls = 300
warmup = 100
"""
DELAY_NS = 300_000


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory):
    require_targets("omniorb", "c-socket")
    root = tmp_path_factory.mktemp("history")
    path = root / "tiny.toml"
    path.write_text(CAMPAIGN)
    results = root / "results"
    slowed = read_targets()
    slowed["c-socket"] = slowed["c-socket"].with_server_args(("--delay-ns", str(DELAY_NS)))
    stores = []
    for targets in (None, None, slowed):
        campaign = read_campaign(path, targets=targets)
        store = RunStore.create(campaign.name, results)
        assert Runner(campaign, store, argv=["test"]).run() == 0
        write_summary(store)
        stores.append(store)
    from orbench_plots.report import make_report

    make_report(stores[-1].path)
    return results, stores


def test_history_flags_the_slowed_run_against_the_one_before(three_runs):
    results, stores = three_runs
    history = build_history(results)
    runs = history.runs
    assert [r.run_id for r in runs] == [s.run_id for s in stores]
    assert runs[0].compared_with is None and runs[1].compared_with == stores[0].run_id
    assert all(r.commit and r.orb_versions.get("omniorb", "").startswith("omniORB") for r in runs)
    series = history.series["tiny"]
    socket = series[(("same-core", "twoway", "octets", 64, "in"), "c-socket")]
    assert [p.run_id for p in socket] == [s.run_id for s in stores]
    assert socket[2].p50.estimate >= DELAY_NS
    # omniORB did not change, its baseline did: its ORB-added latency drops by about the delay, flagged at both
    # sizes (the lone baseline's own move is taken as the machine's drift, not tested).
    for size in (64, 1024):
        added = series[(("same-core", "twoway", "octets", size, "in"), "omniorb")]
        assert added[2].orb_added_flag == "faster" and added[2].orb_added.estimate < -DELAY_NS / 2
    assert runs[2].flagged >= 2


def test_history_page_renders_in_a_real_browser(three_runs, tmp_path):
    if shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed (make deps installs it)")
    from orbench_plots.history import make_history_page

    results, stores = three_runs
    page = make_history_page(results)
    assert page == results / "index.html"
    text = page.read_text()
    assert text.count("<tr>") == 1 + 3  # header and three runs
    assert f"{stores[2].path.name}/report.html" in text  # the run with a report links to it
    assert re.search(r"omniorb ORB-added faster in " + re.escape(stores[2].run_id), text)
    images = re.findall(r"<img src='([^']+)'", text)
    assert len(images) == 2  # one trend figure per point
    body = rendered_body(page, tmp_path / "profile")
    assert body.get("data-images") == "2" and body.get("data-images-loaded") == "2", body
    # Rebuilt from the results directory alone: a copy elsewhere gives the same page.
    copy = tmp_path / "copy"
    shutil.copytree(results, copy, symlinks=True)
    (copy / "index.html").unlink()
    again = make_history_page(copy).read_text()
    assert again.count("<tr>") == 4 and "omniorb ORB-added faster" in again
