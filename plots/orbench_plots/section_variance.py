"""The report's "Where the variance is" section: per ORB-added point of a run with several process launches,
how much of the launches' spread the launches themselves add, and each launch's value (stats/launches.py)."""

from __future__ import annotations

from html import escape

from orbench.summary.model import PointSummary, RunSummary
from orbench.summary.table import columns


def _us(ns: float | None) -> str:
    return "" if ns is None else f"{ns / 1000:.2f}"


def variance_section(points: tuple[PointSummary, ...]) -> str:
    rows = []
    for p in points:
        added = p.orb_added_latency_ns
        split = None if added is None else added.variance
        if added is None or not added.n_launches or split is None:
            continue
        share = split.between_launch_share
        values = ", ".join(_us(v.estimate) for v in added.launches or ())
        cells = [*columns(p.point), str(added.n_launches), values,
                 _us(split.launch_values_sd_ns), _us(split.between_launch_sd_ns),
                 _us(split.within_launch_sd_ns), "" if share is None else f"{share:.0%}",
                 split.dominant or "", "" if added.disagreement is None else added.disagreement.text]
        rows.append("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in cells) + "</tr>")
    if not rows:
        return ""
    head = ("placement", "mode", "payload", "target", "launches", "ORB-added per launch µs", "sd of launch values µs",
            "between-launch sd µs", "within-launch sd µs (trial to trial)", "launch share", "dominant level",
            "launches disagree")
    return ("<h2>Where the variance is</h2><p>Each process launch starts fresh workers (a new JIT history, heap and "
            "page placement) and gives one value per point: the median of its paired trial differences. The "
            "ORB-added interval is Student t over those values. Their spread is split as Kalibera and Jones do "
            "(\"Rigorous Benchmarking in Reasonable Time\"): what the trials inside each launch would scatter a "
            "launch's median by (pi/2 x within-launch variance / trials per launch), and the rest, added by the "
            "launches themselves. Where the launches dominate, more launches narrow the interval and more trials "
            "per launch do not.</p><table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"
            + "\n".join(rows) + "</table>")


def host_speed_section(summary: RunSummary) -> str:
    """The host's speed modes over the run (summary.json `host_speed`) and, per ORB point where its baseline's
    slices fell into two modes, what the middleware added in each (`by_host_speed`)."""
    speed = summary.host_speed
    if speed is None:
        return ""
    rows = []
    for p in summary.points:
        split = None if p.orb_added_latency_ns is None else p.orb_added_latency_ns.by_host_speed
        if split is None:
            continue
        modes = {m.mode: m for m in split.modes}
        cells = [*columns(p.point), f"{split.slow_over_fast:.2f}", _us(split.step_ns)]
        for name in ("fast", "slow"):
            m = modes.get(name)
            cells += ["", "", ""] if m is None else [
                f"{m.share:.0%}", _us(m.baseline_p50_ns),
                f"{_us(m.estimate)}" + (f" [{_us(m.ci95_low)}, {_us(m.ci95_high)}]" if m.ci95_low is not None else "")]
        rows.append("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in cells) + "</tr>")
    head = ("placement", "mode", "payload", "target", "slow / fast", "step µs", "fast share", "baseline p50 µs (fast)",
            "added µs (fast) [95%]", "slow share", "baseline p50 µs (slow)", "added µs (slow) [95%]")
    table = ("<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>" + "".join(rows) + "</table>"
             if rows else "")
    return ("<h2>The host's speed</h2><p>" + escape(speed.text) + ". Every baseline slice of the sliced design is a "
            "reading of the host's speed taken milliseconds from the middleware's slice it pairs with; where a "
            "point's readings fall into two modes, the table gives what the middleware added in each (the median "
            "of that mode's slice pairs, its interval over those pairs within this run, not over launches) and the step "
            "between them. The headline ORB-added latency is over every slice pair, whatever the mode.</p>" + table)
