"""The client worker's command loop (PROTOCOL.md, "Client worker"): hello, connect, run, reset_counters, quit,
one answer line per command. A target gives it a ClientBinding; everything else is here."""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from orbench_worker.errors import WorkerError
from orbench_worker.output import write_line
from orbench_worker.payloads import PAYLOAD_TYPES
from orbench_worker.run import Connection, run_calls, run_soak
from orbench_worker.spec import (
    MODES,
    ConnectOptions,
    parse_connect_options,
    parse_run_spec,
    refuse_scale,
    reject_unknown_fields,
    take_load_spec,
    take_shape,
    take_soak_spec,
)

CLOCK_NAME = "time.monotonic_ns"


@dataclass(frozen=True)
class ClientBinding:
    """One middleware's client: who it is, what it does, and how to connect. `connect` resolves the endpoint,
    makes one reset_counters call and returns the Connection; it raises WorkerError for a refused option.
    `error_kind` names the error_kind of an exception its calls raise (None: internal)."""
    target: str
    connect: Callable[[str, ConnectOptions], Connection]
    error_kind: Callable[[BaseException], str | None]
    orb: str | None = None
    orb_version: str | None = None
    modes: tuple[str, ...] = MODES
    payload_types: tuple[str, ...] = PAYLOAD_TYPES
    shapes: tuple[str, ...] = ("in",)   # shape kinds its Connection.prepare makes (spec.shape)


def runtime() -> str:
    return f"{platform.python_implementation()} {platform.python_version()}"


def timer_cost_ns(batches: int = 20, reads: int = 5000) -> float:
    """The mean cost of one clock read, back to back; it is part of every sample. The lowest batch mean, so a
    batch the scheduler interrupted (a loaded machine) does not count. ORBENCH_TIMER_READS (the counting mode's,
    under callgrind) caps the reads: a batch of that many."""
    if (cap := os.environ.get("ORBENCH_TIMER_READS", "")).isdigit() and int(cap) >= 1:
        batches, reads = 1, min(reads * batches, int(cap))
    clock = time.monotonic_ns
    best = float("inf")
    for _ in range(batches):
        start = clock()
        for _ in range(reads):
            clock()
        best = min(best, (clock() - start) / reads)
    return best


class ClientLoop:
    def __init__(self, binding: ClientBinding):
        self.binding = binding
        self.connection: Connection | None = None
        self.timer_ns = timer_cost_ns()

    def worker_info(self) -> dict:
        info = {"role": "client", "target": self.binding.target, "language": "python", "runtime": runtime()}
        if self.binding.orb:
            info.update(orb=self.binding.orb, orb_version=self.binding.orb_version or "unknown")
        return info

    def hello(self) -> dict:
        return {"worker": self.worker_info(), "pid": os.getpid(),
                "timer": {"clock": CLOCK_NAME, "cost_ns": self.timer_ns},
                "modes": list(self.binding.modes), "payload_types": list(self.binding.payload_types),
                "shapes": list(self.binding.shapes)}

    def connected(self) -> Connection:
        if self.connection is None:
            raise WorkerError("transport", "not connected")
        return self.connection

    def connect(self, command: dict) -> dict:
        reject_unknown_fields(command, ("endpoint", "options"))
        endpoint = command.get("endpoint")
        if not isinstance(endpoint, str):
            raise WorkerError("usage", 'connect needs a string field "endpoint"')
        options = parse_connect_options(command.get("options"))
        if self.connection is not None:
            self.connection.close()
            self.connection = None
        self.connection = self.binding.connect(endpoint, options)
        return {}

    def run(self, command: dict, events: Callable[[dict], None]) -> dict:
        fields = dict(command)
        load = take_load_spec(fields)
        soak = take_soak_spec(fields)
        shape = take_shape(fields, self.binding.shapes)
        spec = replace(parse_run_spec(fields, self.binding.modes, self.binding.payload_types, soak is not None),
                       shape=shape)
        refuse_scale(load)
        if shape != "in" and (soak is not None or load.rate_hz > 0 or load.clients > 1):
            raise WorkerError("unsupported", f'shape "{shape}" is run by one closed-loop client')
        conn = self.connected()
        if soak is None:
            answer = run_calls(conn, spec, load)
            if shape != "in":
                answer["shape"] = shape
            return answer

        def emit(event: dict) -> None:
            if "id" in command:
                event["id"] = command["id"]
            events(event)
        return run_soak(conn, spec, load, soak, emit)

    def dispatch(self, command: object, events: Callable[[dict], None]) -> tuple[dict, bool]:
        """The answer's body and whether to quit."""
        if not isinstance(command, dict):
            raise WorkerError("usage", "a command must be a JSON object")
        name = command.get("cmd")
        if not isinstance(name, str):
            raise WorkerError("usage", 'missing string field "cmd"')
        if name == "hello":
            reject_unknown_fields(command, ())
            return self.hello(), False
        if name == "connect":
            return self.connect(command), False
        if name == "run":
            return self.run(command, events), False
        if name == "reset_counters":
            # For a group of clients: the harness resets the shared server once, before it starts them all.
            reject_unknown_fields(command, ())
            self.connected().reset_counters()
            return {}, False
        if name == "shutdown_server":
            # check-target's: the server must reply, then stop (PROTOCOL.md, "Client worker").
            reject_unknown_fields(command, ())
            self.connected().shutdown()
            return {}, False
        if name == "quit":
            reject_unknown_fields(command, ())
            return {}, True
        raise WorkerError("usage", f'unknown command "{name}"')

    def handle(self, line: str, events: Callable[[dict], None] = write_line) -> tuple[dict, bool]:
        """One command line's answer (never raises) and whether to quit."""
        try:
            command = json.loads(line)
        except json.JSONDecodeError as exc:
            return {"ok": False, "error": f"not JSON: {exc}", "error_kind": "usage"}, False
        quit_ = False
        try:
            body, quit_ = self.dispatch(command, events)
            answer = {"ok": True, **body}
        except WorkerError as exc:
            answer = {"ok": False, "error": str(exc), "error_kind": exc.kind}
        except Exception as exc:   # the middleware's own exceptions: the binding says which kind
            kind = self.binding.error_kind(exc) or "internal"
            answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}", "error_kind": kind}
        if isinstance(command, dict) and "id" in command:
            answer["id"] = command["id"]
        return answer, quit_


def run_client(binding: ClientBinding) -> int:
    """Reads commands from stdin until quit or EOF; exits 0."""
    loop = ClientLoop(binding)
    for line in sys.stdin:
        if not line.strip():
            continue
        answer, quit_ = loop.handle(line)
        write_line(answer)
        if quit_:
            break
    if loop.connection is not None:
        loop.connection.close()
    return 0
