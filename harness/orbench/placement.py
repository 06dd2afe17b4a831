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

    def as_dict(self) -> dict:
        return {"name": self.name, "server_cpus": self.server_cpus, "client_cpus": self.client_cpus,
                "pinned": self.server_cpus is not None}


def available_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def resolve(name: str) -> Placement:
    """Same-core and split-core use the highest CPUs this process may run on: CPU 0 takes most interrupts."""
    cpus = available_cpus()
    if name == "unpinned":
        return Placement(name, None, None)
    if shutil.which("taskset") is None:
        raise UserError(f"placement {name!r} needs taskset (apt-get install util-linux), or use 'unpinned'")
    if name == "same-core":
        return Placement(name, str(cpus[-1]), str(cpus[-1]))
    if name == "split-core":
        if len(cpus) < 2:
            raise UserError(f"placement 'split-core' needs two CPUs; this process may use only {cpus}")
        return Placement(name, str(cpus[-2]), str(cpus[-1]))
    raise UserError(f"unknown placement {name!r}")
