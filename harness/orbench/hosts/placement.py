"""CPU placement of a server and its client: pinning with taskset, and what was actually used.

On a small VM, placement dominates latency: two processes on one vCPU hand over in a few microseconds, on two
vCPUs an idle vCPU must wake first (tens of microseconds). So every point records its placement, and a baseline
is only ever subtracted from an ORB measured with the same placement.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

from orbench.errors import UserError


@dataclass(frozen=True)
class Placement:
    name: str
    server_cpus: str | None  # taskset CPU list, None = not pinned
    client_cpus: str | None

    def prefix(self, role: str) -> list[str]:
        cpus = self.server_cpus if role == "server" else self.client_cpus
        return ["taskset", "-c", cpus] if cpus is not None else []

    def cpus(self, role: str) -> set[int]:
        """The CPUs a role's worker is pinned to; empty when not pinned."""
        return parse_cpu_list(self.server_cpus if role == "server" else self.client_cpus)

    def worker_cpus(self) -> set[int]:
        """Every CPU of this machine either worker may run on: the pinned ones, all of them when unpinned."""
        return self.cpus("server") | self.cpus("client") or set(available_cpus())

    def as_dict(self) -> dict:
        return {"name": self.name, "server_cpus": self.server_cpus, "client_cpus": self.client_cpus,
                "pinned": self.server_cpus is not None}


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


def available_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def resolve(name: str) -> Placement:
    """A placement on this machine, where both workers run."""
    if name != "unpinned" and shutil.which("taskset") is None:
        raise UserError(f"placement {name!r} needs taskset (apt-get install util-linux), or use 'unpinned'")
    cpus = available_cpus()
    return resolve_on(name, cpus, cpus)


def resolve_on(name: str, server_cpus: list[int], client_cpus: list[int]) -> Placement:
    """The placement rule, given the CPUs each worker's host lets it use: same-core pins each worker to its
    host's highest usable CPU (on one host: both on one CPU), split-core puts the server one CPU lower. The
    highest CPUs, because CPU 0 takes most interrupts."""
    if name == "unpinned":
        return Placement(name, None, None)
    if name == "same-core":
        return Placement(name, str(server_cpus[-1]), str(client_cpus[-1]))
    if name == "split-core":
        if len(server_cpus) < 2:
            raise UserError(f"placement 'split-core' needs two CPUs on the server host; it has {server_cpus}")
        return Placement(name, str(server_cpus[-2]), str(client_cpus[-1]))
    raise UserError(f"unknown placement {name!r}")
