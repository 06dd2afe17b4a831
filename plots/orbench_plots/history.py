"""results/index.html: every run under a results directory, and per point its p50 and ORB-added latency run
after run with their 95% intervals, moves flagged as `orbench compare` flags them. The data is
orbench.history; this module only draws and writes."""

from __future__ import annotations

import html
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from orbench.results.store import write_text_atomic  # noqa: E402
from orbench.summary.history import (  # noqa: E402
    CountValue,
    HistoryValue,
    PointKey,
    RunEntry,
    WorkerKey,
    build_history,
    point_label,
)
from orbench.summary.instructions import FLAG_SPREAD_FACTOR, FLAG_WORDS, INSTRUCTION_FLAG_PCT  # noqa: E402

from orbench_plots.report import IMAGE_CHECK, STYLE  # noqa: E402
from orbench_plots.style import save  # noqa: E402

FIGURES_DIR = "history-figures"
FLAG_COLOURS = {"slower": "#d62728", "faster": "#2ca02c"}


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _link(results: Path, run: RunEntry) -> str:
    target = run.report or run.path
    rel = target.relative_to(results).as_posix()
    return f"<a href='{_esc(rel)}'>{_esc(run.run_id)}</a>"


def _runs_table(results: Path, runs: list[RunEntry]) -> str:
    head = ("started", "campaign", "run (report)", "kind", "status", "host", "commit", "ORB versions",
            "flagged vs previous run")
    rows = []
    for r in reversed(runs):  # newest first
        commit = (r.commit or "?")[:10] + (" (dirty)" if r.dirty else "")
        orbs = ", ".join(f"{t}: {v}" for t, v in sorted(r.orb_versions.items())) or "-"
        flagged = "-" if r.compared_with is None else f"{r.flagged} (vs {r.compared_with})"
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in (
            _esc(r.started_at), _esc(r.campaign), _link(results, r), _esc(r.kind), _esc(r.status), _esc(r.host),
            f"<code>{_esc(commit)}</code>", _esc(orbs), _esc(flagged))) + "</tr>")
    return ("<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>" + "".join(rows) + "</table>")


def _trend_figure(path: Path, label: str, by_target: dict[str, list[HistoryValue]], run_ids: list[str]) -> list[str]:
    """Two panels, p50 and ORB-added, a line per target over the campaign's runs; returns the moves flagged."""
    x_of = {run_id: i for i, run_id in enumerate(run_ids)}
    colour = {t: f"C{i}" for i, t in enumerate(sorted(by_target))}  # one colour per target in both panels
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.4))
    moves = []
    for panel, (quantity, ax) in enumerate(zip(("p50", "orb_added"), axes)):
        drawn = False
        for target, points in sorted(by_target.items()):
            pts = [(p, i, flag) for p in points for i, flag in [p.quantity(quantity)]
                   if i is not None and i.estimate is not None]
            if not pts:
                continue
            xs = [x_of[p.run_id] for p, _i, _f in pts]
            est = [i.estimate or 0.0 for _p, i, _f in pts]
            ys = [e / 1000 for e in est]
            lo = [max(0.0, (e - (i.low if i.low is not None else e)) / 1000) for e, (_p, i, _f) in zip(est, pts)]
            hi = [((i.high if i.high is not None else e) - e) / 1000 for e, (_p, i, _f) in zip(est, pts)]
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", ms=4, capsize=3, label=target, color=colour[target])
            drawn = True
            for (p, _i, flag), x, y in zip(pts, xs, ys):
                if flag:
                    ax.plot([x], [y], marker="o", ms=12, mfc="none", mec=FLAG_COLOURS[flag], mew=2)
                    moves.append(f"{target} {'p50' if quantity == 'p50' else 'ORB-added'} {flag} in {p.run_id}")
        ax.set_title(f"{'p50' if quantity == 'p50' else 'ORB-added latency'} (95% interval)", fontsize=10)
        ax.set_ylabel("us")
        ax.set_xticks(range(len(run_ids)))
        ax.set_xticklabels([r[:15] for r in run_ids], rotation=20, fontsize=7)
        ax.set_xlim(-0.5, len(run_ids) - 0.5)
        if drawn:
            ax.legend(fontsize=7)
        else:
            ax.text(0.5, 0.5, "no ORB in this point" if panel else "no data", ha="center", va="center",
                    transform=ax.transAxes, color="#888")
        ax.grid(alpha=0.3)
    fig.suptitle(label, fontsize=11)
    save(fig, path, dpi=90)
    return moves


def _counts_table(campaign: str, counts: dict[WorkerKey, list[CountValue]], run_ids: list[str]) -> tuple[str, list[str]]:
    """The counting mode's runs of a campaign: per counted worker its instructions per call run after run, a
    move flagged as compare flags it; and the moves as lines for "Changes flagged"."""
    rows, moves = [], []
    for (key, target, role), values in sorted(counts.items()):
        by_run = {v.run_id: v for v in values}
        cells = []
        for run_id in run_ids:
            v = by_run.get(run_id)
            flag = FLAG_WORDS.get(v.flag or "", "") if v else ""
            cells.append("<td class='num'>-</td>" if v is None else
                         f"<td class='num'>{v.per_call:,.1f}{(' ' + flag) if flag else ''}</td>")
        for v in values:
            if v.flag and v.previous is not None:
                moves.append(f"{campaign}, {point_label(key)} {target} {role}: {v.previous:,.1f} -> "
                             f"{v.per_call:,.1f} instructions per call in {v.run_id} ({FLAG_WORDS[v.flag]})")
        rows.append(f"<tr><td>{_esc(point_label(key))}</td><td>{_esc(target)}</td><td>{_esc(role)}</td>"
                    + "".join(cells) + "</tr>")
    head = "".join(f"<th>{_esc(r)}</th>" for r in run_ids)
    table = ("<p>Instructions per call (the counting mode, exact), run after run; a move is flagged as "
             f"<code>orbench compare</code> flags it ({INSTRUCTION_FLAG_PCT:g}% of the count, or "
             f"{FLAG_SPREAD_FACTOR:g}x the spread the runs show).</p>"
             f"<table><tr><th>point</th><th>target</th><th>worker</th>{head}</tr>{''.join(rows)}</table>")
    return table, moves


def make_history_page(results: Path | str) -> Path:
    """Writes results/index.html and results/history-figures/; returns the page's path."""
    results = Path(results).resolve()
    history = build_history(results)
    runs: list[RunEntry] = history.runs
    fig_dir = results / FIGURES_DIR
    fig_dir.mkdir(exist_ok=True)
    for old in fig_dir.glob("*.png"):
        old.unlink()
    sections = []
    all_moves: list[str] = []
    for n, (campaign, points) in enumerate(sorted(history.series.items())):
        run_ids = [r.run_id for r in runs if r.campaign == campaign and r.summary is not None]
        by_key: dict[PointKey, dict[str, list[HistoryValue]]] = {}
        for (key, target), values in points.items():
            by_key.setdefault(key, {})[target] = values
        parts = [f"<h2>{_esc(campaign)}: {len(run_ids)} run(s)</h2>"]
        for m, (key, by_target) in enumerate(sorted(by_key.items())):
            label = point_label(key)
            name = f"{FIGURES_DIR}/c{n}-p{m}.png"
            moves = _trend_figure(results / name, f"{campaign}: {label}", by_target, run_ids)
            all_moves += [f"{campaign}, {label}: {move}" for move in moves]
            caption = ("moved against the previous run (orbench compare's test): " + "; ".join(moves)) if moves \
                else "no move flagged between consecutive runs"
            parts.append(f"<figure><img src='{_esc(name)}' alt='{_esc(label)}'>"
                         f"<figcaption>{_esc(campaign)}, {_esc(label)}: {_esc(caption)}</figcaption></figure>")
        if history.counts.get(campaign):
            table, moves = _counts_table(campaign, history.counts[campaign], run_ids)
            parts.append(table)
            all_moves += moves
        sections.append("\n".join(parts))
    moved = ("<ul>" + "".join(f"<li>{_esc(m)}</li>" for m in all_moves) + "</ul>") if all_moves else \
        "<p>None: no move flagged between consecutive runs of a campaign.</p>"
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>orbench history</title><style>{STYLE}</style></head>
<body>
<h1>orbench history</h1>
<p>{len(runs)} run(s) under <code>{_esc(results)}</code>, made {_esc(time.strftime('%Y-%m-%d %H:%M:%S'))}.
Each run is compared with the previous run of its campaign as <code>orbench compare</code> does (the user guide,
"Comparing two runs"): the socket baselines' median move is the machine's drift; an ORB's own change is its ORB-added
latency's (Welch's t over the runs' process launches; runs of one launch: Wilcoxon-Mann-Whitney on the paired
trials' differences of that one process), other rows are tested on their p50 beyond the drift; the false
discovery rate is held at 5% and a flag needs a minimum size. The bars are 95% intervals. A flag means "moved";
no flag means "not shown to have moved". Instruction counts (the counting mode) are exact and flagged as compare
flags them.</p>
<h2>Changes flagged</h2>
{moved}
<h2>Runs</h2>
{_runs_table(results, runs)}
{''.join(sections)}
{IMAGE_CHECK}
</body></html>
"""
    out = results / "index.html"
    write_text_atomic(out, page)
    return out
