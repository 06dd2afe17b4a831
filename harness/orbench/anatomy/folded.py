"""Folded stacks and what they cost per call: the profile mode's arithmetic, on plain data.

A folded stack is the text flame graph tools read (`root;caller;leaf count`, one stack a line). A profile's
stacks were sampled every `period_ns` of CPU time, so a frame's samples x period / the trial's calls is its
CPU time per call: `self` where the frame was the leaf (time spent in it), `total` where it was anywhere on
the stack (time spent in it and what it called). The difference of two such views at the same point (a
middleware minus its baseline) says which functions the middleware adds time in, and which it saves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

# The annotations async-profiler appends to a Java frame (JIT-compiled, inlined, interpreted, C1): part of its
# name in the flame graph (its colour), not of its identity, since a method's compilation differs from run to run.
# The kernel's mark (_[k], from async-profiler and perf here alike) stays: it says where a function runs.
_ANNOTATION = re.compile(r"_\[[ji0-9]\]$")
KERNEL_MARK = "_[k]"
# Kernel functions that turn interrupts back on: after a context switch, and where a lock taken with interrupts
# off is let go. A sampling timer that is an interrupt itself (perf's and async-profiler's cpu-clock, the only
# clock in a VM without a hardware PMU) cannot fire while they are off: a sample due then is taken at the next of
# these, so their self time is time spent with interrupts off before them, in this task or the one switched from.
IRQ_REENABLE = frozenset({"finish_task_switch", "_raw_spin_unlock_irqrestore", "_raw_spin_unlock_irq"})
# Every stack of a HotSpot JIT compiler thread passes here: its samples are the JVM compiling code during the
# trial, not work a call does.
JIT_COMPILER_FRAME = "CompileBroker::compiler_thread_loop"


@dataclass(frozen=True)
class Profile:
    """One worker's stacks over one trial."""

    stacks: dict[str, int]   # folded stack (root first, ';' between frames) -> samples
    period_ns: int           # CPU time one sample stands for
    profiler: str            # perf, async-profiler, py-spy
    version: str             # the profiler's own word on its version
    event: str               # what was sampled (cpu-clock, cpu-clock:u, cpu, wall-clock)

    @property
    def samples(self) -> int:
        return sum(self.stacks.values())


@dataclass(frozen=True)
class FrameCost:
    """One function's CPU time per call, ns."""

    frame: str
    self_ns: float
    total_ns: float


@dataclass(frozen=True)
class FrameDelta:
    """One function's time per call in a middleware's profile minus its baseline's, ns (positive: added)."""

    frame: str
    self_ns: float           # middleware's self time minus the baseline's
    total_ns: float
    orb_self_ns: float
    base_self_ns: float


def parse_folded(text: str) -> dict[str, int]:
    """`stack count` lines -> stack -> samples (a stack seen twice is summed; malformed lines are skipped)."""
    stacks: dict[str, int] = {}
    for line in text.splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        if stack and count.isdigit() and int(count) > 0:
            stacks[stack] = stacks.get(stack, 0) + int(count)
    return stacks


def folded_text(stacks: dict[str, int]) -> str:
    """The folded-stack text flame graph tools (and speedscope) read, heaviest stacks first."""
    return "".join(f"{s} {n}\n" for s, n in sorted(stacks.items(), key=lambda item: (-item[1], item[0])))


def frame_name(frame: str) -> str:
    """A frame's identity across profiles: its name without the profiler's annotation."""
    return _ANNOTATION.sub("", frame)


def frame_costs(profile: Profile, calls: int) -> dict[str, FrameCost]:
    """Every function's self and total CPU time per call, ns, by name; a function on a stack twice (recursion)
    counts once in its total."""
    if calls <= 0:
        raise ValueError("a profile's calls must be positive")
    self_samples: dict[str, int] = {}
    total_samples: dict[str, int] = {}
    for stack, n in profile.stacks.items():
        frames = [frame_name(f) for f in stack.split(";")]
        self_samples[frames[-1]] = self_samples.get(frames[-1], 0) + n
        for f in set(frames):
            total_samples[f] = total_samples.get(f, 0) + n
    scale = profile.period_ns / calls
    return {f: FrameCost(f, self_samples.get(f, 0) * scale, total * scale) for f, total in total_samples.items()}


def cpu_per_call_ns(profile: Profile, calls: int) -> float:
    """The process's sampled CPU time per call, ns."""
    return profile.samples * profile.period_ns / calls


def share(profile: Profile, frame: str) -> float:
    """The share of the profile's samples with the function anywhere on the stack."""
    total = profile.samples
    if total == 0:
        return 0.0
    hit = sum(n for stack, n in profile.stacks.items() if frame in {frame_name(f) for f in stack.split(";")})
    return hit / total


def split_off(profile: Profile, frame: str) -> tuple[Profile, int]:
    """The profile without the stacks that have `frame` anywhere, and how many samples those stacks had."""
    kept = {stack: n for stack, n in profile.stacks.items() if frame not in stack.split(";")}
    return replace(profile, stacks=kept), profile.samples - sum(kept.values())


def deferred_share(profile: Profile) -> float:
    """The share of the profile's samples taken where interrupts came back on (their leaf an IRQ_REENABLE kernel
    function, whatever the compiler's suffix: finish_task_switch.isra.0): samples that came due while interrupts
    were off, somewhere before that point."""
    total = profile.samples
    if total == 0:
        return 0.0
    return sum(n for stack, n in profile.stacks.items() if _reenables(stack.rpartition(";")[2])) / total


def _reenables(frame: str) -> bool:
    return frame.endswith(KERNEL_MARK) and frame[:-len(KERNEL_MARK)].partition(".")[0] in IRQ_REENABLE


def kernel_self_ns(deltas: list[FrameDelta]) -> float:
    """The part of the added self time spent in the kernel (system calls, scheduling, the network stack)."""
    return sum(d.self_ns for d in deltas if d.frame.endswith(KERNEL_MARK))


def difference(orb: dict[str, FrameCost], base: dict[str, FrameCost]) -> list[FrameDelta]:
    """Every function's per-call time in the middleware's profile minus the baseline's, largest added self time
    first (what the middleware saves, negative, last)."""
    zero = FrameCost("", 0.0, 0.0)
    out = [FrameDelta(f, orb.get(f, zero).self_ns - base.get(f, zero).self_ns,
                      orb.get(f, zero).total_ns - base.get(f, zero).total_ns,
                      orb.get(f, zero).self_ns, base.get(f, zero).self_ns)
           for f in sorted(set(orb) | set(base))]
    return sorted(out, key=lambda d: (-d.self_ns, d.frame))
