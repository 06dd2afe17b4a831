"""Do a campaign's numbers reproduce? Over several runs of the same build: how often one run's 95% interval for
a point's ORB-added latency holds another run's estimate (cross-run capture), and how many rows `orbench
compare` flags between two runs that should not differ (the A/A false-alarm rate).

Two captures when earlier runs on the host, or the prior run-to-run spread, set a run's intervals
(summary/run_to_run.py): by the intervals as the summary gives them, and by each run's own, from its launches
alone. The first says whether the pooled intervals are honest; the second what the run's design gives by itself,
without its history on the host.

Honest intervals capture another run's estimate about 83% of the time when their spread is known (two independent
estimates of one value with equal spread: P(|Z| < 1.96 / sqrt 2)); a Student-t interval over L launches does so
with probability P(|t(L-1)| < t(0.975, L-1) / sqrt 2), 0.89 at 4 launches (honest_capture). Far less means the
intervals leave out a level of variance (process launches, most often), far more that they are wider than they
need be.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from orbench.results.point import Point
from orbench.results.store import RunStore
from orbench.stats.tdist import quantile, two_sided_p
from orbench.summary.compare import compare_summaries
from orbench.summary.model import RunSummary
from orbench.summary.summary import current_summary
from orbench.summary.table import aligned

# The capture rate of honest 95% intervals of known spread between two independent runs of equal precision.
HONEST_CAPTURE = 0.83


def honest_capture(launches: int) -> float:
    """How often an honest Student-t 95% interval over `launches` values holds an independent run's estimate of
    the same precision: (X1 - X2) / (S1 / sqrt L) / sqrt 2 is t-distributed on L - 1 degrees of freedom."""
    if launches < 2:
        return HONEST_CAPTURE
    df = launches - 1
    return 1.0 - two_sided_p(quantile(0.975, df) / math.sqrt(2.0), df)


@dataclass
class Capture:
    held: int = 0
    pairs: int = 0

    @property
    def rate(self) -> float | None:
        return self.held / self.pairs if self.pairs else None


@dataclass
class Agreement:
    runs: list[str]
    launches: int = 1
    # (target, mode) -> the fewest launches its ORB-added estimates had in any run (launches_for gives some
    # targets more than the campaign's `launches`); empty: every row had `launches`
    row_launches: dict[tuple[str, str], int] = field(default_factory=dict)
    # (target, mode) -> capture over every ordered pair of runs and every payload
    capture: dict[tuple[str, str], Capture] = field(default_factory=dict)
    # the same by each run's own intervals (its launches alone); empty when no run's interval was pooled
    own_capture: dict[tuple[str, str], Capture] = field(default_factory=dict)
    # one entry per compared pair of runs: run ids, rows, tests, flagged rows
    aa: list[dict[str, Any]] = field(default_factory=list)
    # (target, capacity kind and threading setting) -> capture of capacities (summary.json `capacities`)
    capacity_capture: dict[tuple[str, str], Capture] = field(default_factory=dict)

    def overall(self, own: bool = False) -> Capture:
        out = Capture()
        for c in (self.own_capture if own else self.capture).values():
            out.held += c.held
            out.pairs += c.pairs
        return out


def _added(summary: RunSummary, own: bool = False) -> dict[Point, tuple[float, float | None, float | None]]:
    """Each point's ORB-added estimate and interval; with `own`, the interval from the run's launches alone."""
    out = {}
    for p in summary.points:
        a = p.orb_added_latency_ns
        if a is None or a.estimate is None:
            continue
        rr = a.run_to_run
        out[p.point] = ((a.estimate, rr.within_ci95_low, rr.within_ci95_high) if own and rr is not None
                        else (a.estimate, a.ci95_low, a.ci95_high))
    return out


def _launches(summaries: list[RunSummary]) -> dict[tuple[str, str], int]:
    """Per row, the fewest launches any of its ORB-added estimates was over, in any of the runs."""
    out: dict[tuple[str, str], int] = {}
    for summary in summaries:
        for p in summary.points:
            a = p.orb_added_latency_ns
            if a is not None and a.n_launches:
                key = target_and_mode(p.point)
                out[key] = min(out.get(key, a.n_launches), a.n_launches)
    return out


def _pooled(summary: RunSummary) -> bool:
    return any((a := p.orb_added_latency_ns) is not None and a.run_to_run is not None for p in summary.points)


CapacityKey = tuple[Point, str, str, str]


def _capacities(summary: RunSummary) -> dict[CapacityKey, tuple[float, float | None, float | None]]:
    """Each capacity's estimate and interval, by point, kind, way of making clients and arrivals."""
    out = {}
    for c in summary.capacities:
        ci = c.interval
        if ci is not None and ci.estimate is not None:
            out[(c.point, c.kind, c.clients_as, c.arrivals or "")] = (ci.estimate, ci.low, ci.high)
    return out


def target_and_mode(point: Point) -> tuple[str, str]:
    """The row an ORB-added capture is counted in."""
    return point.target, point.mode


def _capture(runs: list[dict[Any, tuple[float, float | None, float | None]]],
             row: Any) -> dict[tuple[str, str], Capture]:
    """Over every ordered pair of runs: how often one run's interval holds the other's estimate, by row(key)."""
    capture: dict[tuple[str, str], Capture] = defaultdict(Capture)
    for i, mine in enumerate(runs):
        for j, theirs in enumerate(runs):
            if i == j:
                continue
            for key, (_est, low, high) in mine.items():
                if key not in theirs or low is None or high is None:
                    continue
                c = capture[row(key)]
                c.pairs += 1
                c.held += int(low <= theirs[key][0] <= high)
    return dict(sorted(capture.items()))


def agreement(stores: list[RunStore]) -> Agreement:
    """Cross-run capture over every ordered pair of runs; A/A compare over disjoint consecutive pairs (1-2, 3-4,
    ...), which are independent of each other."""
    if len(stores) < 2:
        raise ValueError("need two runs or more")
    summaries = [current_summary(s) for s in stores]
    added = [_added(s) for s in summaries]
    result = Agreement([s.run_id for s in stores],
                       min(int((s.read_manifest().get("campaign") or {}).get("launches") or 1) for s in stores))
    result.row_launches = _launches(summaries)
    result.capture = _capture(added, target_and_mode)
    if any(_pooled(s) for s in summaries):
        result.own_capture = _capture([_added(s, own=True) for s in summaries], target_and_mode)
    result.capacity_capture = _capture(
        [_capacities(s) for s in summaries],
        lambda key: (key[0].target, f"{key[1]} {key[0].threading}" + (f" {key[3]}" if key[3] else "")))
    for i in range(0, len(stores) - 1, 2):
        cmp = compare_summaries(summaries[i], summaries[i + 1],
                                (stores[i].read_manifest(), stores[i + 1].read_manifest()))
        result.aa.append({"a": stores[i].run_id, "b": stores[i + 1].run_id, "rows": len(cmp["points"]),
                          "tests": cmp["tests"], "flagged_rows": cmp["flagged_rows"],
                          "flagged": [f"{r['target']} {r['mode']} {r['payload_bytes']} B" for r in cmp["points"]
                                      if any((r.get(q) or {}).get("flag") for q in ("p50", "orb_added"))]})
    return result


def _rate(c: Capture | None) -> str:
    return f"{c.rate:.2f}" if c is not None and c.rate is not None else "-"


def format_agreement(a: Agreement) -> str:
    launches = {a.row_launches.get(key, a.launches) for key in a.capture} or {a.launches}
    per_row = len(launches) > 1  # launches_for: the honest rate differs from row to row
    honest = ("the honest column, at each row's launches" if per_row else
              f"about {honest_capture(min(launches)):.2f} at {min(launches)} launch{'es' if min(launches) != 1 else ''}")
    lines = [f"{len(a.runs)} runs: {', '.join(a.runs)}", "",
             f"cross-run capture: how often one run's 95% ORB-added interval holds another run's estimate "
             f"(honest intervals: {honest})"]
    if a.own_capture:
        lines.append("  capture: by the intervals the summaries give, some pooled with earlier runs on the host; own: "
                     "by each run's own interval, from its launches alone")
    rows = [("target", "mode", "capture", "held / ordered pairs") + (("own", "held") if a.own_capture else ())
            + (("honest", "launches") if per_row else ())]
    for (target, mode), c in a.capture.items():
        own = a.own_capture.get((target, mode))
        n = a.row_launches.get((target, mode), a.launches)
        rows.append((target, mode, _rate(c), f"{c.held} / {c.pairs}")
                    + ((_rate(own), f"{own.held} / {own.pairs}" if own else "-") if a.own_capture else ())
                    + ((f"{honest_capture(n):.2f}", str(n)) if per_row else ()))
    total, own_total = a.overall(), a.overall(own=True)
    rows.append(("all", "", _rate(total), f"{total.held} / {total.pairs}")
                + ((_rate(own_total), f"{own_total.held} / {own_total.pairs}") if a.own_capture else ())
                + (("", "") if per_row else ()))
    lines += aligned(rows)
    if a.capacity_capture:
        lines += ["", "capacity capture: how often one run's 95% capacity interval (closed loop; at the SLO) holds "
                  "another run's estimate"]
        rows = [("target", "capacity", "capture", "held / ordered pairs")]
        for (target, kind), c in a.capacity_capture.items():
            rows.append((target, kind, _rate(c), f"{c.held} / {c.pairs}"))
        total = Capture(sum(c.held for c in a.capacity_capture.values()),
                        sum(c.pairs for c in a.capacity_capture.values()))
        rows.append(("all", "", _rate(total), f"{total.held} / {total.pairs}"))
        lines += aligned(rows)
    if a.aa:
        lines += ["", "A/A compare (disjoint consecutive pairs of runs; every flag is a false alarm if the build and "
                  "machine did not change):"]
        rows_total = sum(x["rows"] for x in a.aa)
        flagged_total = sum(x["flagged_rows"] for x in a.aa)
        tests_total = sum(x["tests"] for x in a.aa)
        for x in a.aa:
            lines.append(f"  {x['a']} vs {x['b']}: {x['flagged_rows']} of {x['rows']} rows flagged ({x['tests']} "
                         "tests)" + (f": {', '.join(x['flagged'])}" if x["flagged"] else ""))
        lines.append(f"  total: {flagged_total} of {rows_total} rows "
                     f"({100 * flagged_total / max(rows_total, 1):.1f}%), {flagged_total} of {tests_total} tests "
                     f"({100 * flagged_total / max(tests_total, 1):.1f}%)")
    return "\n".join(lines)
