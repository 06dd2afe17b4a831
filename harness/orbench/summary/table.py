"""The summary table printed at the end of a run (and by `orbench show`)."""

from __future__ import annotations

import textwrap

from orbench.results.point import Point
from orbench.results.trial import SKIPPED
from orbench.results.units import fmt_ns, fmt_throughput
from orbench.stats.intervals import PAIRED_FEW_METHOD
from orbench.stats.known_fit import fit_text
from orbench.summary.model import KnownAnswerRow, PointSummary, RunSummary


def _added(p: PointSummary) -> str:
    added = p.orb_added_latency_ns
    if not added:
        return ""
    if added.estimate is None:
        return "not comparable" if (added.why_missing or "").startswith("not comparable") else "n/a"
    text = fmt_ns(added.estimate) + ("*" if added.unpaired else "")
    if added.ci95_low is not None and added.ci95_high is not None:
        text += f" [{fmt_ns(added.ci95_low)}, {fmt_ns(added.ci95_high)}]"
    return text


def interval_over(p: PointSummary) -> str:
    """What the ORB-added interval is over: launches, or the pairs of one launch (and, below 6 pairs, that it is
    the mean's t interval: the median has none there). With launches, which level its variance comes from, and
    whether earlier runs on the host changed it (summary/run_to_run.py)."""
    added = p.orb_added_latency_ns
    if added is None or added.estimate is None:
        return ""
    if added.n_launches:
        text = f"{added.n_launches} launches"
        share = None if added.variance is None else added.variance.between_launch_share
        if share is not None:
            text += f", {share:.0%} launch"
        if added.disagreement:
            text += " MIXED"
        rr = added.run_to_run
        if rr is not None and (rr.within_ci95_low, rr.within_ci95_high) != (added.ci95_low, added.ci95_high):
            text += ", with a prior run spread" if rr.prior else f", with {rr.runs - 1} earlier runs"
        return text
    return f"{added.pairs} pairs" + (" (mean, t)" if added.ci_method == PAIRED_FEW_METHOD else "")


def columns(p: Point) -> tuple[str, str, str, str]:
    """A point in a table's first four columns: where (host pair, placement, option set), mode, payload, and
    the target with any other dimension."""
    first = ("host_pair", "placement", "options", "mode", "payload_type", "payload_bytes")
    rest = [name for name in Point.columns() if name not in first]
    return (p.label_of("host_pair", "placement", "options"), p.mode, p.label_of("payload_bytes", "payload_type"),
            " ".join([p.target, p.label_of(*[n for n in rest if n != "target"])]).strip())


def format_table(summary: RunSummary) -> str:
    header = ("placement", "mode", "payload", "target", "p50", "p90", "p99", "max", "ORB-added p50 [95% CI]",
              "interval over", "oneway rx")
    rows = [header]
    for e in summary.points:
        lat = e.latency_ns
        if lat is None:
            cells = ["-"] * 4
            extra = e.skipped or (list(e.errors) or [e.status])[0]
            if e.status == SKIPPED and not e.skipped:
                extra = f"skipped: {extra}"
        else:
            cells = [fmt_ns(e.p50 or lat.p50), fmt_ns(lat.p90), fmt_ns(lat.p99), fmt_ns(lat.max)]
            extra = ""
            ow = e.oneway
            if ow:
                tput = ow.receiver_throughput_mb_per_s
                extra = fmt_throughput(tput) if tput is not None else ""
                if ow.lost_messages:
                    extra += f" LOST {ow.lost_messages}"
            if e.rate:
                extra += f" {e.rate.deadline_misses} of {e.rate.calls} missed"
            if e.trials_failed:
                extra += f" ({e.trials_failed} trials failed)"
            if e.trials_skipped:
                # Only skips: every error is a skip's reason (a sweep step past saturation in some launches).
                why = f": {e.errors[0]}" if not e.trials_failed and e.errors else ""
                extra += f" ({e.trials_skipped} skipped{why})"
            if e.skipped:
                extra += f" {e.skipped}"
        rows.append((*columns(e.point), *cells, _added(e), interval_over(e), extra.strip()))
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(header))]
    lines = []
    for n, r in enumerate(rows):
        lines.append("  ".join(str(c).ljust(w) if i < 4 or i >= 8 else str(c).rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines += textwrap.wrap(P50_LEGEND, 118)
    lines += known_answer_lines(summary.known_answers)
    for fit in summary.known_answer_fits:
        lines.append(f"known answers across N ({fit.group.label}, against {fit.baseline}): {fit_text(fit)}; slope "
                     f"within 1% of 1: {'yes' if fit.slope_ok else 'NO'}; intercept interval covers 0: "
                     f"{'yes' if fit.intercept_ok else 'NO'}")
    return "\n".join(lines)


def known_answer_lines(rows: tuple[KnownAnswerRow, ...]) -> list[str]:
    """Known-answer targets: the known added latency N against what the pipeline recovered."""
    if not rows:
        return []
    table = [("placement", "mode", "payload", "target", "known N", "recovered X [95% CI]", "covers N",
              "|X - N| <= max(half-width, 5% N)")]
    for r in rows:
        a = r.answer
        table.append((r.point.placement, r.point.mode, f"{r.point.payload_bytes} B", r.point.target,
                      fmt_ns(a.known_ns), a.text, "yes" if a.covered else "NO", "yes" if a.within_tolerance else "NO"))
    return ["", f"known answers: {sum(r.answer.covered for r in rows)} of {len(rows)} intervals cover the known N",
            *aligned(table)]


def aligned(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows of text as left-aligned columns, the first a header underlined with dashes."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for n, row in enumerate(rows):
        out.append("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


P50_LEGEND = ("ORB-added latency estimates one quantity: what the ORB adds to its baseline's call in a freshly "
              "launched process in steady state (a round trip at rest with both workers on one CPU: at the fast "
              "end of its calls, their 10th percentile, where the scheduler's paths are alike; any other: at the "
              "p50). Each launch gives the median of its paired differences (slice by "
              "slice where the trials alternated in slices, else trial by trial; a round trip's pairs taken with the "
              "host at its usual speed and each scaled to that speed by its own baseline slice, except a known "
              "answer's clock delay); the estimate is over launches: from six launches the 20% trimmed mean with "
              "Yuen's t, else the mean with Student t, pooled with earlier runs on the host where there are three "
              "(\"N launches, S% launch\": S% of the launches' variance is launch-to-launch, the rest within "
              "launches; MIXED: launches disagree in kind, see the warnings). With one launch: the median of the "
              "pairs with its sign-test interval, over one process (\"(mean, t)\": fewer than 6 pairs). p50 is "
              "estimated the same way from each target's own trials (one launch: the mean of trial p50s), so an "
              "ORB's p50 minus its baseline's differs from ORB-added where pairs disagree or it was taken at the fast "
              "end; * unpaired trials "
              "left out; p90, p99, max: over every call of the point. A oneway's time is from the call to its "
              "return, once the calling thread has written the request to its socket; \"not comparable\": a "
              "middleware whose oneway returns once another thread has the request (gRPC Java and Python), whose "
              "receiver throughput is the number to compare")
