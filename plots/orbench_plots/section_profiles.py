"""The report's profile section (the profile mode, `orbench run --profile`): where each middleware's time goes.

Per middleware and point, one block per worker: its sampled CPU per call against its baseline's, a table of the
functions with the most added self time (us per call; harness/orbench/summary/profiles.py) and links to the flame
graphs of the middleware's and the baseline's worker. The flame graphs are drawn by async-profiler's converter
(jfr-converter, from Maven Central: java/target/profiler/jfr-converter.jar, made by `make java`) from the run's
folded stacks, one interactive HTML page each under profiles/; the folded stacks themselves are what
speedscope and other flame graph viewers read.
"""

from __future__ import annotations

import html
import os
import subprocess
from pathlib import Path

from orbench.paths import repo_root
from orbench.results.profile import ProfileRecord
from orbench.results.store import RunStore
from orbench.summary.profiles import (
    DEFERRED_NOTE_SHARE,
    ProfileComparison,
    deferred_note,
    jit_note,
    profile_comparisons,
)

CONVERTER = "java/target/profiler/jfr-converter.jar"
TOP = 10
# Each flame graph is one run of the converter (a JVM start, ~0.1-0.3 s); past this many seconds per graph, a
# graph is given up (its folded stacks stay).
CONVERT_TIMEOUT_S = 60


def _esc(value: object) -> str:
    return html.escape(str(value))


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    return str(Path(home) / "bin" / "java") if home else "java"


def flame_graph(run_dir: Path, record: ProfileRecord) -> tuple[Path | None, str | None]:
    """The worker's flame graph page (made once, next to its folded stacks), or why there is none."""
    if record.file is None:
        return None, record.error
    us_per_sample = record.period_ns / 1000
    return flame_page(run_dir / record.file,
                      f"{record.point.label} {record.role}: {record.profiler}, {record.samples} samples, 1 sample = "
                      f"{us_per_sample:g} us of CPU = {us_per_sample / record.calls * 1000:.3g} ns per call")


def flame_page(folded: Path, title: str) -> tuple[Path | None, str | None]:
    """A flame graph page of folded stacks (made once, beside them), or why there is none."""
    page = folded.with_suffix(".html")
    if page.is_file() and page.stat().st_mtime >= folded.stat().st_mtime:
        return page, None
    converter = repo_root() / CONVERTER
    if not converter.is_file():
        return None, f"{CONVERTER} is missing (make java)"
    try:
        done = subprocess.run([_java(), "-cp", str(converter), "Main", "--title", title, str(folded), str(page)],
                              capture_output=True, timeout=CONVERT_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"the converter did not run: {exc}"
    if done.returncode != 0 or not page.is_file():
        return None, f"the converter failed: {done.stderr.decode(errors='replace').strip()[-300:]}"
    return page, None


def _link(run_dir: Path, record: ProfileRecord | None, label: str) -> str:
    if record is None:
        return f"{_esc(label)}: none"
    page, why = flame_graph(run_dir, record)
    if page is None:
        return f"{_esc(label)}: no flame graph ({_esc(why)})"
    folded = f" (<a href='{_esc(record.file)}'>folded</a>)" if record.file else ""
    return f"<a href='{_esc(page.relative_to(run_dir))}'>{_esc(label)}</a>{folded}"


def _block(run_dir: Path, c: ProfileComparison) -> str:
    orb = c.orb.record if c.orb else None
    base = c.base.record if c.base else None
    links = (f"flame graphs: {_link(run_dir, orb, c.point.target)}, "
             f"{_link(run_dir, base, str(c.baseline))}")
    if c.why_missing or c.orb is None or c.base is None:
        return f"<p><b>{_esc(c.role)}</b>: no comparison: {_esc(c.why_missing)}. {links}</p>"
    counted = "" if c.orb.counted_cpu_ns is None or c.base.counted_cpu_ns is None else (
        f" (the kernel counted {c.orb.counted_cpu_ns / 1000:.2f} and {c.base.counted_cpu_ns / 1000:.2f} µs)")
    notes = "".join(f"{_esc(note[0].upper() + note[1:])}. " for note in (jit_note(c), deferred_note(c)) if note)
    rows = "".join(
        f"<tr><td class='num'>{d.self_ns / 1000:+.3f}</td><td class='num'>{d.orb_self_ns / 1000:.3f}</td>"
        f"<td class='num'>{d.base_self_ns / 1000:.3f}</td><td class='num'>{d.total_ns / 1000:+.3f}</td>"
        f"<td><code>{_esc(d.frame)}</code>{' (saved)' if d.self_ns < 0 else ''}</td></tr>"
        for d in [*c.top_added(TOP), *c.top_saved(3)])
    return (f"<p><b>{_esc(c.role)}</b>: sampled CPU per call {c.orb.sampled_cpu_ns / 1000:.2f} µs against "
            f"{c.base.sampled_cpu_ns / 1000:.2f} µs for {_esc(c.baseline)}, "
            f"added {(c.added_cpu_ns or 0) / 1000:+.2f} µs{counted}, {(c.added_kernel_ns or 0) / 1000:+.2f} µs of "
            f"it in the kernel (functions marked _[k]); {_esc(c.orb.record.version)}, "
            f"{_esc(c.orb.record.event)}, {c.orb.profile.samples} and {c.base.profile.samples} samples. "
            f"{notes}{links}</p>"
            "<table><tr><th>added self µs/call</th><th>middleware self</th><th>baseline self</th>"
            "<th>added total</th><th>function</th></tr>" + rows + "</table>")


def section(run_dir: Path, manifest: dict) -> str:
    """The section's HTML; empty when the run has no profile."""
    store = RunStore(run_dir)
    comparisons = profile_comparisons(store, manifest.get("targets", {}))
    if not comparisons:
        return ""
    parts = ["<h2>Profiles: where each middleware's time goes</h2>",
             "<p>The profile mode: after each point's trials, one more trial per target with a sampling profiler "
             "attached to both workers (perf for C and C++, async-profiler for Java, py-spy for Python), each on its "
             "own host; its latency is not a result. A function's samples × the sampling period ÷ the trial's calls "
             "is its CPU time per call: <i>self</i> where it was running, <i>total</i> where it was on the stack. "
             "<i>Added</i> is the middleware's minus its baseline's at the same point, worker by worker: the "
             "functions the middleware adds time in, and (saved) those where it spends less. Sampling by a timer "
             "in a VM without hardware counters defers: a sample due while interrupts are off is taken where they "
             "come back on (finish_task_switch, _raw_spin_unlock_irqrestore), so those functions collect time "
             f"spent elsewhere; each worker's share of such samples is given where it is {DEFERRED_NOTE_SHARE:.0%} "
             "or more.</p>"]
    by_point: dict[str, list[ProfileComparison]] = {}
    for c in comparisons:
        by_point.setdefault(c.point.label, []).append(c)
    for label, group in by_point.items():
        added = [f"{c.role} {(c.added_cpu_ns or 0) / 1000:+.2f} µs" for c in group if c.added_cpu_ns is not None]
        parts.append(f"<details><summary>{_esc(label)} vs {_esc(group[0].baseline)}"
                     + (f": {_esc(', '.join(added))} of CPU per call" if added else "") + "</summary>"
                     + "".join(_block(run_dir, c) for c in group) + "</details>")
    return "\n".join(parts)
