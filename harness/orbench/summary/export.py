"""Exports of a run's raw samples for other tools: one CSV of every call, and HdrHistogram interval logs.

- export/samples.csv: one column per point dimension (point.Point's fields: host_pair, placement, options, mode,
  shape, payload_type, payload_bytes, clients, rate_hz, target, ...), then trial, call, latency_ns; one row per timed call,
  in call order (the raw .i64 files, made readable).
- export/hdr/<point slug>.hlog: one HdrHistogram interval log per point, one interval per trial (start and
  end from the trial's timing where the run recorded it), values in ns, 3 significant digits: what
  HdrHistogram's own tools (HistogramLogProcessor, the plotter) read.
- export/anatomy.csv: the anatomy of a call per point (summary.json's `anatomy`): one column per point
  dimension, then per figure its median over trials (`<name>`) and its mean's 95% interval (`<name>_low`,
  `<name>_high`),
  the trial counts summed, the TCP events and the anatomy mode's system calls as "name=value;..." cells, and
  for an ORB the CPU it adds over its baseline. Written when the run measured any.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogWriter

from orbench.anatomy.delta import pairs_text
from orbench.anatomy.summary import PER_CALL, PER_TRIAL, SUMS
from orbench.results.integrity import MAX_SAMPLE_NS
from orbench.results.point import Point
from orbench.results.store import RunStore
from orbench.results.trial import Trial
from orbench.stats.stats import read_samples
from orbench.summary.model import RunSummary

HDR_LOWEST_NS = 1
HDR_HIGHEST_NS = MAX_SAMPLE_NS
HDR_DIGITS = 3

FIELDS = [*Point.columns(), "launch", "trial", "call", "latency_ns"]


def _ok_trials(store: RunStore) -> dict[Point, list[Trial]]:
    out: dict[Point, list[Trial]] = {}
    for t in store.read_trials():
        if t.ok:
            out.setdefault(t.point, []).append(t)
    return out


def export_csv(store: RunStore, ok: dict[Point, list[Trial]], path: Path) -> int:
    rows = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(FIELDS)
        for point, trials in sorted(ok.items()):
            dims = list(point.as_record().values())
            for t in trials:
                x = read_samples(store.path / str(t.samples_file))
                w.writerows([*dims, t.launch, t.trial, i, int(v)] for i, v in enumerate(x))
                rows += x.size
    return rows


def histogram_of(samples: np.ndarray) -> HdrHistogram:
    h = HdrHistogram(HDR_LOWEST_NS, HDR_HIGHEST_NS, HDR_DIGITS)
    values, counts = np.unique(samples, return_counts=True)
    for v, c in zip(values.tolist(), counts.tolist()):  # one record per distinct value: fast enough in Python
        h.record_value(min(max(v, HDR_LOWEST_NS), HDR_HIGHEST_NS), c)
    return h


def export_hdr(store: RunStore, ok: dict[Point, list[Trial]], out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for point, trials in sorted(ok.items()):
        path = out_dir / f"{point.slug}.hlog"
        with open(path, "w") as f:
            writer = HistogramLogWriter(f)
            writer.output_comment(f"orbench run {store.run_id}: {point.label}; values in ns; one interval per trial")
            writer.output_log_format_version()
            writer.output_legend()
            for n, t in enumerate(trials):
                h = histogram_of(read_samples(store.path / str(t.samples_file)))
                if t.trial_end_unix is not None and t.elapsed_ns:
                    start, end = t.trial_end_unix - t.elapsed_ns / 1e9, t.trial_end_unix
                else:  # no timing recorded: consecutive one-second slots keep the trials apart and in order
                    start, end = float(n), float(n + 1)
                writer.output_interval_histogram(h, start, end, max_value_unit_ratio=1e6)
            writer.close()
        written.append(path)
    return written


ANATOMY_FIELDS = [*Point.columns(),
                  *(f"{n}{s}" for n in (*PER_CALL, *SUMS, "cpu_us") for s in ("", "_low", "_high")),
                  *PER_TRIAL, "tcp_events", "client_syscalls", "client_syscalls_total", "server_syscalls",
                  "server_syscalls_total", "orb_added_cpu_us", "orb_added_cpu_us_low", "orb_added_cpu_us_high"]


def export_anatomy(summary: RunSummary, path: Path) -> int:
    """anatomy.csv from summary.json's points; the number of rows (0: no file written)."""
    points = [p for p in summary.points if p.anatomy]
    if not points:
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=ANATOMY_FIELDS, extrasaction="ignore")
        w.writeheader()
        for p in points:
            a = p.anatomy
            assert a is not None
            row = dict(p.point.as_record())
            for name in (*PER_CALL, *SUMS, "cpu_us"):
                fig = a.figure(name)
                if fig is not None:
                    row.update({name: fig.median, f"{name}_low": fig.low, f"{name}_high": fig.high})
            row.update({name: count for name in PER_TRIAL if (count := getattr(a, name)) is not None})
            row["tcp_events"] = pairs_text(a.tcp_events)
            if a.syscalls:
                row.update(client_syscalls=pairs_text(a.syscalls.client), client_syscalls_total=a.syscalls.client_total,
                           server_syscalls=pairs_text(a.syscalls.server), server_syscalls_total=a.syscalls.server_total)
            added = p.orb_added_cpu_us
            if added is not None:
                row.update({"orb_added_cpu_us": added.estimate, "orb_added_cpu_us_low": added.ci95_low,
                            "orb_added_cpu_us_high": added.ci95_high})
            w.writerow(row)
    return len(points)


def export_run(store: RunStore, out_dir: Path | None = None) -> dict[str, object]:
    from orbench.summary.summary import current_summary

    out_dir = out_dir or store.path / "export"
    # Everything read (and checked: a run with nothing to compute on stops here) before any file is written.
    ok, summary = _ok_trials(store), current_summary(store)
    rows = export_csv(store, ok, out_dir / "samples.csv")
    logs = export_hdr(store, ok, out_dir / "hdr")
    anatomy = export_anatomy(summary, out_dir / "anatomy.csv")
    return {"csv": out_dir / "samples.csv", "rows": rows, "hdr_logs": logs,
            "anatomy_csv": out_dir / "anatomy.csv" if anatomy else None, "anatomy_rows": anatomy}
