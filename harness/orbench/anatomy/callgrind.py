"""Callgrind's counts, read from its output files: the counting mode's arithmetic, on plain data.

Callgrind (valgrind --tool=callgrind) executes a process on a synthetic CPU and counts every instruction it runs
in user space (event Ir), per function: `self` (instructions in the function's own code) and, from its call
graph, the inclusive cost of every call it made. A dump holds the counts since the previous dump (callgrind zeroes
them after each), so two dumps that bracket a run of N calls hold that run's instructions; the counting mode
differences two such runs (counted.py) so that what is not per call cancels.

The file format is callgrind's own ("Callgrind Format Specification" in the valgrind manual): `fn=` starts a
function's cost lines (`position cost`), `cfn=`/`calls=` a call from it whose next cost line is the call's
inclusive cost; names are compressed (`(id) name` the first time, `(id)` after).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_COMPRESSED = re.compile(r"^\((\d+)\)(?: (.*))?$")
# A branch of a flame graph below this share of the whole is not followed further (its instructions stay with the
# function it leaves): a flame graph cannot draw it, and a call graph with cycles (gRPC's, CPython's) splits into
# more paths than can be written (100 MB of folded stacks per worker, unpruned).
FOLD_MIN_SHARE = 0.002


@dataclass(frozen=True)
class Dump:
    """One callgrind dump: instructions by function, and the call graph's edges with their inclusive cost."""

    total: int                                   # the dump's `totals:` (every instruction of the interval)
    self_cost: dict[str, int]                    # function -> instructions in its own code
    calls: dict[tuple[str, str], int]            # (caller, callee) -> inclusive instructions of those calls
    call_counts: dict[tuple[str, str], int] = field(default_factory=dict)  # (caller, callee) -> how many calls

    def inclusive(self) -> dict[str, int]:
        """Every function's own instructions plus those of the calls it made (a recursive call's cost, which
        callgrind names apart as `f'2`, counted once per level)."""
        out = dict(self.self_cost)
        for (caller, _), cost in self.calls.items():
            out[caller] = out.get(caller, 0) + cost
        return out


class CallgrindFormatError(ValueError):
    pass


def parse_dump(text: str, source: str = "callgrind output") -> Dump:
    """A callgrind output file (events Ir, any position compression) -> its Dump. Raises CallgrindFormatError
    naming the source for a file that is not callgrind's or has no totals."""
    names: dict[str, dict[str, str]] = {"fn": {}}
    self_cost: dict[str, int] = {}
    calls: dict[tuple[str, str], int] = {}
    call_counts: dict[tuple[str, str], int] = {}
    total: int | None = None
    positions = 1
    fn = ""
    callee: str | None = None
    pending_call = False
    events_seen = False
    for number, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        head = line[0]
        if head.isdigit() or head in "+-*":
            fields = line.split()
            if len(fields) <= positions:
                continue
            cost = int(fields[positions])
            if pending_call and callee is not None:
                calls[(fn, callee)] = calls.get((fn, callee), 0) + cost
                pending_call, callee = False, None
            else:
                self_cost[fn] = self_cost.get(fn, 0) + cost
            continue
        key, _, value = line.partition("=")
        if key in ("fn", "cfn"):
            name = _name(names["fn"], value, source, number)
            if key == "fn":
                fn, callee, pending_call = name, None, False
            else:
                callee = name
        elif key == "calls":
            pending_call = True
            count = value.split(maxsplit=1)
            if callee is not None and count:
                call_counts[(fn, callee)] = call_counts.get((fn, callee), 0) + int(count[0])
        elif line.startswith("positions:"):
            positions = len(line.split(":", 1)[1].split())
        elif line.startswith("events:"):
            events = line.split(":", 1)[1].split()
            if not events or events[0] != "Ir":
                raise CallgrindFormatError(f"{source}: line {number}: events {events}, not Ir first")
            events_seen = True
        elif line.startswith("totals:"):
            total = int(line.split(":", 1)[1].split()[0])
    if not events_seen or total is None:
        raise CallgrindFormatError(f"{source}: not a callgrind dump (no events: or totals: line)")
    return Dump(total, self_cost, calls, call_counts)


def _name(table: dict[str, str], value: str, source: str, number: int) -> str:
    m = _COMPRESSED.match(value)
    if not m:
        return value
    ident, name = m.group(1), m.group(2)
    if name is not None:
        table[ident] = name
        return name
    if ident not in table:
        raise CallgrindFormatError(f"{source}: line {number}: function ({ident}) used before it was named")
    return table[ident]


def read_dump(path: Path) -> Dump:
    return parse_dump(path.read_text(errors="replace"), str(path))


@dataclass(frozen=True)
class FunctionCount:
    """One function's instructions over the differenced calls (the longer run's minus the shorter's)."""

    function: str
    self_instructions: int
    inclusive_instructions: int


@dataclass(frozen=True)
class Difference:
    """The instructions of `calls` calls: a dump of a run of N2 calls minus one of N1 (N2 - N1 = calls), whole
    and by function, and its call graph's edges."""

    calls: int
    total: int
    functions: dict[str, FunctionCount]
    edges: dict[tuple[str, str], int]
    edge_calls: dict[tuple[str, str], int] = field(default_factory=dict)  # (caller, callee) -> calls made

    @property
    def per_call(self) -> float:
        return self.total / self.calls


def difference(longer: Dump, shorter: Dump, calls: int) -> Difference:
    """`longer` minus `shorter`, whose runs differ by `calls` calls (positive)."""
    if calls <= 0:
        raise ValueError("the differenced runs must differ by at least one call")
    long_incl, short_incl = longer.inclusive(), shorter.inclusive()
    functions = {}
    for f in set(long_incl) | set(short_incl):
        s = longer.self_cost.get(f, 0) - shorter.self_cost.get(f, 0)
        i = long_incl.get(f, 0) - short_incl.get(f, 0)
        if s or i:
            functions[f] = FunctionCount(f, s, i)
    edges = {e: c for e in set(longer.calls) | set(shorter.calls)
             if (c := longer.calls.get(e, 0) - shorter.calls.get(e, 0))}
    edge_calls = {e: c for e in set(longer.call_counts) | set(shorter.call_counts)
                  if (c := longer.call_counts.get(e, 0) - shorter.call_counts.get(e, 0))}
    return Difference(calls, longer.total - shorter.total, functions, edges, edge_calls)


def folded_stacks(diff: Difference, max_depth: int = 64) -> dict[str, int]:
    """Folded stacks (`root;...;leaf` -> instructions) from a difference's call graph, for a flame graph.

    A call graph keeps one level of context: a function's cost is known per caller, its callees' not per path. So
    each function's own instructions and calls are split among the paths that reach it in proportion to the
    inclusive cost each path brings (exact at depth one, an estimate deeper); the table of self and inclusive
    instructions is exact. A function already on the path (recursion) ends the path there, its cost kept as the
    caller's own, and so does a call below FOLD_MIN_SHARE of the whole. Roots are the functions nobody called in
    the interval (thread starts, below main)."""
    incl = {f: max(c.inclusive_instructions, 0) for f, c in diff.functions.items()}
    smallest = max(1.0, FOLD_MIN_SHARE * max(diff.total, 0))
    own = {f: max(c.self_instructions, 0) for f, c in diff.functions.items()}
    callees: dict[str, list[tuple[str, int]]] = {}
    called: set[str] = set()
    for (caller, callee), cost in diff.edges.items():
        if cost > 0 and caller != callee:
            callees.setdefault(caller, []).append((callee, cost))
            called.add(callee)
    stacks: dict[str, float] = {}

    def walk(path: tuple[str, ...], weight: float) -> None:
        f = path[-1]
        outgoing = callees.get(f, [])
        flowing = own.get(f, 0) + sum(c for _, c in outgoing)
        if flowing <= 0:
            return
        scale = weight / flowing
        kept = own.get(f, 0) * scale
        for callee, cost in outgoing:
            share = cost * scale
            if share < smallest or callee in path or len(path) >= max_depth:
                kept += share
            else:
                walk(path + (callee,), share)
        if kept > 0:
            key = ";".join(path)
            stacks[key] = stacks.get(key, 0.0) + kept

    for root in sorted(f for f in incl if f not in called and incl[f] > 0):
        walk((root,), float(incl[root]))
    return {s: round(n) for s, n in stacks.items() if round(n) > 0}


# The allocators: glibc's malloc and CPython's object allocator (pymalloc, whose pools and arenas sit inside
# _PyObject_Malloc and _PyObject_Free), their entry points and what they call inside them. Their instructions per
# call hang on the heap's state (which thread's tcache a chunk went back to, the bins' order, which pool a block
# frees into), which two processes' thread timing makes differently: the same calls cost ~10% more or fewer
# allocator instructions from one process to the next (omniORBpy's twoway server, paced: 20 instructions per call
# of _PyObject_Free apart, nothing else over 1).
ALLOCATOR_ENTRIES = frozenset({"malloc", "free", "cfree", "realloc", "calloc", "memalign", "posix_memalign",
                               "aligned_alloc", "valloc", "pvalloc", "__libc_malloc", "__libc_free",
                               "__libc_realloc", "__libc_calloc", "__libc_memalign", "_mid_memalign",
                               "__posix_memalign", "__malloc_arena_thread_freeres",
                               "PyObject_Malloc", "PyObject_Calloc", "PyObject_Realloc", "PyObject_Free",
                               "PyMem_Malloc", "PyMem_Calloc", "PyMem_Realloc", "PyMem_Free",
                               "_PyObject_Malloc", "_PyObject_Calloc", "_PyObject_Realloc", "_PyObject_Free"})
_ALLOCATOR_INTERNAL = re.compile(r"^(_int_\w+|_mid_memalign\S*|unlink_chunk\S*|malloc_consolidate|alloc_perturb|"
                                 r"sysmalloc|systrim|tcache_\w+|arena_get2|arena_get_retry|alloc_new_heap|new_heap|"
                                 r"grow_heap|shrink_heap|heap_trim|reused_arena|get_free_list|"
                                 r"__malloc_arena_thread_freeres|mremap_chunk|munmap_chunk|"
                                 r"pymalloc_\w+|allocate_from_new_pool|insert_to_usedpool|insert_to_freepool|new_arena|"
                                 r"_PyObject_Arena\w+|arena_map_\w+)$")


def _base(function: str) -> str:
    """A function's name without callgrind's recursion level (`f'2` is f)."""
    return function.split("'", 1)[0]


def in_allocator(function: str) -> bool:
    name = _base(function)
    return name in ALLOCATOR_ENTRIES or bool(_ALLOCATOR_INTERNAL.match(name))


@dataclass(frozen=True)
class AllocatorShare:
    """What a difference spent in glibc's allocator: its calls into it (exact: the program's own logic) and the
    inclusive instructions of those calls (its heap's state: timing-dependent)."""

    calls: int
    instructions: int


def allocator_share(diff: Difference) -> AllocatorShare:
    """The calls into glibc's allocator from outside it, and their inclusive instructions."""
    calls = sum(n for (caller, callee), n in diff.edge_calls.items()
                if in_allocator(callee) and not in_allocator(caller))
    cost = sum(c for (caller, callee), c in diff.edges.items() if in_allocator(callee) and not in_allocator(caller))
    return AllocatorShare(calls, cost)
