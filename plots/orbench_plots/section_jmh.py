"""The report's JMH section: the newest ingested JMH run (results/jmh/latest), one row per benchmark."""

from __future__ import annotations

import html
import json
from pathlib import Path


def _num(v: float | None, digits: int = 3) -> str:
    if v is None or v != v:  # None or NaN
        return ""
    return f"{v:.{digits}g}" if abs(v) < 1000 else f"{v:,.0f}"


def section(jmh_dir: Path) -> str:
    rows_file = jmh_dir / "jmh-rows.json"
    if not rows_file.is_file():
        return ("<h2>JMH</h2><p>No JMH run in this results store yet: <code>make jmh</code> runs the suite and "
                "ingests its results.</p>")
    rows = json.loads(rows_file.read_text())
    manifest = json.loads((jmh_dir / "manifest.json").read_text())
    env = manifest.get("environment", {})
    head = ("benchmark", "parameters", "score", "± (99.9%)", "unit", "allocated B/op")
    out = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for r in rows:
        params = ", ".join(f"{k}={v}" for k, v in r["params"].items())
        cells = [r["benchmark"], params]
        nums = [_num(r["score"]), _num(r["error"]), r["unit"], _num(r["alloc_bytes_per_op"], 4)]
        out.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells)
                   + "".join(f"<td class='num'>{html.escape(str(c))}</td>" for c in nums) + "</tr>")
    return (f"<h2>JMH micro-benchmarks</h2><p>JMH run <code>{html.escape(jmh_dir.resolve().name)}</code> "
            f"(ingested {html.escape(str(manifest.get('ingested_at')))}, host "
            f"{html.escape(str(env.get('host', {}).get('hostname')))}, {html.escape(str(env.get('cpu', {}).get('model')))}); "
            "average time per operation with JMH's 99.9% error, and bytes allocated per operation from "
            "<code>-prof gc</code> (gc.alloc.rate.norm). <code>baseline</code> rows are empty operations: JMH's own "
            "cost. LoopbackCall.twowaySend allocates on both sides (client and server ORB share the JVM).</p>"
            "<table>" + "\n".join(out) + "</table>")
