"""The counting mode's summary: instructions per call by point and worker, each middleware's against its
baseline's, by function, the known answer in instructions, and what compare and history flag.

From a run's files only (counts/counts.jsonl and the functions' tables, results/counted.py). An instruction count
is exact where the path is deterministic: the counting mode's repeats give each point's spread, 0 for most twoway
points, so two runs of the same build differ by nothing or by that spread, and a change of INSTRUCTION_FLAG_PCT
(0.2%) is flagged (more where a point's own spread is larger: FLAG_SPREAD_FACTOR times it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from orbench.results.counted import CountRecord, read_functions, read_records
from orbench.results.point import Point, PointGroup
from orbench.summary.model import (
    FunctionInstructions,
    InstructionCount,
    InstructionKnownAnswer,
    JvmCounters,
    RunSummary,
)
from orbench.targets.descriptor import PARAMETER_SEPARATOR

# The known answer in instructions must come out within this (the loop's call and return are a few instructions
# beside N x k of at least 10,000).
INSTRUCTION_TOLERANCE_PCT = 0.1
# compare and history: a worker's instructions per call that moved this much is flagged ...
INSTRUCTION_FLAG_PCT = 0.2
# ... or, where the point's repeats spread more (a path that timing changes), this many times that spread.
FLAG_SPREAD_FACTOR = 2.0
# Calls into the allocators per call are the program's own logic, exact: a change of this much of them (at least
# ALLOCATOR_CALLS_MIN, one allocation or free in 20 calls) is flagged, whatever its instructions did.
ALLOCATOR_CALLS_FLAG_PCT = 0.2
ALLOCATOR_CALLS_MIN = 0.05
# The allocators' instructions for the same calls differ from one process to the next (the heap's state, which
# thread timing sets): up to 12.4% between two runs of the same build here (Ice's oneway 1 KB client, paced), so a
# change of twice that is flagged where it is also INSTRUCTION_FLAG_PCT of the worker's count: the same
# allocations made a quarter dearer (a bigger block, a lock) are found; a smaller move is shown, not flagged.
ALLOCATOR_COST_FLAG_PCT = 25.0
TOP_FUNCTIONS = 12
# A flagged row's word, in compare's lines and on the history page.
FLAG_WORDS = {"more": "MORE", "fewer": "FEWER"}
CALLGRIND_METHOD = ("callgrind Ir (user-space instructions), (I(N2) - I(N1)) / (N2 - N1) over count_repeats "
                    "pairs of runs, each in worker processes of its own; of three or more, the median repeat")
KERNEL_NOT_COUNTED = ("kernel work (system calls, the network stack): callgrind counts user space only; the "
                      "anatomy's system calls per call are its measure")
JVM_NOT_COUNTED = ("instructions: a JVM's JIT compiles and recompiles as it runs, so an instruction count under "
                   "valgrind is neither representative nor stable; these are the JVM's own deterministic counters")


def _functions(run_dir: Path, record: CountRecord) -> dict[str, tuple[float, float]]:
    if not record.functions_file or not (run_dir / record.functions_file).is_file():
        return {}
    return {f: (s / record.calls, i / record.calls)
            for f, (s, i) in read_functions(run_dir / record.functions_file).items()}


def top_added(orb: dict[str, tuple[float, float]], base: dict[str, tuple[float, float]],
              n: int = TOP_FUNCTIONS) -> tuple[FunctionInstructions, ...]:
    """The functions with the most added self instructions per call, middleware minus baseline."""
    rows = [FunctionInstructions(f, orb.get(f, (0.0, 0.0))[0] - base.get(f, (0.0, 0.0))[0],
                                 orb.get(f, (0.0, 0.0))[1] - base.get(f, (0.0, 0.0))[1],
                                 orb.get(f, (0.0, 0.0))[0], base.get(f, (0.0, 0.0))[0])
            for f in set(orb) | set(base)]
    rows.sort(key=lambda r: (-r.self_added, r.function))
    return tuple(r for r in rows[:n] if r.self_added > 0)


def _known_answer(record: CountRecord, added: float | None) -> InstructionKnownAnswer | None:
    n, k = record.worker.get("work_iterations"), record.worker.get("instructions_per_iteration")
    if record.role != "server" or not n or not k or added is None:
        return None
    known = int(n) * int(k)
    error = (added - known) / known * 100
    return InstructionKnownAnswer(int(n), int(k), known, round(added, 3), round(error, 4),
                                  abs(error) <= INSTRUCTION_TOLERANCE_PCT)


def _jvm(record: CountRecord) -> JvmCounters | None:
    if record.counter != "jvm":
        return None
    j = record.jvm
    return JvmCounters(round(j.get("allocated_bytes", 0.0), 3), round(j.get("compiled_methods", 0.0), 6),
                       round(j["thread_allocated_bytes"], 3) if "thread_allocated_bytes" in j else None)


def instruction_counts(run_dir: Path, targets_info: dict[str, Any]) -> list[InstructionCount]:
    """Every counted worker of the run, a middleware's against its baseline's at the same point and role."""
    records = {(r.point, r.role): r for r in read_records(run_dir)}
    out = []
    for (point, role), r in sorted(records.items(), key=lambda kv: (kv[0][0].slug, kv[0][1])):
        if r.error:
            out.append(InstructionCount(point, role, r.counter, why_missing=r.error))
            continue
        base_name = (targets_info.get(point.target) or {}).get("baseline")
        base = records.get((point.group.with_target(base_name), role)) if base_name else None
        per_call = r.instructions_per_call
        base_per_call = base.instructions_per_call if base is not None and not base.error else None
        added = per_call - base_per_call if per_call is not None and base_per_call is not None else None
        functions = _functions(run_dir, r)
        split = _allocator_split(r)
        out.append(InstructionCount(
            point, role, r.counter,
            method=CALLGRIND_METHOD if r.counter == "callgrind" else "the JVM's counters, the same difference of runs",
            calls=r.calls, per_call=None if per_call is None else round(per_call, 3),
            repeats=tuple(round(v, 3) for v in r.per_call),
            spread_pct=None if r.spread_pct is None else round(r.spread_pct, 4), **split,
            baseline=base_name, baseline_per_call=None if base_per_call is None else round(base_per_call, 3),
            added_per_call=None if added is None else round(added, 3),
            top_added=top_added(functions, _functions(run_dir, base)) if base is not None and added is not None else (),
            jvm=_jvm(r), known_answer=_known_answer(r, added),
            not_counted=KERNEL_NOT_COUNTED if r.counter == "callgrind" else JVM_NOT_COUNTED))
    return out


def _range(values: tuple[float, ...]) -> float:
    return max(values) - min(values) if len(values) > 1 else 0.0


def _allocator_split(r: CountRecord) -> dict[str, float | None]:
    """A record's allocator fields for its InstructionCount (none for a record without the split)."""
    outside, total = r.outside_allocator, r.instructions_per_call
    if not outside or not total or len(r.allocator_calls) != len(outside):
        return {}
    allocator, calls, outside_mean = (r.central_mean(v) for v in (r.allocator, r.allocator_calls, outside))
    assert allocator is not None and calls is not None and outside_mean is not None
    return {"allocator_per_call": round(allocator, 3),
            "allocator_calls_per_call": round(calls, 4),
            "allocator_calls_spread": round(_range(r.allocator_calls), 4),
            "outside_allocator_per_call": round(outside_mean, 3),
            "outside_allocator_spread_pct": round(_range(outside) / total * 100, 4)}


def _key(c: InstructionCount) -> tuple[Point, str]:
    return (c.point, c.role)


def _descriptor_key(c: InstructionCount) -> tuple[Any, str, str]:
    return (c.point.group, c.point.target.split(PARAMETER_SEPARATOR)[0], c.role)


def flag_threshold_pct(*spreads: float | None) -> float:
    """The change (%) a row needs to be flagged: INSTRUCTION_FLAG_PCT, or FLAG_SPREAD_FACTOR times the largest of
    the spreads (%) it reads where that is more."""
    return max(INSTRUCTION_FLAG_PCT, FLAG_SPREAD_FACTOR * max((s or 0.0 for s in spreads), default=0.0))


def _pairs(a: RunSummary, b: RunSummary) -> list[tuple[InstructionCount, InstructionCount]]:
    """The workers counted in both runs; an instance of a descriptor with a parameter that only one run has at a
    point (c-socket-work@20000 in A, @20200 in B) pairs with the other's when each has exactly one there."""
    counted_a = [c for c in a.instructions if c.per_call]
    counted_b = [c for c in b.instructions if c.per_call is not None]
    by_key = {_key(c): c for c in counted_a}
    pairs = [(by_key[_key(c)], c) for c in counted_b if _key(c) in by_key]
    only_a = [c for c in counted_a if _key(c) not in {_key(x) for x in counted_b} and PARAMETER_SEPARATOR in c.point.target]
    only_b = [c for c in counted_b if _key(c) not in by_key and PARAMETER_SEPARATOR in c.point.target]
    for c in only_b:
        same_a = [x for x in only_a if _descriptor_key(x) == _descriptor_key(c)]
        same_b = [x for x in only_b if _descriptor_key(x) == _descriptor_key(c)]
        if len(same_a) == 1 and len(same_b) == 1:
            pairs.append((same_a[0], c))
    return pairs


def _worker_mode(c: InstructionCount) -> tuple[Point, str]:
    """A worker in one mode: its point without the payload size (nor the parameter's value), and its role."""
    return (replace(c.point, payload_bytes=0, target=c.point.target.split(PARAMETER_SEPARATOR)[0]), c.role)


def _row_spread(c: InstructionCount) -> float:
    """The spread that sets a row's threshold: outside the allocator where split, else the whole count's."""
    if c.outside_allocator_spread_pct is not None:
        return c.outside_allocator_spread_pct
    return c.spread_pct or 0.0


def _pooled(a: RunSummary, b: RunSummary, spread: Callable[[InstructionCount], float]) -> dict[tuple[Point, str], float]:
    """Per worker and mode, the largest `spread` of its counted points in either run. Whether a path hangs on
    timing (a oneway server's batched reads, a polling thread) is the worker's in that mode, not one payload's: two
    repeats can fall close at one size by chance (omniORBpy's oneway server: 0.1% at 1 KB, 8.6% at 32 KB)."""
    out: dict[tuple[Point, str], float] = {}
    for c in (*a.instructions, *b.instructions):
        if c.per_call is not None:
            key = _worker_mode(c)
            out[key] = max(out.get(key, 0.0), spread(c))
    return out


def _has_split(c: InstructionCount) -> bool:
    return c.outside_allocator_per_call is not None and c.allocator_calls_per_call is not None


def _calls_spread_pct(c: InstructionCount) -> float:
    """The range of a point's calls into the allocator per call, % of them."""
    if not c.allocator_calls_per_call or not c.allocator_calls_spread:
        return 0.0
    return c.allocator_calls_spread / c.allocator_calls_per_call * 100


def allocator_calls_threshold(a: InstructionCount, b: InstructionCount, worker_pct: float = 0.0) -> float:
    """The change in calls into the allocator per call that is flagged: ALLOCATOR_CALLS_FLAG_PCT of them, at
    least ALLOCATOR_CALLS_MIN, or FLAG_SPREAD_FACTOR times the larger of the runs' own ranges and the worker's in
    that mode (worker_pct, % of them)."""
    calls = a.allocator_calls_per_call or 0.0
    spread = max(a.allocator_calls_spread or 0.0, b.allocator_calls_spread or 0.0, worker_pct / 100 * calls)
    return max(ALLOCATOR_CALLS_FLAG_PCT / 100 * calls, ALLOCATOR_CALLS_MIN, FLAG_SPREAD_FACTOR * spread)


def allocator_cost_moved(allocator: float, change: float, per_call: float) -> bool:
    """The allocators' instructions per call moved by ALLOCATOR_COST_FLAG_PCT of themselves and by
    INSTRUCTION_FLAG_PCT of the worker's whole count (a few instructions of a cheap allocator are not a change)."""
    return (abs(change) >= ALLOCATOR_COST_FLAG_PCT / 100 * abs(allocator)
            and abs(change) >= INSTRUCTION_FLAG_PCT / 100 * per_call)


def compare_instructions(a: RunSummary, b: RunSummary) -> list[dict[str, Any]]:
    """Every worker counted in both runs: its instructions per call in each, the change, and a flag when the
    change reaches flag_threshold_pct (exact counts: no test, the threshold is the spread the runs show).

    Where both runs split off the allocators (glibc's, CPython's object allocator), the flag reads the
    instructions outside them (% of the worker's instructions per call, against the outside part's own spread),
    the calls into them per call, and their own instructions only at ALLOCATOR_COST_FLAG_PCT: the same calls cost
    up to 12% more or fewer of them from one process to the next (the heap's state, set by thread timing). The
    spread a threshold reads is the larger of the row's own and its worker's in that mode at any payload
    (_pooled)."""
    rows = []
    pooled, pooled_calls = _pooled(a, b, _row_spread), _pooled(a, b, _calls_spread_pct)
    for old, c in _pairs(a, b):
        assert old.per_call and c.per_call is not None
        worker = pooled.get(_worker_mode(c), 0.0)
        change = (c.per_call - old.per_call) / old.per_call * 100
        target = c.point.target if old.point == c.point else f"{old.point.target} / {c.point.target}"
        row: dict[str, Any] = {**c.point.as_record(), "target": target, "role": c.role, "a": old.per_call,
                               "b": c.per_call, "change_pct": round(change, 4)}
        if _has_split(old) and _has_split(c):
            assert old.outside_allocator_per_call is not None and c.outside_allocator_per_call is not None
            assert old.allocator_calls_per_call is not None and c.allocator_calls_per_call is not None
            outside = (c.outside_allocator_per_call - old.outside_allocator_per_call) / old.per_call * 100
            threshold = flag_threshold_pct(old.outside_allocator_spread_pct, c.outside_allocator_spread_pct, worker)
            calls = c.allocator_calls_per_call - old.allocator_calls_per_call
            calls_threshold = allocator_calls_threshold(old, c, pooled_calls.get(_worker_mode(c), 0.0))
            row.update({"outside_allocator_a": old.outside_allocator_per_call,
                        "outside_allocator_b": c.outside_allocator_per_call,
                        "outside_allocator_change_pct": round(outside, 4), "threshold_pct": round(threshold, 4),
                        "allocator_a": old.allocator_per_call, "allocator_b": c.allocator_per_call,
                        "allocator_calls_a": old.allocator_calls_per_call,
                        "allocator_calls_b": c.allocator_calls_per_call,
                        "allocator_calls_threshold": round(calls_threshold, 4)})
            cost = (c.allocator_per_call or 0.0) - (old.allocator_per_call or 0.0)
            if abs(outside) >= threshold:
                row["flag"] = "more" if outside > 0 else "fewer"
            elif abs(calls) >= calls_threshold:
                row["flag"] = "more" if calls > 0 else "fewer"
            elif allocator_cost_moved(old.allocator_per_call or 0.0, cost, old.per_call):
                row["flag"] = "more" if cost > 0 else "fewer"
        else:
            threshold = flag_threshold_pct(old.spread_pct, c.spread_pct, worker)
            row["threshold_pct"] = round(threshold, 4)
            if abs(change) >= threshold:
                row["flag"] = "more" if change > 0 else "fewer"
        row["spread_pct"] = round(max(_row_spread(old), _row_spread(c)), 4)
        row["worker_spread_pct"] = round(worker, 4)
        rows.append(row)
    return rows


def format_instruction_rows(rows: list[dict[str, Any]]) -> list[str]:
    """compare's lines for the instruction counts."""
    if not rows:
        return []
    lines = ["", f"instructions per call (callgrind, exact; flagged at {INSTRUCTION_FLAG_PCT:g}% or "
                 f"{FLAG_SPREAD_FACTOR:g}x the spread of the point or its worker in that mode; where split, outside the "
                 f"allocators, their calls per call at {ALLOCATOR_CALLS_FLAG_PCT:g}% (at least {ALLOCATOR_CALLS_MIN:g}) "
                 f"and their instructions at {ALLOCATOR_COST_FLAG_PCT:g}%):"]
    for r in rows:
        label = PointGroup.from_record(r).label
        flag = FLAG_WORDS.get(r.get("flag", ""), "")
        line = f"  {label} {r['target']} {r['role']}: {r['a']:,.1f} -> {r['b']:,.1f} ({r['change_pct']:+.3f}%"
        if "outside_allocator_change_pct" in r:
            line += (f"; outside the allocator {r['outside_allocator_change_pct']:+.3f}%, threshold "
                     f"{r['threshold_pct']:g}%; allocator {r['allocator_a']:,.1f} -> {r['allocator_b']:,.1f} "
                     f"instructions, {r['allocator_calls_a']:.3f} -> {r['allocator_calls_b']:.3f} calls)")
        else:
            line += f", threshold {r['threshold_pct']:g}%)"
        if r.get("worker_spread_pct", 0.0) > r.get("spread_pct", 0.0):
            line += f" [its spread {r['spread_pct']:g}%, its worker's in this mode {r['worker_spread_pct']:g}%]"
        lines.append(f"{line} {flag}".rstrip())
    flagged = sum(1 for r in rows if r.get("flag"))
    lines.append(f"{len(rows)} counted worker(s) in both runs, {flagged} flagged")
    return lines


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def format_instruction_table(counts: tuple[InstructionCount, ...] | list[InstructionCount]) -> str:
    """The counting mode's table: per point and worker, instructions per call, the baseline's and the added."""
    lines = [f"{'point':<48} {'role':<6} {'instr/call':>12} {'baseline':>12} {'added':>12} {'spread':>8} "
             f"{'allocator':>10} {'its calls':>9} {'rest spread':>11}"]
    for c in counts:
        if c.why_missing:
            if c.role == "client":
                lines.append(f"{c.point.label:<48} {c.role:<6} not counted: {c.why_missing}")
            continue
        if c.jvm is not None:
            thread = "" if c.jvm.thread_allocated_bytes is None else f", {c.jvm.thread_allocated_bytes:,.1f} B its thread"
            lines.append(f"{c.point.label:<48} {c.role:<6} JVM: {c.jvm.allocated_bytes:,.1f} B allocated{thread}, "
                         f"{c.jvm.compiled_methods:.4f} methods compiled per call")
            continue
        spread = "-" if c.spread_pct is None else f"{c.spread_pct:.3f}%"
        calls = "-" if c.allocator_calls_per_call is None else f"{c.allocator_calls_per_call:.3f}"
        rest = "-" if c.outside_allocator_spread_pct is None else f"{c.outside_allocator_spread_pct:.3f}%"
        lines.append(f"{c.point.label:<48} {c.role:<6} {_fmt(c.per_call):>12} {_fmt(c.baseline_per_call):>12} "
                     f"{_fmt(c.added_per_call):>12} {spread:>8} {_fmt(c.allocator_per_call):>10} {calls:>9} "
                     f"{rest:>11}")
        if c.known_answer is not None:
            k = c.known_answer
            lines.append(f"{'':<48} known answer: {k.iterations} x {k.instructions_per_iteration} = {k.known:,} "
                         f"added, recovered {k.recovered:,.1f} ({k.error_pct:+.4f}%, "
                         f"{'within' if k.within_tolerance else 'OUTSIDE'} {INSTRUCTION_TOLERANCE_PCT:g}%)")
    return "\n".join(lines)


def format_function_table(counts: list[InstructionCount], top: int = TOP_FUNCTIONS) -> str:
    """`orbench profiles` of a counting run: per middleware, point and worker, the functions that add the most
    instructions per call over the baseline."""
    lines = []
    for c in counts:
        if c.added_per_call is None or c.baseline is None:
            continue
        lines.append(f"{c.point.label} {c.role} (vs {c.baseline}): {c.per_call:,.1f} instructions per call against "
                     f"{c.baseline_per_call:,.1f}, added {c.added_per_call:+,.1f} (callgrind, exact, user space)")
        lines.append(f"  {'added self':>12}  {'added incl.':>12}  function")
        for f in c.top_added[:top]:
            lines.append(f"  {f.self_added:>+12,.1f}  {f.inclusive_added:>+12,.1f}  {f.function}")
    return "\n".join(lines)
