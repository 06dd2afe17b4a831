"""The server worker's side of the contract (PROTOCOL.md, "Server worker"): arguments, the message counters and
the sync barrier, the ready line, stdin commands and stopping (shutdown request, stdin EOF, SIGTERM, SIGINT).
A target gives run_server a start function that serves the Bench interface with the Counters."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from orbench_worker.output import log, write_line
from orbench_worker.spec import ConnectOptions, parse_server_options

# How long a stopping server gives its middleware to finish (a shutdown call's reply) before it exits.
STOP_GRACE_S = 2.0


class Counters:
    """Messages and payload bytes since the last reset; sync waits on them (a real barrier: it returns when
    the count reaches `expected`, which only grows, or when the timeout passes)."""

    def __init__(self) -> None:
        # A plain lock on the counting path (its `with` is C code, a Condition's is Python); the condition on
        # the same lock is notified only while a sync waits.
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self.messages = 0
        self.bytes = 0
        self.waiters = 0
        # A server with several objects (--objects K): which were called since the last reset; None: not tracked.
        self.called: list[bool] | None = None
        self.objects_called = 0

    def count(self, nbytes: int) -> None:
        with self.lock:
            self.messages += 1
            self.bytes += nbytes
            if self.waiters:
                self.cond.notify_all()

    def track_objects(self, objects: int) -> None:
        """Before any request: count_object takes objects 0 .. objects - 1."""
        self.called = [False] * objects

    def count_object(self, nbytes: int, obj: int) -> None:
        """count() for a request to object `obj`, which is marked called (the stats line's objects_called)."""
        with self.lock:
            if not self.called[obj]:
                self.called[obj] = True
                self.objects_called += 1
            self.messages += 1
            self.bytes += nbytes
            if self.waiters:
                self.cond.notify_all()

    def reset(self) -> None:
        with self.lock:
            self.messages = self.bytes = 0
            if self.called is not None:
                self.called = [False] * len(self.called)
                self.objects_called = 0

    def snapshot(self) -> tuple[int, int]:
        with self.lock:
            return self.messages, self.bytes

    def wait_for(self, expected: int, timeout_ms: int) -> tuple[bool, tuple[int, int]]:
        deadline = time.monotonic() + timeout_ms / 1000
        with self.cond:
            self.waiters += 1
            try:
                while self.messages < expected:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    self.cond.wait(left)
                return self.messages >= expected, (self.messages, self.bytes)
            finally:
                self.waiters -= 1


@dataclass(frozen=True)
class ServerArgs:
    host: str
    port: int
    target: str
    options: ConnectOptions
    extra: tuple[str, ...]     # target-specific arguments the kit does not know


@dataclass(frozen=True)
class Started:
    """A serving middleware: its endpoint, its name and version (none for a socket baseline), how to stop it,
    and how many objects it serves (--objects K; 1 says nothing)."""
    endpoint: str
    orb: str | None = None
    orb_version: str | None = None
    stop: Callable[[], None] | None = None
    objects: int = 1


def parse_args(argv: list[str], default_target: str) -> ServerArgs:
    p = argparse.ArgumentParser(description="orbench server worker (harness/PROTOCOL.md)")
    p.add_argument("--host", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--target", default=default_target)
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    args, extra = p.parse_known_args(argv)
    return ServerArgs(args.host, args.port, args.target, parse_server_options(args.option), tuple(extra))


def _stdin_commands(counters: Counters, stop: threading.Event) -> None:
    """Answers `stats` (the progress watchdog reads `received`); EOF stops the server (its harness is gone)."""
    for line in sys.stdin:
        try:
            command = json.loads(line)
        except json.JSONDecodeError:
            command = None
        if isinstance(command, dict) and command.get("cmd") == "stats":
            m, b = counters.snapshot()
            line: dict = {"event": "stats", "received": {"messages": m, "bytes": b}}
            if counters.called is not None:
                line["objects_called"] = counters.objects_called
            write_line(line)
        elif line.strip():
            log(f"ignored stdin line: {line.strip()[:80]}")
    stop.set()


def run_server(default_target: str, start: Callable[[ServerArgs, Counters, Callable[[], None]], Started],
               allowed_options: tuple[str, ...] = ()) -> None:
    """Starts the middleware, prints the ready line, serves until stopped, prints the exit line, exits."""
    try:
        args = parse_args(sys.argv[1:], default_target)
        for name, value in vars(args.options).items():
            if value is not None and name not in allowed_options:
                raise ValueError(f"option {name} cannot be set on this server")
    except ValueError as exc:
        write_line({"event": "error", "error": str(exc)})
        sys.exit(2)
    counters = Counters()
    stop = threading.Event()
    try:
        started = start(args, counters, stop.set)
    except Exception as exc:
        write_line({"event": "error", "error": f"{type(exc).__name__}: {exc}"})
        sys.exit(1)
    worker = {"role": "server", "target": args.target, "language": "python"}
    if started.orb:
        worker.update(orb=started.orb, orb_version=started.orb_version or "unknown")
    if started.objects > 1:
        worker["objects"] = started.objects
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    write_line({"event": "ready", "endpoint": started.endpoint, "pid": os.getpid(), "worker": worker,
                "stdin_commands": ["stats"]})
    threading.Thread(target=_stdin_commands, args=(counters, stop), daemon=True).start()
    # No timeout: a signal interrupts the wait (its handler sets stop), and a wakeup per half second would put
    # instructions in the counting mode's calls in proportion to their time, not to their number.
    stop.wait()
    if started.stop is not None:
        stopper = threading.Thread(target=started.stop, daemon=True)
        stopper.start()
        stopper.join(STOP_GRACE_S)
    m, b = counters.snapshot()
    try:
        write_line({"event": "exit", "received": {"messages": m, "bytes": b}})
    except OSError:
        pass   # the harness closed its end first: nobody to tell
    # Connection threads may be blocked in reads or in a sync: the process ends without waiting for them.
    os._exit(0)
