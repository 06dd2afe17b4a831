"""The report's "Where the time went" section: the run's wall time as one bar split into its phases (the
manifest's time_accounting, results/accounting.py), a bar per launch below it, the seconds in a table, and, for
planned repetitions, what the last plan chose and why. Inline SVG: no figure file, nothing to decode."""

from __future__ import annotations

import html

from orbench.results.accounting import PHASES, TimeAccount, time_account
from orbench.results.repetitions import repetition_plans
from orbench.results.units import fmt_duration

COLOURS = {"workers": "#8c564b", "full_warmup": "#ff7f0e", "steady_chunks": "#ffbb78", "rewarm": "#fdd0a2",
           "timed_calls": "#2ca02c", "anatomy": "#1f77b4", "samples": "#9467bd", "profiles": "#e377c2",
           "companions": "#bcbd22", "harness": "#c7c7c7"}
WIDTH, BAR, GAP, LABEL = 900, 22, 8, 90


def _bar(y: int, label: str, seconds: dict[str, float], scale: float) -> str:
    """One horizontal bar of stacked phases; `scale`: pixels per second."""
    parts = [f"<text x='0' y='{y + BAR - 6}' font-size='12'>{html.escape(label)}</text>"]
    x = float(LABEL)
    for phase in PHASES:
        width = seconds.get(phase, 0.0) * scale
        if width <= 0:
            continue
        title = f"{phase}: {seconds[phase]:.2f} s"
        parts.append(f"<rect x='{x:.1f}' y='{y}' width='{width:.1f}' height='{BAR}' fill='{COLOURS[phase]}'>"
                     f"<title>{html.escape(title)}</title></rect>")
        x += width
    return "".join(parts)


def svg(account: TimeAccount) -> str:
    launches = account.per_launch()
    bars = [("run", account.seconds)] + [(f"launch {k + 1}", v) for k, v in sorted(launches.items())]
    scale = (WIDTH - LABEL - 10) / max(account.wall_s, 1e-9)
    height = len(bars) * (BAR + GAP) + 30
    body = "".join(_bar(i * (BAR + GAP), label, seconds, scale) for i, (label, seconds) in enumerate(bars))
    x, legend = float(LABEL), []
    for phase in PHASES:
        legend.append(f"<rect x='{x:.0f}' y='{height - 20}' width='10' height='10' fill='{COLOURS[phase]}'/>"
                      f"<text x='{x + 14:.0f}' y='{height - 11}' font-size='11'>{phase.replace('_', ' ')}</text>")
        x += 14 + 7 * len(phase) + 14
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{WIDTH}' height='{height}' role='img' "
            f"aria-label='where the time went'>{body}{''.join(legend)}</svg>")


def section(manifest: dict) -> str:
    account = time_account(manifest)
    if account is None:
        return ("<h2>Where the time went</h2><p>Not recorded: this run was made before orbench kept its time "
                "accounting.</p>")
    rows = "".join(f"<tr><td>{p.replace('_', ' ')}</td><td>{html.escape(PHASES[p])}</td>"
                   f"<td class='num'>{account.seconds.get(p, 0.0):.1f}</td>"
                   f"<td class='num'>{100 * account.share(p):.0f}%</td></tr>" for p in PHASES)
    after = "".join(f"<tr><td>{k.removesuffix('_s')}</td><td>after the runner ended (not in the bar)</td>"
                    f"<td class='num'>{v:.1f}</td><td></td></tr>" for k, v in account.after_run.items())
    plans = [p for p in repetition_plans(manifest) if p.groups]
    planned = ""
    if plans:
        last = plans[-1]
        planned = (f"<p>Repetitions planned ({len(plans)} plan(s); the last from {html.escape(last.source)}): "
                   f"{html.escape(last.why)}</p>")
    return (f"<h2>Where the time went</h2><p>Timed calls took <b>{100 * account.timed_share:.0f}%</b> of the "
            f"runner's {fmt_duration(account.wall_s)} (the manifest's time_accounting: per launch and point group, "
            "the seconds of each phase; the harness's share is what no phase took). The first bar is the run, "
            f"one bar per launch below it.</p>{svg(account)}<table><tr><th>phase</th><th>what</th><th>s</th>"
            f"<th>share</th></tr>{rows}{after}</table>{planned}")
