"""The report's "server under load" section from a real small run (fixtures/scale-small.toml: the C socket
baseline and the serial known-answer server, 1 and 2 clients as processes and threads, 1 and 2 objects, a
Poisson sweep whose SLO every step misses): its figures, the capacity and queueing tables, the figures of one
client not flooded by the new dimensions, and skipped sweep steps said to be skipped."""

from __future__ import annotations

import dataclasses
import html
import re
import shutil
from pathlib import Path

import pytest
from orbench.results.store import RunStore
from orbench.summary.summary import current_summary
from orbench.summary.table import columns, format_table
from orbench_plots.section_scale import shape_key

from tests.browser import rendered_body
from tests.conftest import FIXTURES, require_targets, run_cli

PNG = b"\x89PNG\r\n\x1a\n"


def _run(root: Path, campaign: Path) -> Path:
    code, _out, err = run_cli("run", "--results", str(root), str(campaign))
    assert code in (0, 1), err[-2000:]  # 1: a warning-free run is not expected on a shared machine
    run = next((root / "scale-small").iterdir())
    assert (run / "report.html").exists(), err[-2000:]
    return run


@pytest.fixture(scope="module")
def scale_run(tmp_path_factory) -> Path:
    require_targets("c-socket", "c-socket-serial")
    return _run(tmp_path_factory.mktemp("scale"), FIXTURES / "scale-small.toml")


def _images(run: Path) -> list[str]:
    return re.findall(r"<img src='([^']+)'", (run / "report.html").read_text())


def _section(run: Path) -> str:
    text = (run / "report.html").read_text()
    start = text.index("<h2>The server under load</h2>")
    return text[start:text.index("<h2>", start + 10)]


def test_the_load_section_has_its_figures_and_tables(scale_run):
    section = _section(scale_run)
    images = re.findall(r"<img src='([^']+)'", section)
    # Per middleware and number of objects: throughput vs clients (the serial server beside its baseline) and
    # latency vs offered load (each target its own); and one latency-vs-objects figure.
    assert sum("scale-throughput-c-socket-serial@20000-" in i for i in images) == 2, images
    for target in ("c-socket", "c-socket-serial@20000"):
        assert sum(i.endswith(f"-{target}.png") and "scale-offered-load-" in i for i in images) == 2, images
    assert sum("scale-objects-" in i for i in images) == 1, images
    for img in images:
        data = (scale_run / img).read_bytes()
        assert data[:8] == PNG and len(data) > 10_000, img
    assert section.count("<figcaption>") == len(images)
    assert "fairness index" in section and "not a capacity of the middleware" in section
    assert "absent, not zero" in section  # steps past saturation
    # Figures of this section are not repeated among the report's general figures.
    assert len(_images(scale_run)) == len(set(_images(scale_run)))


def _rows(table_html: str) -> list[list[str]]:
    return [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", table_html) if "<td>" in row]


def test_the_capacity_table_has_a_row_per_target_and_point_with_intervals(scale_run):
    section = _section(scale_run)
    capacities = section[section.index("<h3>Capacities</h3>"):section.index("<h3>Queueing known answer</h3>")]
    rows = _rows(capacities)
    summary = current_summary(RunStore(scale_run))
    # One row per target, objects and way of making the clients (closed loop); the sweep's (threads) with its SLO.
    assert len(rows) == len({(c.point.target, c.point.objects, c.clients_as) for c in summary.capacities
                             if c.kind == "closed-loop"}) == 8, rows
    swept = [r for r in rows if r[4] == "threads"]
    assert len(swept) == 4
    for r in swept:
        assert re.fullmatch(r"[\d,]+ \[-?[\d,]+, [\d,]+\]", r[5]), r      # closed loop [95%]
        # Where 1 or 2 clients served more is the machine's business; which one it was is the run's.
        assert r[6] in ("1", "2") and r[8] == "poisson" and r[9].startswith("1us (")
        assert re.fullmatch(r"[\d,]+ \[-?[\d,]+, [\d,]+\]", r[10]), r     # at the SLO [95%]
        assert r[11].endswith("%") and "below the lowest step" in r[12], r  # every step over 1 us: censored
        assert r[14] == "2"
    # Each row's numbers are the run's own: summary.json's capacity, its interval over the two launches.
    for c in summary.capacities:
        ci = c.interval
        assert ci is not None and ci.estimate is not None and ci.low is not None and ci.high is not None, c
        text = f"{ci.estimate:,.0f} [{ci.low:,.0f}, {ci.high:,.0f}]"
        row = next(r for r in rows if r[3] == columns(shape_key(c.point))[3] and r[4] == c.clients_as)
        assert row[5 if c.kind == "closed-loop" else 10] == text, (row, c)
        if c.kind == "closed-loop":
            assert row[6] == str(c.at_clients), (row, c)
    assert {r[3].split()[0] for r in rows} == {"c-socket", "c-socket-serial@20000"}


def test_the_queueing_table_checks_the_serial_server_s_capacity(scale_run):
    section = _section(scale_run)
    rows = _rows(section[section.index("<h3>Queueing known answer</h3>"):])
    capacity = [r for r in rows if r[4].startswith("capacity vs 1/E[S]")]
    assert capacity and all(r[3].startswith("c-socket-serial@20000") for r in rows), rows
    for r in capacity:
        assert float(r[5]) > 20.0 and r[10] in ("yes", "NO") and "of 1/E[S]" in r[9], r  # E[S] above the spin


def test_the_one_client_figures_are_not_flooded_by_the_load_dimensions(scale_run):
    images = _images(scale_run)
    # Per payload and per sample: one client, closed loop, at the fewest objects; no sweep step anywhere.
    for prefix in ("latency-split-core", "orb-added-", "cdf-", "spectrum-", "throughput-split-core",
                   "anatomy-cpu-", "anatomy-added-"):
        found = [i for i in images if i.startswith(f"figures/{prefix}")]
        assert len(found) == 1 and "-o2-" not in found[0], (prefix, found)
    assert not [i for i in images if re.search(r"-l[0-9.]+\.png$|-l[0-9.]+-", i)], images
    # Latency and throughput vs clients: one figure per number of objects, processes and threads in each.
    assert len([i for i in images if i.startswith("figures/latency-vs-clients-")]) == 2
    assert len([i for i in images if i.startswith("figures/throughput-vs-clients-")]) == 2
    assert "Latency vs number of clients" in (scale_run / "report.html").read_text()


def test_skipped_steps_read_as_skipped_not_failed(scale_run):
    summary = current_summary(RunStore(scale_run))
    skipped = [p for p in summary.points if p.point.is_sweep_step and p.trials_skipped]
    assert skipped, "the 1 us SLO skips every target's later steps"
    assert all(p.trials_failed == 0 for p in skipped)
    lines = format_table(summary).splitlines()
    for p in skipped:
        # The whole row, anchored: one step's label is inside another's ("c2 ..." in "o2 c2 ..."), and a paired
        # step's label goes on ("... offered 0.5x at c-socket-serial@20000's rate"); columns part by two spaces.
        row = re.compile(r"\s+".join(re.escape(c) for c in columns(p.point)) + r"(\s\s|$)")
        line = next(line for line in lines if row.match(line))
        assert "skipped" in line and "past saturation" in line and "failed" not in line, line
    report = (scale_run / "report.html").read_text()
    # Each skipped step's cell as the run counted it (a step may run in one launch and be skipped in the next).
    assert all(f"{p.trials_ok}/0 ({p.trials_skipped} skipped)" in report for p in skipped)


def test_each_curve_names_its_threading_setting_and_way(scale_run, monkeypatch, tmp_path):
    """The legends of the throughput figures, read off the figures themselves: a line per target, threading
    setting and way of making the clients."""
    from orbench_plots import section_scale

    summary = current_summary(RunStore(scale_run))
    legends: list[list[str]] = []
    drawn: dict[str, list[float]] = {}
    real_saved = section_scale.saved

    def keep(fig, *args, **kwargs):
        legends.append(fig.axes[0].get_legend_handles_labels()[1])
        for line in fig.axes[0].get_lines():
            if not line.get_label().startswith("_"):
                drawn[f"{len(legends)}: {line.get_label()}"] = [float(y) for y in line.get_ydata()]
        return real_saved(fig, *args, **kwargs)

    monkeypatch.setattr(section_scale, "saved", keep)
    section_scale.throughput_vs_clients(list(summary.points), tmp_path)
    assert legends and all(sorted(labels) == sorted(f"{t}, default, clients as {way}"
                                                    for t in ("c-socket", "c-socket-serial@20000")
                                                    for way in ("processes", "threads")) for labels in legends)
    # Each line's heights are its points' calls/s in thousands, as summary.json has them: 1 client, then 2.
    for n_objects, figure in ((1, 1), (2, 2)):
        for target in ("c-socket", "c-socket-serial@20000"):
            for way in ("processes", "threads"):
                want = [p.load.aggregate_calls_per_s / 1e3 for p in sorted(
                    (p for p in summary.points if p.point.target == target and p.point.objects == n_objects
                     and not p.point.is_sweep_step and not p.point.rate_hz and p.load
                     and (p.point.clients == 1 or p.point.clients_as == way)), key=lambda p: p.point.clients)]
                assert len(want) == 2
                assert drawn[f"{figure}: {target}, default, clients as {way}"] == pytest.approx(want)


def test_a_point_the_clients_cpu_limited_is_named_in_the_caption_and_the_table(scale_run, tmp_path):
    """The run's own points and capacities, marked as if the clients' CPU had been full (which of the two sides
    saturates on a shared machine is not for a test to rely on)."""
    from orbench.summary.capacity import CLIENT_LIMITED
    from orbench_plots import section_scale

    summary = current_summary(RunStore(scale_run))
    marked = next(p for p in summary.points if p.point.clients == 2 and not p.point.is_sweep_step
                  and p.point.clients_as == "threads" and p.point.objects == 1 and p.point.target == "c-socket")
    assert marked.load is not None
    # Every other point marked server-limited: the real run may have found its clients' CPU full anywhere.
    points = [dataclasses.replace(p, load=dataclasses.replace(p.load, bottleneck="client" if p is marked else "server"))
              if p.load is not None else p for p in summary.points]
    captions = [f.caption for f in section_scale.throughput_vs_clients(points, tmp_path)]
    assert any("(here: c-socket default at c2 threads)" in c for c in captions), captions
    assert sum("(none here)" in c for c in captions) == 1
    capacity = next(c for c in summary.capacities if c.kind == "closed-loop")
    table = section_scale.capacity_table((dataclasses.replace(capacity, bottleneck="client", note=CLIENT_LIMITED),))
    assert html.escape(CLIENT_LIMITED) in table and ">client" in table


def test_the_report_renders_in_a_real_browser_with_every_image(scale_run, tmp_path):
    if shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed (make deps installs it)")
    images = _images(scale_run)
    body = rendered_body(scale_run / "report.html", tmp_path / "profile")
    assert body.get("data-images") == str(len(images)) == body.get("data-images-loaded"), body


@pytest.mark.slow
def test_an_orb_s_threading_settings_and_objects_in_the_load_section(tmp_path, monkeypatch):
    """omniORB as shipped and with a pool of 2 threads, beside c-socket (its one model at both settings), 1 and
    2 client threads, 1 and 50 objects, a sweep: each setting a line of the throughput figure and a panel of the
    offered-load figure, and the objects figure a line per target and setting."""
    from orbench_plots import section_scale

    require_targets("c-socket", "omniorb")
    campaign = tmp_path / "scale-small.toml"
    campaign.write_text((FIXTURES / "scale-small.toml").read_text()
                        .replace('["c-socket", "c-socket-serial@20000"]', '["omniorb"]')
                        .replace('clients_as = ["processes", "threads"]', 'clients_as = ["threads"]\n'
                                 'threading = ["default", "pool-2"]')
                        .replace("objects = [1, 2]", "objects = [1, 50]").replace('"1us"', '"10x"'))
    run = _run(tmp_path / "results", campaign)
    summary = current_summary(RunStore(run))
    legends: dict[str, list[str]] = {}
    real_saved = section_scale.saved

    def keep(fig, path, *args, **kwargs):
        legends[path.name] = [label for ax in fig.axes for label in ax.get_legend_handles_labels()[1]]
        return real_saved(fig, path, *args, **kwargs)

    monkeypatch.setattr(section_scale, "saved", keep)
    section_scale.make_figures(summary, tmp_path / "figures")
    throughput = [v for k, v in legends.items() if k.startswith("scale-throughput-omniorb-") and "-o50-" not in k]
    assert len(throughput) == 1 and {f"{t}, {s}, clients as threads" for t in ("omniorb", "c-socket")
                                     for s in ("default", "pool-2")} == set(throughput[0]), legends
    offered = [v for k, v in legends.items() if k.startswith("scale-offered-load-") and k.endswith("-omniorb.png")
               and "-o50-" not in k]
    assert len(offered) == 1 and {"p50 (default)", "p50 (pool-2)"} <= set(offered[0]), legends
    objects = [v for k, v in legends.items() if k.startswith("scale-objects-")]
    assert objects and {"omniorb, pool-2 p50", "c-socket, default p50"} <= set(objects[0]), legends
    assert "pool-2" in _section(run)


def test_a_run_without_load_has_no_load_section(scale_run, tmp_path):
    """The same run cut to one client, one object and no sweep (as a run without the load keys is): no figure,
    no capacity, and the section is absent."""
    from orbench_plots import section_scale

    summary = current_summary(RunStore(scale_run))
    one = tuple(p for p in summary.points if p.point.clients == 1 and p.point.objects == 1
                and not p.point.is_sweep_step)
    assert one
    plain = dataclasses.replace(summary, points=one, capacities=(), queueing_checks=())
    figures = section_scale.make_figures(plain, tmp_path / "figures")
    assert figures == [] and section_scale.section(plain, figures, tmp_path) == ""
