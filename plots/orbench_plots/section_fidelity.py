"""The report's fidelity section: the newest `make bench-fidelity` run (results/fidelity/latest), one table per
row (orbench's worker against a reference making the same calls), the ratio per payload size against the goal."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any


def _comparisons(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of fidelity.json; a run from before the omniORB row (one sockperf table, other field names) is
    read into the same shape."""
    if "comparisons" in data:
        return data["comparisons"]
    rows = [{"payload_bytes": r["payload_bytes"], "pairs": r.get("pairs"),
             "orbench_p50_ns": r.get("orbench_half_rtt_p50_ns"), "reference_p50_ns": r.get("sockperf_half_rtt_p50_ns"),
             "ratio": r.get("ratio_orbench_over_sockperf"), "ratio_range": r.get("ratio_range"), "loadavg_1m": None}
            for r in data.get("rows", [])]
    return [{"reference": "sockperf", "target": "c-socket", "mode": "echo", "halved": True,
             "what": "orbench c-socket echo p50 / 2 vs sockperf TCP ping-pong p50 of RTT/2 (sockperf message: "
                     "payload + 12 B)", "rows": rows}]


def _us(ns: float | None) -> str:
    return "" if ns is None else f"{ns / 1e3:.2f}"


def _table(comp: dict[str, Any], goal: float | None) -> str:
    scale = "p50 / 2" if comp.get("halved") else "p50"
    head = ("payload", f"orbench {comp['target']} {comp['mode']} {scale} (µs)", f"{comp['reference']} {'p50 of RTT/2' if comp.get('halved') else 'p50'} (µs)",
            "ratio (median)", "95% interval", "ratio range", "launches × paired trials", "load average")
    oneway = any(r.get("throughput_ratio") is not None for r in comp["rows"])
    if oneway:  # the receiver's messages/s, orbench over the reference: below 1, orbench's receiver is slower
        head += ("receiver msgs/s orbench / reference",)
    means = any(r.get("mean_ratio") is not None for r in comp["rows"])
    if means:  # a flood's p50 can be how often a write found room; its mean time per call is its rate
        head += ("mean time per call orbench / reference", "its 95% interval")
    out = ["<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for r in comp["rows"]:
        ratio, spread, load = r.get("ratio"), r.get("ratio_range"), r.get("loadavg_1m")
        # Against the goal: the interval's verdict where the run has one, else (older runs) the median alone.
        over = r.get("verdict") == "beyond" if "verdict" in r else (ratio is not None and goal is not None and ratio > goal)
        ci = r.get("ratio_ci") or [None, None]
        cells = [f"{r['payload_bytes']} B", _us(r.get("orbench_p50_ns")), _us(r.get("reference_p50_ns")),
                 "" if ratio is None else f"{ratio:.3f}" + (f" (> {goal})" if over else ""),
                 "" if ci[0] is None else f"{ci[0]:.3f} – {ci[1]:.3f}" + (f" ({r['verdict']})" if r.get("verdict") else ""),
                 "" if not spread else f"{spread[0]:.3f} – {spread[1]:.3f}",
                 # paired trials per launch: a run from before slices had one (a pair per launch)
                 f"{r['pairs']} × {comp.get('slices', 1)}" if r.get("pairs") else "",
                 "" if not load else f"{min(load):.1f} – {max(load):.1f}"]
        if oneway:
            cells.append("" if r.get("throughput_ratio") is None else f"{r['throughput_ratio']:.3f}")
        if means:
            mci = r.get("mean_ratio_ci") or [None, None]
            cells += ["" if r.get("mean_ratio") is None else f"{r['mean_ratio']:.3f}",
                      "" if mci[0] is None else f"{mci[0]:.3f} – {mci[1]:.3f} ({r.get('mean_verdict', '')})"]
        out.append("<tr>" + "".join(f"<td class='num'>{html.escape(c)}</td>" for c in cells) + "</tr>")
    where = f" ({comp['placement']})" if comp.get("placement") else ""
    return (f"<h3>{html.escape(comp['target'])} {html.escape(comp['mode'])} vs {html.escape(comp['reference'])}"
            f"{html.escape(where)}</h3>"
            f"<p>{html.escape(comp.get('what', ''))}</p><table>" + "\n".join(out) + "</table>")


def section(fidelity_dir: Path) -> str:
    path = fidelity_dir / "fidelity.json"
    if not path.is_file():
        return ""
    data = json.loads(path.read_text())
    goal = data.get("goal_ratio")
    tables = "".join(_table(comp, goal) for comp in _comparisons(data))
    missing = "".join(f"<p>{html.escape(name)}: not measured: {html.escape(why)}</p>"
                      for name, why in (data.get("missing") or {}).items())
    intro = (f"Run <code>{html.escape(fidelity_dir.resolve().name)}</code>, placement "
             f"{html.escape(data['placement'])}: orbench's workers, run by the harness as in any campaign, against "
             "references making the same calls with nothing of orbench's around them, same pinning. Fresh processes "
             "on both sides for every launch; within a launch the two alternate in short slices (inside each orbench "
             "trial, a few hundred calls of each side in turn), so both see the same moment of the machine. A "
             "launch's ratio is the median of its trials' ratios; the table shows the median over launches and its "
             "distribution-free 95% interval (within: all of it at or under the goal; beyond: all of it over; "
             "unresolved: it straddles the goal; below: all of it far under 1, a reference slower than orbench's "
             "worker, which says the reference is off) and the range of the launches' ratios. A ratio near 1 means the "
             "harness adds nothing "
             "measurable" + (f"; the goal is at most {goal} at every size." if goal else "."))
    cells, minutes = data.get("cells"), data.get("max_minutes")
    # Each batch's size as the run recorded it (running/fidelity.py EXTRA_BATCH), not repeated here.
    sizes = sorted({b["launches"] for b in data.get("extra_launches") or []})
    more = f"{' or '.join(map(str, sizes))} more launches" if sizes else "more launches"
    counts = "" if not cells else (
        f"<p>{cells['cells']} cells: {cells['within']} within the goal, {cells['beyond']} beyond it, "
        + (f"{cells['below']} below {data.get('reference_floor')} (the reference slower than orbench's worker: not "
           "a fair reference there), " if cells.get("below") else "")
        + f"{cells['open']} open (a oneway cell judged by its p50 or its mean). After {data.get('pairs')} launches at "
        f"every size, {cells['batches']} batches of {more} went to {cells['extended']} open cells, the rows "
        "whose launches cost least first, " + (f"within {minutes:g} minutes" if minutes else "with no time limit")
        + "; <code>orbench fidelity --compare</code> says which open cells hold still across two runs.</p>")
    return f"<h2>Fidelity: is the harness invisible?</h2><p>{intro}</p>{counts}{tables}{missing}"
