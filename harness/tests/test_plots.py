"""The plotting stage on the checked-in fixture run: every figure is a real PNG and report.html shows them."""

import re
import shutil

from orbench.results import RunStore
from orbench.summary import write_summary

from tests.conftest import FIXTURES


def test_report_shows_both_headline_figures(tmp_path):
    from orbench_plots.report import make_report

    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "run-small", run)
    write_summary(RunStore(run))
    report = make_report(run)
    text = report.read_text()
    images = re.findall(r"<img src='([^']+)'", text)
    assert any(i.startswith("figures/orb-added-") for i in images)
    assert any(i.startswith("figures/latency-twoway-") for i in images)
    assert any(i.startswith("figures/latency-oneway-") for i in images)
    for img in images:
        data = (run / img).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, img
    assert "Environment" in text and "kernel" in text.lower()
    assert "ORB-added" in text
