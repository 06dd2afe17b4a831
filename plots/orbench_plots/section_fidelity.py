"""The report's fidelity section: the newest `make bench-fidelity` run (results/fidelity/latest)."""

from __future__ import annotations

import html
import json
from pathlib import Path


def section(fidelity_dir: Path) -> str:
    path = fidelity_dir / "fidelity.json"
    if not path.is_file():
        return ""
    data = json.loads(path.read_text())
    head = ("payload", "sockperf -m", "orbench echo p50 / 2 (µs)", "sockperf p50 RTT/2 (µs)", "ratio (median)",
            "ratio range", "pairs")
    out = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for r in data["rows"]:
        ob, ratio = r["orbench_half_rtt_p50_ns"], r["ratio_orbench_over_sockperf"]
        cells = [f"{r['payload_bytes']} B", f"{r['sockperf_msg_bytes']} B", "" if ob is None else f"{ob / 1e3:.2f}",
                 "" if r["sockperf_half_rtt_p50_ns"] is None else f"{r['sockperf_half_rtt_p50_ns'] / 1e3:.2f}",
                 "" if ratio is None else f"{ratio:.2f}",
                 "" if not r.get("ratio_range") else f"{r['ratio_range'][0]:.2f} – {r['ratio_range'][1]:.2f}",
                 str(r.get("pairs", ""))]
        out.append("<tr>" + "".join(f"<td class='num'>{html.escape(c)}</td>" for c in cells) + "</tr>")
    return (f"<h2>Fidelity: orbench's C baseline vs sockperf</h2><p>Run <code>{html.escape(fidelity_dir.resolve().name)}"
            f"</code>, placement {html.escape(data['placement'])}: orbench's c-socket in echo mode (halved) against "
            "sockperf's TCP ping-pong (which reports RTT/2), same message bytes on the wire, same pinning, alternating trial by trial. A ratio "
            "near 1 means orbench's own harness adds nothing measurable.</p><table>" + "\n".join(out) + "</table>")
