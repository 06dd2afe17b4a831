"""report.html beside a run's results: figures with captions, the summary table, warnings, environment."""

from __future__ import annotations

import html
import json
from dataclasses import replace
from pathlib import Path

from orbench.results.store import RunStore, write_text_atomic
from orbench.results.units import fmt_throughput
from orbench.summary.model import Equivalence, PointSummary, RunSummary
from orbench.summary.summary import current_summary
from orbench.summary.table import P50_LEGEND, columns, interval_over

from orbench_plots import figures as payload_figures
from orbench_plots import section_fidelity, section_jmh, section_placement, section_scale, section_time
from orbench_plots.drawing import drawing_in_parallel
from orbench_plots.gclog import parse_gc_log, pause_summary
from orbench_plots.load_figures import at_base_load, make_load_figures
from orbench_plots.sample_figures import make_sample_figures
from orbench_plots.section_anatomy import ANATOMY_PREFIX
from orbench_plots.section_anatomy import make_figures as make_anatomy_figures
from orbench_plots.section_anatomy import section as anatomy_section
from orbench_plots.section_instructions import section as instructions_section
from orbench_plots.section_profiles import section as profiles_section
from orbench_plots.section_shapes import SHAPES_PREFIX
from orbench_plots.section_shapes import make_figures as make_shape_figures
from orbench_plots.section_shapes import section as shapes_section
from orbench_plots.section_variance import host_speed_section, variance_section
from orbench_plots.staging import final_path, staged_figures
from orbench_plots.style import Figure

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
figure { margin: 1.5em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; color: #444; }
table { border-collapse: collapse; font-size: 0.85em; }
td, th { border: 1px solid #ddd; padding: 2px 8px; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.warn { background: #fff4e5; border-left: 4px solid #f0a030; padding: 0.5em 1em; }
code { font-size: 0.9em; }
"""

# Sets data-images / data-images-loaded on <body> once the page has loaded, so a headless browser (the report
# test) can tell that every figure really decoded, and a reader's devtools can too.
IMAGE_CHECK = """<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; });
  document.body.setAttribute('data-images', String(imgs.length));
  document.body.setAttribute('data-images-loaded', String(ok.length));
  document.body.setAttribute('data-images-broken',
    imgs.filter(function (i) { return ok.indexOf(i) < 0; }).map(function (i) { return i.getAttribute('src'); }).join(' '));
});
</script>"""

NOT_MADE_ALWAYS: list[tuple[str, str]] = []


def _us(ns: float | None) -> str:
    return "" if ns is None else f"{ns / 1e3:.2f}"


def _esc(value: object) -> str:
    return html.escape(str(value))


def _summary_table(points: tuple[PointSummary, ...]) -> str:
    head = ("placement", "mode", "payload", "target", "trials ok/failed (skipped)", "p50 µs", "p90 µs", "p99 µs", "max µs",
            "ORB-added µs", "95% CI µs", "interval over", "p50 95% CI µs (trials)", "stopped by", "throughput", "lost", "deadline misses",
            "errors")
    rows = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for p in points:
        lat, added, ow, p50ci, stop, rate = (p.latency_ns, p.orb_added_latency_ns, p.oneway, p.p50_ci95_ns,
                                             p.stopping, p.rate)
        ci = (f"[{_us(added.ci95_low)}, {_us(added.ci95_high)}]" if added and added.ci95_low is not None else "")
        tput = (ow.receiver_throughput_mb_per_s if ow else None) or p.client_throughput_mb_per_s
        p50ci_text = (f"[{_us(p50ci.low)}, {_us(p50ci.high)}] ({p50ci.trials})"
                      if p50ci and p50ci.low is not None else "")
        stop_text = f"{stop.reason} after {stop.trials}" if stop else ""
        missed = f"{rate.deadline_misses} of {rate.calls}" if rate else ""
        cells = [*columns(p.point), f"{p.trials_ok}/{p.trials_failed}"
                 + (f" ({p.trials_skipped} skipped)" if p.trials_skipped else "")]
        nums = [_us(p.p50), _us(lat and lat.p90), _us(lat and lat.p99), _us(lat and lat.max), _us(p.added), ci,
                interval_over(p), p50ci_text, stop_text, "" if tput is None else fmt_throughput(tput),
                "" if ow is None else str(ow.lost_messages), missed]
        rows.append("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in cells)
                    + "".join(f'<td class="num">{_esc(c)}</td>' for c in nums)
                    + f"<td>{_esc('; '.join(p.errors))}</td></tr>")
    return "<table>" + "\n".join(rows) + "</table>"


def _flatten(prefix: str, value: object, out: list[tuple[str, str]]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(value, list) and value and all(isinstance(v, str) for v in value) and len(value) > 1:
        out.append((prefix, "\n".join(value)))
    else:
        out.append((prefix, json.dumps(value) if not isinstance(value, str) else value))


def _kv_table(value: dict) -> str:
    rows: list[tuple[str, str]] = []
    _flatten("", value, rows)
    return "<table>" + "".join(f"<tr><th>{_esc(k)}</th><td><pre style='margin:0'>{_esc(v)}</pre></td></tr>"
                               for k, v in rows) + "</table>"


def _workers_table(targets: dict) -> str:
    head = ("target", "kind", "family", "language", "baseline", "placement", "server", "client runtime", "timer",
            "warm-up")
    rows = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for name, t in targets.items():
        for placement, w in (t.get("workers") or {"-": {}}).items():
            server = (w or {}).get("server") or {}
            client = (w or {}).get("client") or {}
            timer = (w or {}).get("timer") or {}
            orb = f"{server.get('orb') or ''} {server.get('orb_version') or ''}".strip()
            cells = [name, t.get("kind"), t.get("family") or "", t.get("language"), t.get("baseline") or "", placement, orb,
                     client.get("runtime", ""),
                     f"{timer.get('clock', '')} {timer.get('cost_ns', 0):.1f} ns" if timer else "",
                     f"{t.get('warmup')} calls"]
            rows.append("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in cells) + "</tr>")
    return "<table>" + "\n".join(rows) + "</table>"


def _equivalence_table(rows: tuple[Equivalence, ...]) -> str:
    head = ("placement", "mode", "payload", "A", "B", "mean A µs", "mean B µs", "sd A µs", "sd B µs",
            "beta per trial p50", "beta per call", "outlier pairs", "B in A's band", "A in B's band", "equivalent")
    out = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for e in rows:
        if e.capture is None or e.moments is None or e.regression_b_on_a is None:
            out.append(f"<tr><td colspan='{len(head)}'>{_esc(e.why_missing)}</td></tr>")
            continue
        a, b, m, g = e.a, e.b, e.moments, e.group
        per_trial = e.regression_trial_p50_b_on_a
        cells = [g.label_of("host_pair", "placement", "options", "clients", "rate_hz"), g.mode,
                 g.label_of("payload_type", "payload_bytes"), a, b, _us(m[a].mean), _us(m[b].mean),
                 _us(m[a].stdev), _us(m[b].stdev), f"{per_trial.beta:.3f}" if per_trial else "",
                 f"{e.regression_b_on_a.beta:.3f}", e.regression_b_on_a.outlier_pairs_dropped,
                 f"{e.captured(b, a) or 0.0:.1%}", f"{e.captured(a, b) or 0.0:.1%}",
                 "yes" if e.equivalent_by_capture else "no"]
        out.append("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in cells) + "</tr>")
    return "<table>" + "\n".join(out) + "</table>"


def _gc_table(run_dir: Path) -> str:
    logs = sorted((run_dir / "logs").glob("*-gc-*.log"))
    if not logs:
        return ""
    rows = ["<tr><th>GC log</th><th>pauses</th><th>total ms</th><th>longest ms</th></tr>"]
    for log in logs:
        s = pause_summary(parse_gc_log(log))
        rows.append(f"<tr><td>logs/{_esc(log.name)}</td><td class='num'>{s['pauses']}</td>"
                    f"<td class='num'>{s['total_ms']:.1f}</td><td class='num'>{s['max_ms']:.2f}</td></tr>")
    return ("<h2>JVM GC pauses</h2><p>Stop-the-world pauses in each Java worker's GC log over the whole run "
            "(warm-up included).</p><table>" + "\n".join(rows) + "</table>")


def _hosts(manifest: dict) -> str:
    parts = []
    for name, host in manifest["hosts"].items():
        env = host.get("environment") or {}
        facts = {k: v for k, v in host.items() if k != "environment" and isinstance(v, str | int)}
        parts.append(f"<h3>Host <code>{_esc(name)}</code> ({_esc(', '.join(f'{k} {v}' for k, v in facts.items()))})</h3>" + (_kv_table(env) if env else
                                                                 "<p>no environment recorded</p>"))
    return "<h2>Environment of every host</h2>" + "".join(parts)


def render(run_dir: Path, summary: RunSummary, manifest: dict, figures: list[Figure],
           not_made: list[tuple[str, str]] | None = None) -> str:
    campaign = manifest.get("campaign", {})
    env = manifest.get("environment", {})
    machine = env.get("host") or {}
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>orbench: {_esc(campaign.get('name'))} {_esc(manifest.get('run_id'))}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>orbench report: campaign <code>{_esc(campaign.get('name'))}</code>, run "
        f"<code>{_esc(manifest.get('run_id'))}</code></h1>",
        f"<p>{_esc(campaign.get('description', ''))}</p>",
        f"<p>Status <b>{_esc(manifest.get('status'))}</b>; started {_esc(manifest.get('started_at'))}, finished "
        f"{_esc(manifest.get('finished_at'))}; host {_esc(machine.get('hostname'))}, "
        f"{_esc(machine.get('cpu_model'))}, {_esc(machine.get('logical_cpus'))} CPUs, kernel "
        f"{_esc(machine.get('kernel'))}; orbench commit "
        f"<code>{_esc((env.get('git') or {}).get('commit'))}</code>"
        f"{' (with local changes)' if (env.get('git') or {}).get('dirty') else ''}.</p>",
        f"<p>{_esc(campaign.get('trials'))} trials per point of {_esc(campaign.get('calls'))} timed calls each; "
        f"placements {_esc(', '.join(p['name'] + ' (server CPU ' + str(p['server_cpus']) + ', client CPU ' + str(p['client_cpus']) + ')' for p in manifest.get('placements', [])))}. "
        "All latencies are per call, in microseconds, including one clock read (see the timer column).</p>",
    ]
    lines, detail = summary.warnings, summary.warnings_detail
    if lines:
        parts.append("<h2>Warnings</h2><div class='warn'><ul>"
                     + "".join(f"<li>{_esc(w)}</li>" for w in lines) + "</ul>"
                     + (f"<details><summary>every warning ({len(detail)})</summary><ul>"
                        + "".join(f"<li>{_esc(w.kind)}: {_esc(w.where + ': ' if w.where else '')}"
                                  f"{_esc(w.text)}</li>" for w in detail) + "</ul></details>"
                        if len(detail) > len(lines) else "")
                     + "</div>")
    if manifest.get("skipped_targets"):
        parts.append("<h2>Targets not run</h2><ul>" + "".join(
            f"<li><b>{_esc(k)}</b>: {_esc(v)}</li>" for k, v in manifest["skipped_targets"].items()) + "</ul>")
    # The anatomy and load sections show their own figures, after the summary table.
    anatomy_figures = [f for f in figures if f.path.name.startswith(ANATOMY_PREFIX)]
    scale_figures = [f for f in figures if f.path.name.startswith(section_scale.SCALE_PREFIX)]
    shape_figures = [f for f in figures if f.path.name.startswith(SHAPES_PREFIX)]
    figures = [f for f in figures
               if f not in anatomy_figures and f not in scale_figures and f not in shape_figures]
    parts.append("<h2>Figures</h2>")
    for f in figures:
        rel = f.path.relative_to(run_dir)
        parts.append(f"<figure><img src='{_esc(rel)}' alt='{_esc(f.title)}'>"
                     f"<figcaption><b>{_esc(f.title)}.</b> {_esc(f.caption)}</figcaption></figure>")
    if not figures:
        parts.append("<p>No figure: no point finished.</p>")
    if not_made:
        parts.append("<h3>Figures not made</h3><ul>" + "".join(
            f"<li><b>{_esc(t)}</b>: {_esc(why)}</li>" for t, why in not_made) + "</ul>")
    known = summary.known_answers
    if known:
        parts.append(
            "<h2>Known answers</h2><p>Known-answer targets: a socket baseline whose server spins a known N ns per "
            "call, measured against the plain baseline as if it were an ORB. Its ORB-added latency X must come "
            f"out as N: {sum(k.answer.covered for k in known)} of {len(known)} intervals cover N.</p><table><tr>"
            + "".join(f"<th>{h}</th>" for h in ("placement", "mode", "payload", "target", "known N µs",
                                                 "recovered X µs [95% CI]", "covers N", "|X − N| ≤ max(half-width, 5% N)"))
            + "</tr>" + "".join(
                "<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in columns(k.point))
                + f"<td class='num'>{_us(k.answer.known_ns)}</td>"
                f"<td class='num'>{_us(k.answer.recovered_ns)} "
                + (f"[{_us(k.answer.ci95_low)}, {_us(k.answer.ci95_high)}]" if k.answer.ci95_low is not None else "")
                + f"</td><td>{'yes' if k.answer.covered else 'NO'}</td>"
                f"<td>{'yes' if k.answer.within_tolerance else 'NO'}</td></tr>" for k in known) + "</table>")
    parts.append("<h2>Summary</h2>" + _summary_table(summary.points) + f"<p>{_esc(P50_LEGEND)}</p>")
    parts.append(section_time.section(manifest))
    parts.append(section_scale.section(summary, scale_figures, run_dir))
    parts.append(shapes_section(summary, shape_figures, run_dir))
    parts.append(variance_section(summary.points))
    parts.append(host_speed_section(summary))
    parts.append(section_placement.section(summary.points))
    parts.append(anatomy_section(summary, anatomy_figures, run_dir))
    parts.append(profiles_section(run_dir, manifest))
    parts.append(instructions_section(run_dir, summary))
    if summary.equivalence:
        parts.append("<h2>Equivalence of the socket baselines</h2><p>The tests of Krintz and Wolski, \"Using "
                     "JavaNws to Compare C and Java TCP-Socket Performance\": moments, the paired least-squares "
                     "coefficient beta of B on A through the origin (1.0: A's value predicts B's), on the paired trials' p50s and on "
                     "single calls (call i of trial k of each; these pairs are independent draws, so heavy tails pull "
                     "the per-call beta below 1 even for equal traces), and the share of each trace inside "
                     "the other's empirical 95% band; equivalent when both shares are at least 95%. With heavy-tailed latencies "
                     "the running MSE is large and the band wide, so the capture test rarely rejects; read it together "
                     "with the CDF overlay and beta.</p>"
                     + _equivalence_table(summary.equivalence))
    parts.append(_gc_table(run_dir))
    parts += extra_sections(run_dir)
    parts.append("<h2>Targets and workers</h2>" + _workers_table(manifest.get("targets", {})))
    parts.append(_hosts(manifest))
    parts.append("<h2>Campaign as run</h2>" + _kv_table(campaign))
    parts.append(IMAGE_CHECK + "</body></html>")
    return "\n".join(parts)


def make_figures(summary: RunSummary, out_dir: Path) -> list[Figure]:
    """Every figure drawn from summary.json. Each is keyed by its points' own dimensions (style.grouped): points
    of different host pairs (links) or option sets never share a figure."""
    out_dir.mkdir(parents=True, exist_ok=True)
    figures: list[Figure] = []
    points = list(summary.points)
    # The per-payload figures show one load (1 client, closed loop, where measured); the load figures the rest.
    for make in payload_figures.ALL_FIGURES:
        figures += make(at_base_load(points), out_dir)
    figures += make_load_figures(points, out_dir)
    return figures


def extra_sections(run_dir: Path) -> list[str]:
    """Sections from outside the run: the newest JMH run and bench-fidelity run in the same results store
    (results/jmh/latest, results/fidelity/latest), each labelled with its own run id."""
    root = run_dir.parent.parent  # results/<campaign>/<run-id> -> results/
    return [html for html in (section_jmh.section(root / "jmh" / "latest"),
                              section_fidelity.section(root / "fidelity" / "latest")) if html]


def make_report(run_dir: Path | str) -> Path:
    """Figures and report.html of a run; its summary.json is recomputed first when an older orbench wrote it."""
    run_dir = Path(run_dir)
    store = RunStore(run_dir)
    summary = current_summary(store)
    manifest = store.read_manifest()
    # The old figures and page stay until the new ones are whole (staging.py).
    with staged_figures(run_dir) as staging:
        with drawing_in_parallel():
            figures = make_figures(summary, staging)
            figures += make_sample_figures(run_dir, summary, manifest, staging)
            figures += make_anatomy_figures(summary, staging)
            figures += section_scale.make_figures(summary, staging)
            figures += make_shape_figures(summary, staging)
        figures = [replace(f, path=final_path(f.path, staging)) for f in figures]
        page = render(run_dir, summary, manifest, figures, not_made(summary, manifest, figures))
    out = run_dir / "report.html"
    write_text_atomic(out, page)
    return out


def not_made(summary: RunSummary, manifest: dict, figures: list[Figure]) -> list[tuple[str, str]]:
    """Figures the report has no data for, and why, so a missing figure is never silent."""
    names = " ".join(f.path.name for f in figures)
    out = list(NOT_MADE_ALWAYS)
    if "socket-baselines-" not in names:
        out.append(("Socket baselines side by side", "fewer than two socket targets in this run"))
    if "equivalence-" not in names:
        out.append(("Equivalence of two traces", "the run does not have two socket baselines at one point"))
    if "timeline-gc-" not in names:
        java = [t for t, i in manifest.get("targets", {}).items() if i.get("language") == "java"]
        out.append(("Per-call latency over time with GC pauses",
                    "no Java target in this run" if not java else
                    "no GC log or no trial timing in this run (runs of results schema 1 have neither)"))
    if "latency-vs-clients-" not in names:
        out.append(("Latency vs number of clients", "no point of this run was measured with two or more client "
                    "counts (campaign key clients, e.g. clients = [1, 2, 4])"))
    out += section_scale.not_made(figures)
    if "deadline-misses-" not in names:
        out.append(("Deadline misses at a fixed rate", "no fixed-rate point in this run (campaign key rates_hz)"))
    if "interop-" not in names:
        out.append(("Cross-ORB calls", "no interop pair in this run (campaign key interop)"))
    if "orb-added-" not in names:
        out.append(("ORB-added latency", "no ORB with its baseline measured at the same point"))
    if ANATOMY_PREFIX + "cpu-" not in names:
        out.append(("Anatomy: CPU per call", "no trial of this run measured its anatomy (campaign key anatomy = "
                    "\"off\", points with several clients, or a run of results schema 7 or older)"))
    return out
