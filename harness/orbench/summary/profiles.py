"""Where a middleware's time goes: the profile mode's profiles per call, each middleware's minus its baseline's.

From a run's files only (profiles/profiles.jsonl and the folded stacks, results/profile.py; profiled.csv for
the profiled trials' counted CPU time): per point and worker, every function's CPU time per call (self and
total, anatomy/folded.py), and for a middleware the difference against its baseline's profile at the same point
(same mode, payload, placement, host pair), worker by worker: the functions it adds time in, and those in
which it spends less than the baseline.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orbench.anatomy.folded import (
    JIT_COMPILER_FRAME,
    FrameCost,
    FrameDelta,
    Profile,
    deferred_share,
    difference,
    frame_costs,
    kernel_self_ns,
    parse_folded,
    split_off,
)
from orbench.results.point import Point
from orbench.results.profile import ROLES, ProfileRecord, read_records
from orbench.results.store import RunStore


@dataclass(frozen=True)
class WorkerProfile:
    """One worker's profile at one point, per call."""

    record: ProfileRecord
    profile: Profile                # every stack, as the profiler folded them
    costs: dict[str, FrameCost]     # per function, without the JIT compiler's stacks
    counted_cpu_ns: float | None    # the kernel's count of the worker's CPU per call in the same trial
    jit_samples: int = 0            # samples in a JVM's JIT compiler threads (anatomy/folded.JIT_COMPILER_FRAME)

    @property
    def sampled_cpu_ns(self) -> float:
        """The CPU per call the samples add up to, the JIT compiler's left out."""
        return (self.profile.samples - self.jit_samples) * self.profile.period_ns / self.record.calls

    @property
    def jit_share(self) -> float:
        """The share of its samples in the JIT compiler's threads."""
        return self.jit_samples / self.profile.samples if self.profile.samples else 0.0

    @property
    def jit_cpu_ns(self) -> float:
        """The JIT compiler's samples per call, as CPU time."""
        return self.jit_samples * self.profile.period_ns / self.record.calls

    @property
    def deferred_share(self) -> float:
        """The share of its samples taken where interrupts came back on (anatomy/folded.IRQ_REENABLE)."""
        return deferred_share(self.profile)


@dataclass(frozen=True)
class ProfileComparison:
    """One worker of a middleware at one point against the same worker of its baseline."""

    point: Point                    # the middleware's
    role: str
    baseline: str | None
    orb: WorkerProfile | None
    base: WorkerProfile | None
    added: tuple[FrameDelta, ...]   # largest added self time first; empty without both profiles
    why_missing: str | None = None

    @property
    def added_cpu_ns(self) -> float | None:
        if self.orb is None or self.base is None:
            return None
        return self.orb.sampled_cpu_ns - self.base.sampled_cpu_ns

    @property
    def added_kernel_ns(self) -> float | None:
        """The part of the added CPU per call spent in the kernel (_[k] frames)."""
        return kernel_self_ns(list(self.added)) if self.orb and self.base else None

    def top_added(self, n: int) -> list[FrameDelta]:
        return [d for d in self.added if d.self_ns > 0][:n]

    def top_saved(self, n: int) -> list[FrameDelta]:
        return [d for d in reversed(self.added) if d.self_ns < 0][:n]


def load_profile(run_dir: Path, record: ProfileRecord) -> Profile | None:
    if record.file is None or not (run_dir / record.file).is_file():
        return None
    stacks = parse_folded((run_dir / record.file).read_text())
    return Profile(stacks, record.period_ns, record.profiler, record.version, record.event)


def worker_profiles(store: RunStore) -> tuple[dict[tuple[Point, str], WorkerProfile], dict[tuple[Point, str], str]]:
    """Every profiled worker of the run by point and role; and, for those without a profile, why."""
    counted: dict[Point, Any] = {t.point: t for t in store.read_profiled()} if store.profiled_path.exists() else {}
    out: dict[tuple[Point, str], WorkerProfile] = {}
    missing: dict[tuple[Point, str], str] = {}
    for record in read_records(store.path):
        profile = load_profile(store.path, record)
        if profile is None or record.calls <= 0:
            missing[(record.point, record.role)] = record.error or "its folded stacks are missing"
            continue
        trial = counted.get(record.point)
        cpu_us = getattr(trial, f"{record.role}_cpu_us", None) if trial is not None else None
        work, jit = split_off(profile, JIT_COMPILER_FRAME)
        out[(record.point, record.role)] = WorkerProfile(record, profile, frame_costs(work, record.calls),
                                                         None if cpu_us is None else cpu_us * 1000, jit)
    return out, missing


def profile_comparisons(store: RunStore, targets_info: dict[str, Any]) -> list[ProfileComparison]:
    """Every profiled worker of a middleware (a target with a baseline) against its baseline's."""
    profiles, missing = worker_profiles(store)
    points = sorted({p for p, _ in (*profiles, *missing)}, key=lambda p: p.slug)
    out = []
    for point in points:
        base_name = (targets_info.get(point.target) or {}).get("baseline")
        if not base_name:
            continue
        base_point = point.group.with_target(base_name)
        for role in ROLES:
            orb, base = profiles.get((point, role)), profiles.get((base_point, role))
            why = None
            if orb is None:
                why = f"{point.target}: {missing.get((point, role), 'not profiled')}"
            elif base is None:
                why = f"baseline {base_name}: {missing.get((base_point, role), 'not profiled at this point')}"
            added = tuple(difference(orb.costs, base.costs)) if orb and base else ()
            out.append(ProfileComparison(point, role, base_name, orb, base, added, why))
    return out


def format_profile_table(comparisons: list[ProfileComparison], top: int = 8) -> str:
    """Per middleware, point and worker: its sampled CPU per call against the baseline's and the functions with
    the most added time, us per call (the text `orbench profiles` prints)."""
    lines: list[str] = []
    for c in comparisons:
        lines.append(f"{c.point.label} {c.role} (vs {c.baseline})")
        if c.why_missing:
            lines.append(f"  no comparison: {c.why_missing}")
            continue
        assert c.orb is not None and c.base is not None
        lines.append(f"  sampled CPU per call {c.orb.sampled_cpu_ns / 1000:.2f} us vs {c.base.sampled_cpu_ns / 1000:.2f}"
                     f" us: added {(c.added_cpu_ns or 0) / 1000:+.2f} us, {(c.added_kernel_ns or 0) / 1000:+.2f} us of it in"
                     f" the kernel ({c.orb.record.profiler}, "
                     f"{c.orb.profile.samples} and {c.base.profile.samples} samples)")
        lines.extend(f"  {note}" for note in (jit_note(c), deferred_note(c)) if note)
        lines.append(f"  {'added self us/call':>18}  {'added total':>11}  function")
        for d in c.top_added(top):
            lines.append(f"  {d.self_ns / 1000:>+18.3f}  {d.total_ns / 1000:>+11.3f}  {d.frame}")
        for d in c.top_saved(max(1, top // 4)):
            lines.append(f"  {d.self_ns / 1000:>+18.3f}  {d.total_ns / 1000:>+11.3f}  {d.frame} (saved)")
    return "\n".join(lines)


# Past this share of a worker's samples taken where interrupts came back on, a comparison says so: the functions
# the samples name there did not take that time.
DEFERRED_NOTE_SHARE = 0.05


def deferred_note(c: ProfileComparison) -> str:
    """A sentence on the samples taken where interrupts came back on, when either worker has many; else ''."""
    if c.orb is None or c.base is None or max(c.orb.deferred_share, c.base.deferred_share) < DEFERRED_NOTE_SHARE:
        return ""
    return (f"{c.orb.deferred_share:.0%} of its samples and {c.base.deferred_share:.0%} of the baseline's were taken "
            "where interrupts came back on (finish_task_switch, _raw_spin_unlock_irqrestore): time spent with them "
            "off before that point, in this worker or the one it switched from, not in those functions")


def jit_note(c: ProfileComparison) -> str:
    """A sentence on a JVM's JIT compiler running during the trial, when either worker's took 1% of its samples
    or more; else ''."""
    if c.orb is None or c.base is None or max(c.orb.jit_share, c.base.jit_share) < 0.01:
        return ""
    return (f"the JIT compiler took {c.orb.jit_share:.0%} of its samples "
            f"({c.orb.jit_cpu_ns / 1000:.2f} us per call) and {c.base.jit_share:.0%} of "
            f"the baseline's ({c.base.jit_cpu_ns / 1000:.2f} us): the JVM was still compiling; left out of the "
            "figures above and the table")
