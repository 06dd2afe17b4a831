"""JMH results in the results store: `orbench ingest-jmh FILE...` copies JMH JSON result files (-rf json) into
results/jmh/<run-id>/jmh.json (one list: `make jmh` runs JMH once per Java ORB, each on its own class path)
beside a manifest (environment, git commit, source files), and points results/jmh/latest at it; the report of
any run in the same store shows the newest JMH run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from orbench.errors import UserError
from orbench.results.manifest import Manifest
from orbench.results.store import RunStore, write_json_atomic

ALLOC_METRIC = "gc.alloc.rate.norm"


def read_jmh(path: Path) -> list[dict[str, Any]]:
    """A JMH JSON result file, checked enough that a wrong file fails here with its name, not in the report."""
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"{path}: not a readable JMH JSON result file ({exc})") from None
    if not isinstance(data, list) or not all(isinstance(r, dict) and "benchmark" in r and "primaryMetric" in r
                                             for r in data):
        raise UserError(f"{path}: not a JMH JSON result file (expected a list of results with 'benchmark' and "
                        "'primaryMetric'; run JMH with -rf json)")
    return data


def rows(data: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One flat row per benchmark x parameters: score, its 99.9% error, unit, and bytes allocated per op."""
    out = []
    for r in data:
        pm = r["primaryMetric"]
        secondary = {k.lstrip("·"): v for k, v in (r.get("secondaryMetrics") or {}).items()}
        alloc = secondary.get(ALLOC_METRIC)
        out.append({
            "benchmark": r["benchmark"].rsplit(".", 2)[-2] + "." + r["benchmark"].rsplit(".", 1)[-1],
            "params": r.get("params") or {},
            # The Java ORB of an ORB benchmark (its `orb` parameter); None for ORB-independent ones (JniBench).
            "orb": (r.get("params") or {}).get("orb"),
            "mode": r.get("mode"),
            "score": pm.get("score"),
            "error": pm.get("scoreError"),
            "unit": pm.get("scoreUnit"),
            "alloc_bytes_per_op": None if alloc is None else alloc.get("score"),
            "forks": r.get("forks"),
            "jvm": r.get("vmVersion") or r.get("jdkVersion"),
        })
    return out


def ingest(paths: Path | list[Path], environment: dict[str, Any], root: Path | None = None,
           command: list[str] | None = None) -> RunStore:
    """One JMH run in the store from one or more result files (one per ORB), all checked before anything is
    written, with the machine's `environment` (hosts.environment.collect_environment). A benchmark with the
    same parameters in two files is refused: it would show twice in the report."""
    paths = [Path(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
    if not paths:
        raise UserError("ingest-jmh: no JMH result file given")
    data: list[dict[str, Any]] = []
    seen: dict[tuple[str, str], Path] = {}
    for path in paths:
        for r in read_jmh(path):
            key = (r["benchmark"], json.dumps(r.get("params") or {}, sort_keys=True))
            if key in seen:
                raise UserError(f"{path}: {r['benchmark']} {key[1]} is also in {seen[key]}; ingest each result once")
            seen[key] = path
            data.append(r)
    store = RunStore.create("jmh", root)
    command = list(command if command is not None else sys.argv)
    write_json_atomic(store.path / "jmh.json", data)
    manifest = Manifest.start("jmh", store.run_id, command, environment, status="complete",
                              source_files=[str(p.resolve()) for p in paths], benchmarks=len(data))
    manifest["ingested_at"] = manifest.started_at  # what the report's JMH section shows
    store.write_manifest(manifest)
    write_json_atomic(store.path / "jmh-rows.json", rows(data))
    store.mark_latest()
    return store
