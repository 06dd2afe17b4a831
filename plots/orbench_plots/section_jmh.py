"""The report's JMH section: the newest ingested JMH run (results/jmh/latest). First the Java ORBs side by side
(every benchmark with an `orb` parameter: time and bytes allocated per operation, one column pair per ORB), then
every row as JMH reported it."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from orbench.results.store import RunStore

# Known ORBs first, in this order; any other ORB follows in the order met.
ORB_ORDER = ("jacorb", "glassfish")
ORB_LABELS = {"jacorb": "JacORB", "glassfish": "GlassFish"}
# Side-by-side rows: the per-call allocation first (the headline), then marshaling.
BENCHMARK_ORDER = ("LoopbackCall", "CdrBench")


def _num(v: Any, digits: int = 3) -> str:
    try:
        v = float(v)
    except (TypeError, ValueError):  # None, or JMH's "NaN" string
        return ""
    if v != v:
        return ""
    return f"{v:.{digits}g}" if abs(v) < 1000 else f"{v:,.0f}"


def _orb(r: dict[str, Any]) -> str | None:
    return r.get("orb") or (r.get("params") or {}).get("orb")


def _param_sort_key(params: dict[str, str]) -> tuple:
    return tuple((k, float(v) if v.replace(".", "", 1).isdigit() else 0.0, v) for k, v in sorted(params.items()))


def _cells(values: list[str], cls: str = "") -> str:
    attr = f" class='{cls}'" if cls else ""
    return "".join(f"<td{attr}>{html.escape(str(c))}</td>" for c in values)


def side_by_side(rows: list[dict[str, Any]]) -> str:
    """One row per benchmark x parameters (the ORB's aside), one column pair per ORB; empty without ORB rows."""
    orb_rows = [r for r in rows if _orb(r) and not r["benchmark"].endswith(".baseline")]
    if not orb_rows:
        return ""
    met = list(dict.fromkeys(_orb(r) for r in orb_rows))
    orbs = [o for o in ORB_ORDER if o in met] + [o for o in met if o not in ORB_ORDER]
    table: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    params_of: dict[tuple[str, str], dict[str, str]] = {}
    for r in orb_rows:
        params = {k: str(v) for k, v in (r.get("params") or {}).items() if k != "orb"}
        key = (r["benchmark"], json.dumps(params, sort_keys=True))
        table.setdefault(key, {})[_orb(r)] = r
        params_of[key] = params

    def order(key: tuple[str, str]) -> tuple:
        cls = key[0].split(".")[0]
        rank = BENCHMARK_ORDER.index(cls) if cls in BENCHMARK_ORDER else len(BENCHMARK_ORDER)
        return (rank, key[0], _param_sort_key(params_of[key]))

    head1 = "<tr><th rowspan='2'>benchmark</th><th rowspan='2'>parameters</th>" + "".join(
        f"<th colspan='2'>{html.escape(ORB_LABELS.get(o, o))}</th>" for o in orbs) + "</tr>"
    head2 = "<tr>" + "<th>time/op (± 99.9%)</th><th>allocated B/op</th>" * len(orbs) + "</tr>"
    out = [head1, head2]
    for key in sorted(table, key=order):
        params = ", ".join(f"{k}={v}" for k, v in params_of[key].items())
        cells = [key[0], params]
        nums = []
        for o in orbs:
            r = table[key].get(o)
            if r is None:
                nums += ["not run", ""]
                continue
            err = _num(r.get("error"))
            nums += [f"{_num(r['score'])}{' ± ' + err if err else ''} {r['unit']}", _num(r["alloc_bytes_per_op"], 4)]
        out.append("<tr>" + _cells(cells) + _cells(nums, "num") + "</tr>")
    return ("<h3>Java ORBs side by side</h3><p>Each ORB measured in its own JMH run, on a class path holding that "
            "ORB's jars alone, in the same session. <code>LoopbackCall.twowaySend</code>: one twoway "
            "<code>send(octets)</code> over loopback TCP, client and server ORB in one JVM, so its bytes per call "
            "are both sides' allocation. <code>CdrBench</code>: the ORB's own CDR streams marshaling / "
            "unmarshaling the payload (JacORB <code>CDROutputStream</code>/<code>CDRInputStream</code>, GlassFish "
            "<code>EncapsOutputStream</code>/<code>EncapsInputStream</code>). Allocation per operation is "
            "stable on a busy machine; times are not: compare them as ratios within this run only.</p>"
            "<table>" + "\n".join(out) + "</table>")


def section(jmh_dir: Path) -> str:
    rows_file = jmh_dir / "jmh-rows.json"
    if not rows_file.is_file():
        return ("<h2>JMH</h2><p>No JMH run in this results store yet: <code>make jmh</code> runs the suite and "
                "ingests its results.</p>")
    rows = json.loads(rows_file.read_text())
    manifest = RunStore(jmh_dir.resolve()).read_manifest()
    machine = manifest["environment"]["host"]
    head = ("benchmark", "parameters", "score", "± (99.9%)", "unit", "allocated B/op")
    out = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for r in rows:
        params = ", ".join(f"{k}={v}" for k, v in r["params"].items())
        cells = [r["benchmark"], params]
        nums = [_num(r["score"]), _num(r["error"]), r["unit"], _num(r["alloc_bytes_per_op"], 4)]
        out.append("<tr>" + _cells(cells) + _cells(nums, "num") + "</tr>")
    return (f"<h2>JMH micro-benchmarks</h2><p>JMH run <code>{html.escape(jmh_dir.resolve().name)}</code> "
            f"(ingested {html.escape(str(manifest.get('ingested_at')))}, host "
            f"{html.escape(str(machine.get('hostname')))}, {html.escape(str(machine.get('cpu_model')))}); "
            "average time per operation with JMH's 99.9% error, and bytes allocated per operation from "
            "<code>-prof gc</code> (gc.alloc.rate.norm). <code>baseline</code> rows are empty operations: JMH's own "
            "cost.</p>" + side_by_side(rows)
            + "<h3>Every benchmark</h3><table>" + "\n".join(out) + "</table>")
