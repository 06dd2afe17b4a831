"""The report's instruction section (the counting mode, `orbench run --count`): what each middleware costs per
call in instructions, exact, against its baseline, and the functions that add them.

Per middleware, at its smallest and largest payload of each mode: client and server instructions per call, the
baseline's and the difference, the repeats' spread, and a table of the functions with the most added self
instructions per call (harness/orbench/summary/instructions.py), with a link to each worker's flame graph (drawn
from the call graph's folded stacks by the profile section's converter). JVM targets show their own counters and
say what is not counted.
"""

from __future__ import annotations

import html
from pathlib import Path

from orbench.results.counted import read_records
from orbench.summary.instructions import INSTRUCTION_TOLERANCE_PCT, KERNEL_NOT_COUNTED
from orbench.summary.model import InstructionCount, RunSummary

from orbench_plots.section_profiles import flame_page

TOP = 10


def _esc(value: object) -> str:
    return html.escape(str(value))


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}%"


def _flame_link(run_dir: Path, folded: dict[tuple, str], c: InstructionCount) -> str:
    file = folded.get((c.point, c.role))
    if not file or not (run_dir / file).is_file():
        return "no flame graph (no folded stacks)"
    page, why = flame_page(run_dir / file, f"{c.point.label} {c.role}: callgrind instructions over {c.calls} "
                                           "differenced calls (divide by them for per call)")
    if page is None:
        return f"no flame graph ({_esc(why)})"
    return f"<a href='{_esc(page.relative_to(run_dir))}'>flame graph</a> (<a href='{_esc(file)}'>folded</a>)"


def _functions(c: InstructionCount) -> str:
    if not c.top_added:
        return ""
    rows = "".join(f"<tr><td class='num'>{f.self_added:+,.1f}</td><td class='num'>{f.inclusive_added:+,.1f}</td>"
                   f"<td class='num'>{f.self:,.1f}</td><td class='num'>{f.baseline_self:,.1f}</td>"
                   f"<td><code>{_esc(f.function)}</code></td></tr>" for f in c.top_added[:TOP])
    return ("<table><tr><th>added self / call</th><th>added inclusive</th><th>middleware self</th>"
            "<th>baseline self</th><th>function</th></tr>" + rows + "</table>")


def _shown(counts: list[InstructionCount]) -> list[InstructionCount]:
    """Per target and mode, its smallest and largest payload."""
    sizes: dict[tuple[str, str], set[int]] = {}
    for c in counts:
        sizes.setdefault((c.point.target, c.point.mode), set()).add(c.point.payload_bytes)
    return [c for c in counts if c.point.payload_bytes in (min(sizes[(c.point.target, c.point.mode)]),
                                                           max(sizes[(c.point.target, c.point.mode)]))]


def section(run_dir: Path, summary: RunSummary) -> str:
    """The section's HTML; empty when the run counted nothing."""
    counts = [c for c in summary.instructions if c.why_missing is None]
    if not counts:
        return ""
    folded = {(r.point, r.role): r.folded_file for r in read_records(run_dir) if r.folded_file}
    parts = ["<h2>Instructions per call (counting mode)</h2>",
             "<p>Each C++ and Python worker ran under valgrind's callgrind, which counts every instruction it "
             "executes in user space: no machine's speed or load changes the figure. A point's count is "
             "(I(N2) − I(N1)) / (N2 − N1) over runs of N1 and N2 calls, so start-up, warm-up and the harness's "
             "own requests cancel; its spread is how far the repeated pairs lie apart, each in worker processes of its own (0: exact). <i>Added</i> is "
             "the middleware's worker minus its baseline's at the same point. Not counted: "
             f"{_esc(KERNEL_NOT_COUNTED)}. Callgrind's cycle estimates from its cache model are not used. The "
             "flame graphs split a function's instructions among its callers in proportion to what each "
             "call brought (a call graph keeps one level of context); the tables are exact.</p>"]
    known = [c for c in counts if c.known_answer is not None]
    if known:
        parts.append("<p><b>Known answer</b>: " + "; ".join(
            f"{_esc(c.point.label)} server: {k.iterations:,} × {k.instructions_per_iteration} = {k.known:,} added "
            f"instructions per call, recovered {k.recovered:,.1f} ({k.error_pct:+.4f}%, "
            f"{'within' if k.within_tolerance else 'NOT within'} {INSTRUCTION_TOLERANCE_PCT:g}%)"
            for c in known if (k := c.known_answer) is not None) + ".</p>")
    rows = "".join(
        f"<tr><td>{_esc(c.point.label)}</td><td>{_esc(c.role)}</td><td class='num'>{_num(c.per_call)}</td>"
        f"<td>{_esc(c.baseline or '')}</td><td class='num'>{_num(c.baseline_per_call)}</td>"
        f"<td class='num'>{'-' if c.added_per_call is None else f'{c.added_per_call:+,.1f}'}</td>"
        f"<td class='num'>{'-' if c.spread_pct is None else f'{c.spread_pct:.3f}%'}</td>"
        f"<td class='num'>{_num(c.outside_allocator_per_call)}</td>"
        f"<td class='num'>{_pct(c.outside_allocator_spread_pct)}</td>"
        f"<td class='num'>{_num(c.allocator_per_call)}</td>"
        f"<td class='num'>{'-' if c.allocator_calls_per_call is None else f'{c.allocator_calls_per_call:.3f}'}</td>"
        "</tr>" for c in counts if c.jvm is None)
    parts.append("<p>The allocators (glibc's malloc, CPython's object allocator) are counted apart: the calls "
                 "into them per call are the program's own (exact), but the instructions the same calls take hang "
                 "on the heap's state, which the threads' timing sets (which thread frees a block last, so whose "
                 "cache it goes back to): they differ by up to ~13% from one process to the next. Compare flags "
                 "the instructions outside the allocators and the calls into them, and their instructions only "
                 "when they move by a quarter. The calls are paced, so that each request meets a server done "
                 "with the one before; where a spread outside the allocators is still not 0, the path itself "
                 "hangs on timing (a read that returns part of a message, a handoff between threads).</p>")
    parts.append("<table><tr><th>point</th><th>worker</th><th>instructions / call</th><th>baseline</th>"
                 "<th>baseline's</th><th>added</th><th>spread</th><th>outside the allocator</th><th>its spread</th>"
                 "<th>allocator's</th><th>allocator calls / call</th></tr>" + rows + "</table>")
    for c in _shown(counts):
        if c.added_per_call is None or not c.top_added:
            continue
        parts.append(f"<details><summary>{_esc(c.point.label)} {_esc(c.role)}: {c.added_per_call:+,.1f} "
                     f"instructions per call over {_esc(c.baseline)}</summary><p>{_flame_link(run_dir, folded, c)}"
                     "</p>" + _functions(c) + "</details>")
    jvm = [c for c in counts if c.jvm is not None]
    if jvm:
        parts.append("<h3>JVM targets: the JVM's own counters</h3><p>Not counted: "
                     f"{_esc(jvm[0].not_counted)}.</p><table><tr><th>point</th><th>worker</th>"
                     "<th>bytes allocated / call</th><th>its thread's</th><th>methods compiled / call</th></tr>"
                     + "".join(f"<tr><td>{_esc(c.point.label)}</td><td>{_esc(c.role)}</td>"
                               f"<td class='num'>{c.jvm.allocated_bytes:,.1f}</td>"
                               f"<td class='num'>{_num(c.jvm.thread_allocated_bytes)}</td>"
                               f"<td class='num'>{c.jvm.compiled_methods:.4f}</td></tr>"
                               for c in jvm if c.jvm is not None) + "</table>")
    return "\n".join(parts)
