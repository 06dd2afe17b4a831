"""Figures quoted from the reference set: a page writes `[[ref:WHAT ARGS]]` where a measured figure goes, and the
guide's build puts the figure there, from results/reference/summary.json.gz, and names the run at the page's end.
Nothing measured is typed into a page.

    [[ref:added TARGET MODE BYTES PLACEMENT]]     ORB-added latency with its 95% interval: 2.1 µs [1.8, 2.4]
    [[ref:p50 TARGET MODE BYTES PLACEMENT]]       the point's p50 with its 95% interval
    [[ref:launches TARGET MODE BYTES PLACEMENT]]  each launch's ORB-added value
    [[ref:added-table MODE BYTES PLACEMENT]]      every middleware's added latency at one point, a table
    [[ref:figure NAME]]                           figures/NAME.png of the reference report
    [[ref:report]]                                a link to the reference report
    [[ref:run]]                                   the run: id, campaign, machine, date
"""

from __future__ import annotations

import re
from collections.abc import Callable

from orbench.errors import UserError
from orbench.summary.model import PointSummary

from orbench_guide.reference_set import ReferenceSet

TOKEN = re.compile(r"\[\[ref:([a-z0-9-]+)((?: [^\]\s]+)*)\]\]")
# Where the reference set's report and figures are in the built site.
SITE_DIR = "reference-run"


def us(ns: float) -> str:
    """Nanoseconds in µs, three significant figures (at least one decimal below 100 µs)."""
    value = ns / 1e3
    digits = 2 if abs(value) < 10 else 1 if abs(value) < 100 else 0
    return f"{value:.{digits}f}"


def added(p: PointSummary) -> str:
    a = p.orb_added_latency_ns
    if a is None or a.estimate is None:
        why = a.why_missing if a is not None else "not an ORB point"
        return f"no estimate ({why})"
    if a.ci95_low is None or a.ci95_high is None:
        return f"{us(a.estimate)} µs"
    return f"{us(a.estimate)} µs [{us(a.ci95_low)}, {us(a.ci95_high)}]"


def p50(p: PointSummary) -> str:
    ci = p.p50_ci95_ns
    if ci is None or ci.estimate is None or ci.low is None or ci.high is None:
        return f"{us(p.p50 or 0)} µs"
    return f"{us(ci.estimate)} µs [{us(ci.low)}, {us(ci.high)}]"


def launches(p: PointSummary) -> str:
    a = p.orb_added_latency_ns
    if a is None or not a.launches:
        return "one launch" if a is not None else "not an ORB point"
    return f"{len(a.launches)} launches: " + ", ".join(us(v.estimate) for v in a.launches) + " µs"


def _point_args(ref: ReferenceSet, args: list[str], what: str) -> PointSummary:
    if len(args) != 4 or not args[2].isdigit():
        raise UserError(f"[[ref:{what} ...]] takes TARGET MODE BYTES PLACEMENT, not {' '.join(args)!r}")
    return ref.point(args[0], args[1], int(args[2]), args[3])


def added_table(ref: ReferenceSet, mode: str, payload_bytes: int, placement: str) -> str:
    """Every middleware measured at one point, by language, with its added latency and the baseline's p50."""
    rows = [p for p in ref.summary.points
            if p.point.mode == mode and p.point.payload_bytes == payload_bytes and p.point.placement == placement
            and p.point.clients == 1 and p.point.shape == "in" and p.point.host_pair == "local"
            and p.orb_added_latency_ns is not None and p.kind == "orb" and p.measured]
    if not rows:
        raise UserError(f"results/reference/summary.json.gz has no middleware at {mode} {payload_bytes} B {placement}")
    lines = [f"| middleware | language | p50 | added over its baseline ({mode}, {payload_bytes} B, {placement}) |",
             "|---|---|---|---|"]
    for p in sorted(rows, key=lambda p: (p.language or "", p.added if p.added is not None else float("inf"))):
        lines.append(f"| {p.point.target} | {p.language} | {p50(p)} | {added(p)} |")
    return "\n".join(lines)


def quote(ref: ReferenceSet, text: str, site_root: str) -> tuple[str, bool]:
    """The page's text with every token replaced, and whether it had any. `site_root` is the relative path from
    the page to the site's root ("../" for tutorial/x.md), for the links to the reference report."""
    run_dir = f"{site_root}{SITE_DIR}"
    figures: dict[str, Callable[[list[str]], str]] = {
        "added": lambda a: added(_point_args(ref, a, "added")),
        "p50": lambda a: p50(_point_args(ref, a, "p50")),
        "launches": lambda a: launches(_point_args(ref, a, "launches")),
        "added-table": lambda a: added_table(ref, a[0], int(a[1]), a[2]),
        "figure": lambda a: _figure(ref, run_dir, a[0]),
        "report": lambda a: f"[the reference report]({run_dir}/report.html)",
        "run": lambda a: ref.source,
    }
    found = False

    def replace(match: re.Match) -> str:
        nonlocal found
        found = True
        what, args = match.group(1), match.group(2).split()
        if what not in figures:
            raise UserError(f"[[ref:{what}]]: not a figure the guide can quote ({', '.join(figures)})")
        return figures[what](args)

    text = TOKEN.sub(replace, text)
    if "[[ref:" in text:
        bad = text[text.index("[[ref:"):].split("]]")[0]
        raise UserError(f"{bad}]]: not a quote the guide can read ([[ref:WHAT ARGS]] on one line; orbench_guide/quotes.py)")
    return text, found


def _figure(ref: ReferenceSet, run_dir: str, name: str) -> str:
    if not (ref.path / "figures" / f"{name}.png").is_file():
        have = ", ".join(sorted(p.stem for p in (ref.path / "figures").glob("*.png")))
        raise UserError(f"results/reference/figures/{name}.png is not in the reference set (it has: {have})")
    return f"![{name}]({run_dir}/figures/{name}.png)"


def source_note(ref: ReferenceSet, site_root: str) -> str:
    """The line that ends a quoting page: which run its figures are from."""
    return (f"\n\n---\n*Figures on this page come from the reference result set, {ref.source}, "
            f"in `results/reference/` ([its report]({site_root}{SITE_DIR}/report.html)).*\n")
