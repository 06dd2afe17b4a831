"""The plotting stage on the checked-in fixture run: every figure is a real PNG and report.html shows them."""

import re
import shutil

import pytest
from orbench.results.store import RunStore
from orbench.summary.summary import write_summary

from tests.browser import rendered_body, require_chromium
from tests.conftest import FIXTURES


@pytest.fixture(scope="module")
def fixture_report(tmp_path_factory):
    """The fixture run's report, made once for this module (figures take a few seconds)."""
    from orbench_plots.report import make_report

    run = tmp_path_factory.mktemp("report") / "run"
    shutil.copytree(FIXTURES / "run-small", run)
    write_summary(RunStore(run))
    return make_report(run)


def test_report_shows_both_headline_figures(fixture_report):
    run = fixture_report.parent
    text = fixture_report.read_text()
    images = re.findall(r"<img src='([^']+)'", text)
    assert any(i.startswith("figures/orb-added-") for i in images)
    assert any(i.startswith("figures/latency-same-core-twoway") for i in images)
    assert any(i.startswith("figures/latency-same-core-oneway") for i in images)
    for img in images:
        data = (run / img).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, img
    assert "Environment" in text and "kernel" in text.lower()
    assert "ORB-added" in text
    for name in ("cdf-same-core-twoway", "spectrum-same-core-twoway", "throughput-"):
        assert any(i.startswith(f"figures/{name}") for i in images), name
    assert "Latency vs number of clients" in text and "Figures not made" in text
    assert text.count("<figcaption>") == len(images)


def test_report_renders_in_a_real_browser_with_every_image(fixture_report, tmp_path):
    require_chromium()
    run = tmp_path / "run"
    shutil.copytree(fixture_report.parent, run)
    report = run / "report.html"
    images = re.findall(r"<img src='([^']+)'", report.read_text())
    assert len(images) >= 6
    body = rendered_body(report, tmp_path / "profile1")
    assert body.get("data-images") == str(len(images)), body
    assert body.get("data-images-loaded") == str(len(images)), body
    # The check can fail: a figure that is not a PNG any more is reported broken by the browser.
    (run / images[0]).write_bytes(b"not a png")
    body = rendered_body(report, tmp_path / "profile2")
    assert body.get("data-images-loaded") == str(len(images) - 1) and body.get("data-images-broken") == images[0]


def test_sample_figures_keep_host_pairs_apart(tmp_path):
    """The fixture's trials listed twice, once as measured on a second host pair (the same samples files): the
    per-sample figures draw each pair on its own, with its own samples only (keyed without the host pair, the
    two pairs' samples were pooled into one curve)."""
    import csv

    from orbench.results.store import RunStore
    from orbench_plots.sample_figures import RunSamples, cdfs

    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "run-small", run)
    with open(run / "trials.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    with open(run / "trials.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=[*rows[0], "host_pair"])
        w.writeheader()
        w.writerows([{**r, "host_pair": "local"} for r in rows] + [{**r, "host_pair": "alpha--beta"} for r in rows])
    samples = RunSamples(run)
    local = next(p for p in samples.trials if p.host_pair == "local" and p.target == "omniorb")
    assert samples.samples(local).size == sum(t.calls for t in RunStore(run).read_trials() if t.point == local)
    assert {p.host_pair for p in samples.trials} == {"local", "alpha--beta"}
    (tmp_path / "figures").mkdir()
    names = [f.path.name for f in cdfs(samples, tmp_path / "figures")]
    assert len(names) == 4 and sum(n.startswith("cdf-alpha--beta-same-core-") for n in names) == 2


def test_a_cdf_is_drawn_through_few_points_with_its_minimum_and_maximum():
    """cdf_curve thins a point's samples to evenly spaced ranks: never more than asked, the fastest and slowest
    call among them, its share of calls rising to exactly 1; a short one keeps every sample."""
    import numpy as np
    from orbench_plots.sample_figures import cdf_curve

    rng = np.random.default_rng(7)
    samples = rng.lognormal(10, 0.5, 30_001).astype(np.int64)
    x, y = cdf_curve(samples, points=500)
    assert x.size == y.size <= 500
    assert x[0] == samples.min() / 1e3 and x[-1] == samples.max() / 1e3 and y[-1] == 1.0
    assert (np.diff(x) >= 0).all() and (np.diff(y) > 0).all()
    # Each drawn point is where the full CDF is: the share of calls at or below x is y (ties aside).
    assert np.allclose(np.searchsorted(np.sort(samples), x * 1e3, side="right") / samples.size, y, atol=1e-3)
    short_x, short_y = cdf_curve(np.array([5, 1, 3]), points=500)
    assert list(short_x * 1e3) == [1, 3, 5] and list(short_y) == [1 / 3, 2 / 3, 1.0]


def test_the_headline_has_a_row_per_language_of_the_registry_in_its_order():
    from orbench_plots.figures import language_rows

    rows = language_rows()
    assert list(rows)[:3] == ["c++", "java", "python"]
    assert rows["python"] == "Python middleware − Python sockets" and rows["c++"] == "C++ middleware − C sockets"


def test_the_shapes_legend_names_the_targets_of_every_panel():
    """A target drawn only on the first panels (Ice and gRPC have no wstring panel) is in the legend too."""
    import matplotlib.pyplot as plt
    from orbench_plots.section_shapes import legend_handles

    fig, axes = plt.subplots(1, 2)
    axes[0].plot([1], [1], label="ice-cpp")
    axes[0].plot([1], [1], label="omniorb")
    axes[1].plot([1], [1], label="omniorb")
    assert list(legend_handles(axes)) == ["ice-cpp", "omniorb"]
    plt.close(fig)


def test_a_run_with_shapes_gets_the_shapes_figure_and_table(tmp_path):
    """The fixture's omniORB trials listed again as the shape `out` (the same samples files): each shape cost is
    exactly 1 (the same p50s, trial by trial), and the report has the "Invocation shapes" section, its figure a
    real PNG."""
    import csv
    import json

    from orbench_plots.report import make_report

    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "run-small", run)
    with open(run / "trials.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    shaped = [{**r, "shape": "out", "seq": str(len(rows) + i + 1)} for i, r in enumerate(rows)
              if r["target"] == "omniorb" and r["mode"] == "twoway"]
    assert shaped
    with open(run / "trials.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=[*rows[0], "shape"])
        w.writeheader()
        w.writerows([{**r, "shape": "in"} for r in rows] + shaped)
    write_summary(RunStore(run))
    costs = json.loads((run / "summary.json").read_text())["shape_costs"]
    assert {c["payload_bytes"] for c in costs} == {int(r["payload_bytes"]) for r in shaped}
    assert all(c["target"] == "omniorb" and c["shape"] == "out" and c["ratio"]["estimate"] == pytest.approx(1.0)
               and c["added_ns"]["estimate"] == pytest.approx(0.0) for c in costs), costs
    text = make_report(run).read_text()
    assert "<h2>Invocation shapes</h2>" in text and ">out<" in text
    figures = list((run / "figures").glob("shapes-*.png"))
    assert figures and all(f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for f in figures)
