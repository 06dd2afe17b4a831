"""The user guide (harness/docs): its reference pages describe every campaign key, descriptor key, CLI option and
summary.json field; its figures come from the reference result set, which holds no raw samples; README.md's
figures are what that set says; and the built site and the reference report open in headless Chromium."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from orbench.errors import UserError
from orbench.paths import repo_root
from orbench.results.store import RunStore
from orbench.summary.model import RunSummary
from orbench.summary.summary import write_summary
from orbench_guide import cli_page, readme, reference_set, schema_pages, summary_page
from orbench_guide.hooks import undescribed
from orbench_guide.included import as_python_markdown
from orbench_guide.quotes import quote

from tests.browser import rendered_body, require_chromium, screenshot
from tests.conftest import FIXTURES

GUIDE = repo_root() / "harness" / "docs"


def test_every_key_option_and_field_is_in_the_reference_with_a_description():
    assert undescribed() == []
    for schema, page in ((schema_pages.campaign_schema(), "campaign"), (schema_pages.descriptor_schema(), "descriptor")):
        text = schema_pages.keys_page(schema, page, "")
        for key in schema_pages.keys(schema):
            assert f"`{key.path}`" in text, key.path
        # every top-level key of the schema is there, nested ones under their parent
        assert {k.path for k in schema_pages.keys(schema)} >= set(schema["properties"])
    text = cli_page.cli_page()
    for option in cli_page.options():
        assert f"`{option.names}`" in text, option
    assert len(cli_page.options()) > 50
    text = summary_page.summary_page()
    for fields in summary_page.sections().values():
        for f in fields:
            assert f"`{f.key}`" in text


def test_the_checks_find_what_has_no_description():
    schema = {"properties": {"a": {"type": "string", "description": "described"},
                             "b": {"type": "object", "properties": {"c": {"type": "integer"}}}}}
    assert schema_pages.undescribed(schema) == ["b", "b.c"]
    parser = argparse.ArgumentParser(prog="orbench")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("run", description="run")
    p.add_argument("--fast", action="store_true")
    assert cli_page.undescribed(parser) == ["orbench run --fast"]
    text = summary_page.DESCRIPTIONS.read_text()
    missing = summary_page.undescribed(text.replace('p99 = "99th percentile over every timed call."\n', "")
                                       + '\n[Nothing]\ngone = "a key that is not there"\n')
    assert missing == ["Latency.p99: no description in summary-fields.toml",
                       "Nothing.gone: described in summary-fields.toml, not a key of summary.json"]


def test_the_reference_set_reads_and_holds_no_raw_samples():
    ref = reference_set.load()
    assert ref.run_id and ref.machine and ref.summary.points
    assert reference_set.raw_files() == []
    assert (ref.path / "report.html").is_file() and list((ref.path / "figures").glob("*.png"))
    # README.md's figures are the reference set's, as make reference wrote them
    assert readme.current_block((repo_root() / "README.md").read_text()) == readme.block(ref)


# A measured figure's date: 2026-11-25, or 25 November 2026.
DATED = re.compile(r"\b20\d\d-\d\d-\d\d\b|\b\d{1,2} (January|February|March|April|May|June|July|August|September|October|"
                   r"November|December) 20\d\d\b")
RUN_ID = re.compile(r"\b\d{8}-\d{6}\b")


def dated_figures(text: str) -> list[str]:
    """Paragraphs with a date that are not a historical note naming its run id: figures typed in by hand."""
    return [p.strip()[:120] for p in re.split(r"\n\s*\n", text)
            if DATED.search(p) and not ("historical note" in p.lower() and RUN_ID.search(p))]


def test_readme_is_one_screen_and_the_reference_docs_carry_no_dated_figures():
    readme_text = (repo_root() / "README.md").read_text()
    assert len(readme_text.splitlines()) <= 80
    assert "make bench" in "".join(readme_text.splitlines()[:5]) and "make test" in "".join(readme_text.splitlines()[:5])
    for doc in ("README.md", "harness/PROTOCOL.md", "harness/campaigns/README.md", "harness/targets/README.md"):
        text = (repo_root() / doc).read_text()
        assert dated_figures(text.replace(readme.current_block(text), "") if doc == "README.md" else text) == [], doc
    assert dated_figures("On 2026-11-25 the slope was 1.07.") == ["On 2026-11-25 the slope was 1.07."]
    assert dated_figures("Historical note (run 20261125-101010-vm, 2026-11-25): 1.07.") == []


def test_a_missing_reference_set_says_how_to_make_it(tmp_path):
    with pytest.raises(UserError, match="make reference"):
        reference_set.load(tmp_path / "reference")
    ref = reference_set.load()
    with pytest.raises(UserError, match=r"no measured point omniorb twoway 7 B same-core .*make reference"):
        quote(ref, "[[ref:added omniorb twoway 7 same-core]]", "")
    with pytest.raises(UserError, match="not a quote the guide can read"):
        quote(ref, "[[ref:added omniorb\ntwoway 1 same-core]]", "")
    text, quoted = quote(ref, "no figure here", "")
    assert not quoted


def test_make_reference_copies_summary_report_and_figures_only(tmp_path):
    """The reference set made from a real run (the fixture's samples summarised, its report drawn)."""
    from orbench_plots.report import make_report

    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "run-small", run)
    write_summary(RunStore(run))
    make_report(run)
    # The fixture is one launch: unfit as a reference (the test below), copied all the same.
    ref = reference_set.write_reference(run, "a test machine", tmp_path / "reference", anyway=True)
    assert ref.machine == "a test machine" and ref.run_id == json.loads((run / "manifest.json").read_text())["run_id"]
    assert reference_set.raw_files(ref.path) == [] and any(run.rglob("*.i64"))
    assert sorted(p.name for p in ref.path.iterdir()) == ["figures", "manifest.json", "reference.json",
                                                           "report.html", "summary.json.gz"]
    assert {p.name for p in (ref.path / "figures").iterdir()} == {p.name for p in (run / "figures").glob("*.png")}
    text, quoted = quote(ref, "omniORB adds [[ref:added omniorb twoway 1 same-core]].", "../")
    assert quoted and re.fullmatch(r"omniORB adds -?\d+\.\d+ µs( \[-?\d+\.\d+, -?\d+\.\d+\])?\.", text), text


def test_a_run_on_a_shared_machine_of_one_launch_or_changed_code_is_not_the_reference(tmp_path):
    """A reference's figures are quoted as this machine's: a run that shared the machine, made one launch (a
    first run's pilot) or ran uncommitted code is refused unless forced, and the reference then says why."""
    from orbench_plots.report import make_report

    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "run-small", run)
    write_summary(RunStore(run))
    make_report(run)
    summary = json.loads((run / "summary.json").read_text())
    summary["machine"]["foreign_cpu_pct"] = 23.4
    (run / "summary.json").write_text(json.dumps(summary))
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["environment"]["git"]["dirty"] = True
    (run / "manifest.json").write_text(json.dumps(manifest))

    with pytest.raises(UserError, match=r"not fit to be the reference: other processes used 23\.4% .*made 1 launch,"
                       r".*pilot.*uncommitted changes.*--anyway"):
        reference_set.write_reference(run, "a test machine", tmp_path / "reference")
    assert not (tmp_path / "reference").exists()
    forced = reference_set.write_reference(run, "a test machine", tmp_path / "reference", anyway=True)
    assert re.search(r"on a test machine, 1 launch; other processes used 23\.4% of the CPUs' time over its trials"
                     r"(, steal \d+\.\d%)? \(made anyway: other processes", forced.source), forced.source

    quiet = RunSummary.from_json({**summary, "machine": {"foreign_cpu_pct": 0.4, "steal_pct": 0.1}})
    clean = {**manifest, "environment": {**manifest["environment"], "git": {"commit": "0" * 40, "dirty": False}}}
    assert reference_set.unfit(quiet, clean, 4) == []
    assert reference_set.conditions_of(quiet, 4) == ("4 launches; other processes used 0.4% of the CPUs' time over "
                                                     "its trials, steal 0.1%")


def test_the_reference_machine_is_named_from_the_recorded_host():
    """Without --machine, the name comes from the manifest's environment.host as a run records it."""
    host = {"logical_cpus": 2, "cpu_model": "AMD EPYC", "os": "Debian GNU/Linux 12 (bookworm)",
            "kernel": "Linux 6.18.44-fc-v857 #1 SMP PREEMPT_DYNAMIC @0 x86_64", "hypervisor": "yes"}
    assert reference_set.machine_of({"environment": {"host": host}}) == "2-vCPU AMD EPYC VM, Debian 12, kernel 6.18"
    bare = {**host, "hypervisor": "", "logical_cpus": 8}
    assert reference_set.machine_of({"environment": {"host": bare}}) == "8-CPU AMD EPYC machine, Debian 12, kernel 6.18"


def test_included_texts_read_as_python_markdown_reads_lists_and_fences():
    github = "text\n- a\n- b\n  more of b\n\n  ```sh\n  x\n  ```\n\n  para of b\n  its second line\n- c\n"
    assert as_python_markdown(github) == ("text\n\n- a\n- b\n  more of b\n\n```sh\nx\n```\n\npara of b\n"
                                          "its second line\n\n- c\n")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The guide built as `make docs` builds it (strict: a warning or a broken link fails), into a temp dir."""
    out = tmp_path_factory.mktemp("guide") / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f",
                           str(GUIDE / "mkdocs.yml"), "-d", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def test_the_guide_builds_with_its_generated_reference_and_quoted_figures(site):
    for page in ("reference/cli.html", "reference/campaign-keys.html", "reference/descriptor-keys.html",
                 "reference/summary-json.html", "reference/worker-contract.html", "reference-run/report.html"):
        assert (site / page).is_file(), page
    ref = reference_set.load()
    tutorial = (site / "tutorial" / "reading-the-report.html").read_text()
    assert ref.run_id in tutorial and "[[ref:" not in tutorial
    assert "budget" in (site / "reference" / "campaign-keys.html").read_text()


# Two pages, each opened twice (its image check, then a screenshot): 10-15 s on a loaded 2-vCPU VM; make test
# builds the guide strict anyway (the Makefile's docs), so the browser's look is in make test-slow (CI runs both).
@pytest.mark.slow
def test_the_tutorial_and_the_reference_report_in_headless_chromium(site, tmp_path):
    require_chromium()
    tutorial = site / "tutorial" / "reading-the-report.html"
    report = site / "reference-run" / "report.html"
    for page, name in ((tutorial, "tutorial"), (report, "report")):
        body = rendered_body(page, tmp_path / f"profile-{name}")
        assert int(body["data-images"]) >= 2 and body["data-images-loaded"] == body["data-images"], (name, body)
        png = screenshot(page, tmp_path / f"{name}.png", tmp_path / f"shot-{name}")
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, (name, len(data))
