"""How busy the machine was during a trial, and where the workers were really allowed to run.

The 1-minute load average lags by a minute and counts the benchmark's own runnable worker, so each trial also
records, from /proc/stat deltas over the trial, the busy share of the CPUs the placement did not pin a worker to
(other work on the machine) and the steal share (the hypervisor gave our vCPUs to someone else).
"""

from __future__ import annotations

from pathlib import Path


def cpu_times() -> dict[int, tuple[int, int, int]]:
    """Per CPU: (busy, total, steal) jiffies since boot; empty where /proc/stat is missing."""
    out: dict[int, tuple[int, int, int]] = {}
    try:
        lines = Path("/proc/stat").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        parts = line.split()
        if not parts or not parts[0].startswith("cpu") or parts[0] == "cpu":
            continue
        v = [int(x) for x in parts[1:]]
        idle = v[3] + (v[4] if len(v) > 4 else 0)  # idle + iowait
        steal = v[7] if len(v) > 7 else 0
        total = sum(v[:8])
        out[int(parts[0][3:])] = (total - idle - steal, total, steal)
    return out


def parse_cpu_list(text: str | None) -> set[int]:
    """A taskset / Cpus_allowed_list CPU list such as "0-2,5" as a set."""
    cpus: set[int] = set()
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-")
            cpus.update(range(int(a), int(b) + 1))
        else:
            cpus.add(int(part))
    return cpus


def trial_load(before: dict[int, tuple[int, int, int]], after: dict[int, tuple[int, int, int]],
               pinned: set[int]) -> dict[str, float | str]:
    """Busy % of the CPUs outside `pinned` and steal % of all CPUs between two cpu_times() readings."""
    other_busy = other_total = steal = total = 0
    for cpu, (b1, t1, s1) in after.items():
        b0, t0, s0 = before.get(cpu, (b1, t1, s1))
        steal += s1 - s0
        total += t1 - t0
        if pinned and cpu not in pinned:
            other_busy += b1 - b0
            other_total += t1 - t0
    return {
        "other_cpus_busy_pct": round(100.0 * other_busy / other_total, 1) if other_total > 0 else "",
        "steal_pct": round(100.0 * steal / total, 2) if total > 0 else "",
    }


def cpus_allowed(pid: int) -> str | None:
    """The CPU list the kernel lets a process run on (what pinning really achieved), None if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Cpus_allowed_list:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None
