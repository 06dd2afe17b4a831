"""What differs between the environments of two runs: kernel, CPU, placement, JDK, ORB versions, orbench's
commit. Two runs compared across such a difference measure two things at once, so a comparison names each one
(OpenDDS's performance dashboard keys every result by an environment hash for the same reason)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# What environment_differences calls a change of orbench's own code.
COMMIT = "orbench commit"
HOST_FACTS = (("kernel", "kernel"), ("cpu_model", "CPU model"), ("logical_cpus", "logical CPUs"),
              ("governor", "CPU frequency governor"), ("java_version", "JDK"))


@dataclass(frozen=True)
class Difference:
    what: str
    a: Any
    b: Any

    def text(self) -> str:
        return f"{self.what}: {self.a!r} vs {self.b!r}"


def _placements(manifest: dict) -> dict[str, str]:
    return {p.get("name", "?"): f"server CPUs {p.get('server_cpus')}, client CPUs {p.get('client_cpus')}"
            for p in manifest.get("placements", [])}


def _orb_versions(manifest: dict) -> dict[str, str]:
    """Per target, the ORB and runtime its workers reported (every placement and role alike, or all of them)."""
    out: dict[str, str] = {}
    for name, info in (manifest.get("targets") or {}).items():
        seen = set()
        for workers in (info.get("workers") or {}).values():
            for role in ("server", "client"):
                w = (workers or {}).get(role) or {}
                if w.get("orb_version") or w.get("runtime"):
                    seen.add(" ".join(str(x) for x in (w.get("orb"), w.get("orb_version"), w.get("runtime")) if x))
        if seen:
            out[name] = "; ".join(sorted(seen))
    return out


def environment_differences(a: dict, b: dict) -> list[Difference]:
    """The differences between two runs' manifests that can move latency; empty when none is seen."""
    out = []
    # environment.host: the machine's facts in the host script's keys (upgrade.py brings older runs to them)
    fa, fb = (a.get("environment") or {}).get("host") or {}, (b.get("environment") or {}).get("host") or {}
    for key, what in HOST_FACTS:
        if fa.get(key) != fb.get(key):
            out.append(Difference(what, fa.get(key), fb.get(key)))
    pa, pb = _placements(a), _placements(b)
    for name in sorted(set(pa) & set(pb)):
        if pa[name] != pb[name]:
            out.append(Difference(f"placement {name}", pa[name], pb[name]))
    va, vb = _orb_versions(a), _orb_versions(b)
    for target in sorted(set(va) & set(vb)):
        if va[target] != vb[target]:
            out.append(Difference(f"{target} version", va[target], vb[target]))
    out += _counting_differences(a.get("counting"), b.get("counting"))
    ga, gb = (a.get("environment") or {}).get("git") or {}, (b.get("environment") or {}).get("git") or {}
    if (ga.get("commit"), ga.get("dirty")) != (gb.get("commit"), gb.get("dirty")):
        out.append(Difference(COMMIT, _commit(ga), _commit(gb)))
    return out


def _counting_differences(a: dict | None, b: dict | None) -> list[Difference]:
    """Two counting-mode runs' pace and counting-only server arguments per target: a oneway server's count moves
    with the pace (closed loop it reads requests in batches), so instructions compared across them differ for
    that reason too. A run from before pacing has no rates_hz: its calls ran closed loop (0); one from before the
    workers' placement has none: they ran where the kernel put them."""
    if a is None or b is None:
        return []
    out = []
    pa, pb = (c.get("placement", "unplaced (before placement was recorded)") for c in (a, b))
    if pa != pb:
        out.append(Difference("the counted workers' placement", pa, pb))
    for target in sorted(set(a.get("runs") or {}) & set(b.get("runs") or {})):
        ra, rb = ((c.get("rates_hz") or {}).get(target, 0.0) for c in (a, b))
        if ra != rb:
            out.append(Difference(f"{target}'s counted calls per second (0: closed loop)", ra, rb))
        sa, sb = (((c.get("server_args") or {}).get(target) or {}).get("args", []) for c in (a, b))
        if sa != sb:
            out.append(Difference(f"{target}'s counting-mode server arguments", sa, sb))
    return out


def _commit(git: dict) -> str | None:
    commit = git.get("commit")
    if commit is None:
        return None
    return commit[:12] + (" (uncommitted changes)" if git.get("dirty") else "")
