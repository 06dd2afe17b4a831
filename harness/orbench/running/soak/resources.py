"""A soak's per-interval resources: the resident memory and CPU time of the harness, the server and every client,
each read on the host it runs on by the anatomy's snapshot script (one script run per host and interval, over
SSH for a remote host), so a remote worker's memory is its own, not its ssh process's."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from orbench.anatomy.procfs import CLOCK_TICKS_PER_S, ProcessCounters
from orbench.anatomy.snapshot import Shell, local_shell, take_snapshot
from orbench.hosts.ssh import Host
from orbench.running.session import TargetSession


@dataclass(frozen=True)
class Watched:
    role: str          # "harness", "server", "client"
    index: int         # client number (0 for the others)
    pid: int | None    # on its host; None: unknown (a remote worker that did not say)


@dataclass(frozen=True)
class HostGroup:
    host: str
    shell: Shell
    local: bool
    processes: tuple[Watched, ...]


def _shell(host: Host) -> Shell:
    return lambda script: host.run_shell(script, check=False).stdout.decode(errors="replace")


def _sample(c: ProcessCounters | None, host: str) -> dict[str, Any] | None:
    if c is None:
        return None
    cpu = c.process_cpu_ns if c.process_cpu_ns is not None else (
        (c.user_ticks + c.system_ticks) * 1_000_000_000 // CLOCK_TICKS_PER_S)
    return {"rss_bytes": c.rss_bytes, "cpu_ns": cpu, "host": host, "pid": c.pid}


class Resources:
    """The processes of one soak, grouped by the host they run on."""

    def __init__(self, session: TargetSession, clients: int):
        server_pid, client_pids = session.worker_pids(clients)
        runtime = session.runtime
        by_host: dict[str, tuple[Host | None, list[Watched]]] = {"local": (None, [Watched("harness", 0, os.getpid())])}
        for role, index, pid, host in ([("server", 0, server_pid, runtime.server_host)]
                                       + [("client", k, pid, runtime.client_host_of(k))
                                          for k, pid in enumerate(client_pids)]):
            name = "local" if host.spec.is_local else host.name
            _, watched = by_host.setdefault(name, (host, []))
            watched.append(Watched(role, index, None if pid is None else int(pid)))
        self.clients = clients
        self.groups = [HostGroup(name, local_shell if host is None or host.spec.is_local else _shell(host),
                                 host is None or host.spec.is_local, tuple(watched))
                       for name, (host, watched) in by_host.items()]

    def read(self) -> dict[str, Any]:
        """{"harness": ..., "server": ..., "clients": [...]}, each {"rss_bytes", "cpu_ns", "host", "pid"} or None
        (gone, or its pid unknown)."""
        out: dict[str, Any] = {"harness": None, "server": None, "clients": [None] * self.clients}
        for group in self.groups:
            pids = [w.pid for w in group.processes if w.pid is not None]
            snapshot = take_snapshot(pids, group.shell, sockets=False, local=group.local)
            for w in group.processes:
                sample = _sample(snapshot.processes.get(w.pid) if w.pid is not None else None, group.host)
                if w.role == "client":
                    out["clients"][w.index] = sample
                else:
                    out[w.role] = sample
        return out
