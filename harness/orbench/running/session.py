"""A target's live workers for one host pair, placement and option set: its server, its first client, and the
extra clients a point with N clients needs (started when first needed, kept for later points). On a spread
(campaign key spread_clients) client worker k runs on the pair's client host k mod H."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orbench.errors import WorkerError
from orbench.hosts.placement import Placement
from orbench.hosts.remote import PairRuntime
from orbench.results.point import Point
from orbench.targets.descriptor import Target
from orbench.targets.server_settings import ServerSetting
from orbench.targets.workers import ClientWorker, ServerWorker


@dataclass
class TargetSession:
    """A target's live server and client for one host pair, placement and option set."""

    target: Target
    runtime: PairRuntime
    logs_dir: Path
    options: dict[str, Any]        # the option set's client options (connect)
    tag: str                       # names its log files: point.Point.workers_slug of the points it serves
    setting: ServerSetting | None = None   # the server's threading setting and objects (their args are in target)
    server: ServerWorker | None = None
    client: ClientWorker | None = None
    hello: dict[str, Any] = field(default_factory=dict)
    launch: int = 0                # the run's launch these workers belong to (it names their GC logs)
    starts: int = 0
    # Client workers 2..N for points with several clients (campaign key `clients`), started when first needed.
    extra_clients: list[ClientWorker] = field(default_factory=list)
    extra_hellos: list[dict[str, Any]] = field(default_factory=list)  # their hello answers (pid, versions)
    # The points these workers have run a fully warmed trial of: later trials there get `rewarm`.
    warmed: set[Point] = field(default_factory=set)
    # The load sweeps these workers have run a step of (Point.without_load): their later steps get `rewarm`.
    warmed_sweeps: set[Point] = field(default_factory=set)
    # Whether these workers ran the campaign's fixed warm-up (once per launch of them, at their first point).
    fixed_warmup_done: bool = False
    # Points in a row, this launch of them, whose JIT-quiet chunks ended at the bound (steady.JIT_BUSY_POINTS).
    jit_busy_points: int = 0
    # Called after extra clients started (the runner records where each client runs and its pid).
    on_clients_started: Callable[[TargetSession], None] | None = None

    def first_at(self, point: Point) -> bool:
        """Whether this is the first trial these workers run at `point` (it then gets the full warm-up); from
        here on the point counts as warmed. A load sweep's later steps count as warmed by its first: the same
        calls on the same paths at another offered rate, right after it (their warm-up is `rewarm`)."""
        sweep = point.without_load().replace(load_of="") if point.is_sweep_step else None
        first = point not in self.warmed and sweep not in self.warmed_sweeps
        self.warmed.add(point)
        if sweep is not None:
            self.warmed_sweeps.add(sweep)
        return first

    def signal(self, sig: signal.Signals) -> None:
        """Send `sig` to every local worker process of this target (remote ones run on their own host)."""
        for worker in (self.server, self.client, *self.extra_clients):
            if worker is not None and not worker.via and worker.alive():
                try:
                    os.killpg(worker.proc.pid, sig)
                except ProcessLookupError:
                    pass

    @property
    def gc_suffix(self) -> str:
        """What tells this start's GC logs from the others': its launch and start (l1s2: launch 1, second start)."""
        return f"l{self.launch}s{self.starts}"

    @property
    def placement(self) -> Placement:
        return self.runtime.placement

    def start(self) -> None:
        self.starts += 1
        self.warmed = set()  # fresh workers: a cold JIT and caches
        self.fixed_warmup_done = False
        self.jit_busy_points = 0
        tag = self.tag
        # A JVM's GC log per launch and worker start (a restart gets a new file), kept in logs/ for the GC-pause
        # figure; without the launch, each launch's first start wrote over the one before.
        gc_log = str(self.logs_dir / f"{tag}-%s-gc-{self.gc_suffix}.log")
        self.server = ServerWorker(
            self.target.name, self.runtime.server_command(self.target, gc_log=gc_log % "server"),
            self.logs_dir / f"{tag}-server.log", env=self.runtime.worker_env("server"),
            reaper=self.runtime.reaper(self.target, "server"),
        )
        try:
            self.client = ClientWorker(self.target.name,
                                       self.runtime.client_command(self.target, gc_log=gc_log % "client"),
                                       self.logs_dir / f"{tag}-client.log", env=self.runtime.worker_env("client"),
                                       reaper=self.runtime.reaper(self.target, "client"))
            self.server.via, self.client.via = self.runtime.via("server"), self.runtime.via("client")
            hello = self.client.call({"cmd": "hello"}, watch=[self.server])
            if not hello["ok"]:
                raise WorkerError(f"{self.target.name} client: hello failed: {hello.get('error')}", "protocol")
            self.hello = hello
            answer = self.client.call({"cmd": "connect", "endpoint": self.server.endpoint, "options": self.options},
                                      watch=[self.server])
            if not answer["ok"]:
                kind = "unsupported" if answer.get("error_kind") == "unsupported" else "connect"
                raise WorkerError(f"{self.target.name} client: connect failed: {answer.get('error')}", kind)
        except WorkerError:
            self.stop()
            raise

    def clients(self, n: int) -> list[ClientWorker]:
        """The first n client workers, connected to the one server; extra ones are started (client k on the
        pair's client host k mod H, pinned like the first: the placement's client CPUs there) when a point first
        needs them, and kept for later points."""
        assert self.client is not None and self.server is not None
        started = False
        while len(self.extra_clients) < n - 1:
            k = len(self.extra_clients) + 1
            tag = f"{self.tag}-c{k}"
            client = ClientWorker(self.target.name,
                                  self.runtime.client_command(self.target, gc_log=str(
                                      self.logs_dir / f"{tag}-client-gc-{self.gc_suffix}.log"), k=k),
                                  self.logs_dir / f"{tag}-client.log", env=self.runtime.worker_env("client", k),
                                  reaper=self.runtime.reaper(self.target, "client", k))
            client.via = self.runtime.via("client", k)
            started = True
            self.extra_clients.append(client)
            try:
                hello: dict[str, Any] = {}
                for command in ({"cmd": "hello"},
                                {"cmd": "connect", "endpoint": self.server.endpoint, "options": self.options}):
                    answer = client.call(command, watch=[self.server])
                    if not answer["ok"]:
                        raise WorkerError(f"{self.target.name} client {k}: {command['cmd']} failed: "
                                          f"{answer.get('error')}", "connect")
                    hello = hello or answer
                self.extra_hellos.append(hello)
            except WorkerError:
                self.extra_clients.pop().stop()
                raise
        if started and self.on_clients_started is not None:
            self.on_clients_started(self)
        return [self.client, *self.extra_clients[:n - 1]]

    def hellos(self, n: int) -> list[dict[str, Any]]:
        """The hello answers of the first n clients (their pids, as each reported it)."""
        return [self.hello, *self.extra_hellos[:n - 1]]

    def worker_pids(self, n: int) -> tuple[int | None, list[int | None]]:
        """(server, first n clients): each worker's pid on its own host, as it reported it (a remote worker's
        local process is its ssh); None when a worker did not say and runs remotely."""
        assert self.server is not None and self.client is not None
        clients = [self.client, *self.extra_clients[:n - 1]]
        hellos = [self.hello, *self.extra_hellos[:n - 1]]
        return (self.server.ready.get("pid") or (None if self.server.via else self.server.pid),
                [h.get("pid") or (None if c.via else c.pid) for c, h in zip(clients, hellos)])

    def client_places(self) -> list[dict[str, Any]]:
        """Every live client worker: its number, the host it runs on, its pid there (as it reported it; None
        when a remote worker did not say) and the CPUs it was pinned to (None: not pinned)."""
        _, pids = self.worker_pids(1 + len(self.extra_clients))
        return [{"client": k, "host": self.runtime.client_host_of(k).name, "pid": pid,
                 "cpus": self.runtime.client_placement_of(k).client_cpus} for k, pid in enumerate(pids)]

    def stop(self) -> None:
        self.signal(signal.SIGCONT)  # a paused worker cannot quit
        for extra in self.extra_clients:
            _stop_client(extra)
        self.extra_clients = []
        self.extra_hellos = []
        if self.client is not None:
            _stop_client(self.client)
            self.client = None
        if self.server is not None:
            self.server.stop()
            self.server = None


# A client still busy with a command it never answered (a stalled trial) is stopped at once: it reads neither
# `quit` nor its stdin's EOF until its call returns, which a hung middleware never lets happen.
STUCK_CLIENT_GRACE_S = 0.5


def _stop_client(client: ClientWorker) -> None:
    if client.alive() and not client.answer_pending:
        try:
            client.call({"cmd": "quit"}, timeout=5)
        except WorkerError:
            pass
    client.stop(grace=STUCK_CLIENT_GRACE_S if client.answer_pending else 5.0)
