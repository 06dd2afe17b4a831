"""report.html beside a run's results: figures with captions, the summary table, warnings, environment."""

from __future__ import annotations

import html
import json
from pathlib import Path

from orbench_plots.figures import Figure, make_figures

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


def _us(ns: float | None) -> str:
    return "" if ns is None else f"{ns / 1e3:.2f}"


def _esc(value: object) -> str:
    return html.escape(str(value))


def _summary_table(points: list[dict]) -> str:
    head = ("placement", "mode", "payload", "target", "trials ok/failed", "p50 µs", "p90 µs", "p99 µs", "max µs",
            "ORB-added µs", "95% CI µs", "oneway MB/s", "lost", "errors")
    rows = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for p in points:
        lat = p.get("latency_ns") or {}
        added = p.get("orb_added_latency_ns") or {}
        ci = (f"[{_us(added['ci95_low'])}, {_us(added['ci95_high'])}]"
              if added.get("ci95_low") is not None else "")
        ow = p.get("oneway") or {}
        tput = ow.get("receiver_throughput_mb_per_s")
        where = p["placement"] if p.get("host_pair", "local") == "local" else f"{p['host_pair']} {p['placement']}"
        cells = [where, p["mode"], f"{p['payload_bytes']} B {p['payload_type']}", p["target"],
                 f"{p['trials_ok']}/{p['trials_failed']}"]
        nums = [_us(lat.get("p50")), _us(lat.get("p90")), _us(lat.get("p99")), _us(lat.get("max")),
                _us(added.get("estimate")), ci, "" if tput is None else f"{tput:.1f}",
                str(ow.get("lost_messages", ""))]
        rows.append("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in cells)
                    + "".join(f'<td class="num">{_esc(c)}</td>' for c in nums)
                    + f"<td>{_esc('; '.join(p.get('errors') or []))}</td></tr>")
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
    head = ("target", "kind", "language", "baseline", "placement", "server", "client runtime", "timer", "warm-up")
    rows = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for name, t in targets.items():
        for placement, w in (t.get("workers") or {"-": {}}).items():
            server = (w or {}).get("server") or {}
            client = (w or {}).get("client") or {}
            timer = (w or {}).get("timer") or {}
            orb = f"{server.get('orb') or ''} {server.get('orb_version') or ''}".strip()
            cells = [name, t.get("kind"), t.get("language"), t.get("baseline") or "", placement, orb,
                     client.get("runtime", ""),
                     f"{timer.get('clock', '')} {timer.get('cost_ns', 0):.1f} ns" if timer else "",
                     f"{t.get('warmup')} calls"]
            rows.append("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in cells) + "</tr>")
    return "<table>" + "\n".join(rows) + "</table>"


def render(run_dir: Path, summary: dict, manifest: dict, figures: list[Figure]) -> str:
    campaign = manifest.get("campaign", {})
    env = manifest.get("environment", {})
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>orbench: {_esc(campaign.get('name'))} {_esc(manifest.get('run_id'))}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>orbench report: campaign <code>{_esc(campaign.get('name'))}</code>, run "
        f"<code>{_esc(manifest.get('run_id'))}</code></h1>",
        f"<p>{_esc(campaign.get('description', ''))}</p>",
        f"<p>Status <b>{_esc(manifest.get('status'))}</b>; started {_esc(manifest.get('started_at'))}, finished "
        f"{_esc(manifest.get('finished_at'))}; host {_esc(env.get('host', {}).get('hostname'))}, "
        f"{_esc(env.get('cpu', {}).get('model'))}, {_esc(env.get('cpu', {}).get('logical_cpus'))} CPUs, kernel "
        f"{_esc(env.get('kernel', {}).get('release'))}; orbench commit "
        f"<code>{_esc((env.get('git') or {}).get('commit'))}</code>"
        f"{' (with local changes)' if (env.get('git') or {}).get('dirty') else ''}.</p>",
        f"<p>{_esc(campaign.get('trials'))} trials per point of {_esc(campaign.get('calls'))} timed calls each; "
        f"placements {_esc(', '.join(p['name'] + ' (server CPU ' + str(p['server_cpus']) + ', client CPU ' + str(p['client_cpus']) + ')' for p in manifest.get('placements', [])))}. "
        "All latencies are per call, in microseconds, including one clock read (see the timer column).</p>",
    ]
    if summary.get("warnings"):
        parts.append("<h2>Warnings</h2><div class='warn'><ul>"
                     + "".join(f"<li>{_esc(w)}</li>" for w in summary["warnings"]) + "</ul></div>")
    if manifest.get("skipped_targets"):
        parts.append("<h2>Targets not run</h2><ul>" + "".join(
            f"<li><b>{_esc(k)}</b>: {_esc(v)}</li>" for k, v in manifest["skipped_targets"].items()) + "</ul>")
    parts.append("<h2>Figures</h2>")
    for f in figures:
        rel = f.path.relative_to(run_dir)
        parts.append(f"<figure><img src='{_esc(rel)}' alt='{_esc(f.title)}'>"
                     f"<figcaption><b>{_esc(f.title)}.</b> {_esc(f.caption)}</figcaption></figure>")
    if not figures:
        parts.append("<p>No figure: no point finished.</p>")
    parts.append("<h2>Summary</h2>" + _summary_table(summary.get("points", [])))
    parts.append("<h2>Targets and workers</h2>" + _workers_table(manifest.get("targets", {})))
    parts.append("<h2>Environment</h2>" + _kv_table(env))
    for name, host_env in (manifest.get("hosts") or {}).items():
        parts.append(f"<h3>Host {_esc(name)}</h3>" + _kv_table(host_env))
    parts.append("<h2>Campaign as run</h2>" + _kv_table(campaign))
    parts.append("</body></html>")
    return "\n".join(parts)


def make_report(run_dir: Path | str) -> Path:
    run_dir = Path(run_dir)
    summary = json.loads((run_dir / "summary.json").read_text())
    manifest = json.loads((run_dir / "manifest.json").read_text())
    figures = make_figures(summary, run_dir / "figures")
    out = run_dir / "report.html"
    out.write_text(render(run_dir, summary, manifest, figures))
    return out
