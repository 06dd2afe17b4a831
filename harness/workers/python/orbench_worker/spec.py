"""The fields of `run` and `connect`, checked as every worker checks them (PROTOCOL.md): a wrong field is a
`usage` error, a mode or payload type the target does not do is `unsupported`."""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass

from orbench_worker.errors import WorkerError
from orbench_worker.payloads import PAYLOAD_TYPES

MODES = ("twoway", "oneway", "echo")
MAX_RATE_HZ = 1_000_000
MAX_THREADS = 256
MAX_OBJECTS = 100_000
OBJECT_ORDERS = ("round-robin", "random")
MAX_PAYLOAD_BYTES = 2**32 - 1 - 64     # CORBA sequence lengths and the socket header's length are u32
MIN_INTERVAL_S = 0.001
MAX_SOAK_S = 30 * 86400
MAX_SOCKET_BUFFER = 2**30
SYNC_SCOPES = ("none", "transport", "server", "target")
DEFAULT_SYNC_TIMEOUT_MS = 20000


@dataclass(frozen=True)
class RunSpec:
    mode: str
    payload_type: str
    payload_bytes: int
    warmup: int
    calls: int                  # 0 for a soak
    samples_file: str | None    # None for a soak
    sync_timeout_ms: int
    shape: str = "in"           # the invocation shape (PROTOCOL.md, "Invocation shapes")


@dataclass(frozen=True)
class LoadSpec:
    rate_hz: float = 0.0
    clients: int = 1
    arrivals: str = "fixed"
    seed: int | None = None
    threads: int = 1
    objects: int = 1
    object_order: str = "round-robin"

    @property
    def shared(self) -> bool:
        """Several clients share the server's counters (PROTOCOL.md, "Load")."""
        return self.clients > 1

    def effective_seed(self) -> int:
        # Clients of one group start together: the pid keeps their arrivals apart.
        return self.seed if self.seed is not None else (time.monotonic_ns() * 31 + os.getpid()) % 2**63


@dataclass(frozen=True)
class SoakSpec:
    duration_ns: int
    interval_ns: int


@dataclass(frozen=True)
class ConnectOptions:
    tcp_nodelay: bool | None = None
    socket_buffer_bytes: int | None = None
    sync_scope: str | None = None


def reject_unknown_fields(command: dict, allowed: tuple[str, ...]) -> None:
    for key in command:
        if key not in ("cmd", "id") and key not in allowed:
            raise WorkerError("usage", f'unknown field "{key}"')


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _unsigned(command: dict, key: str, required: bool, fallback: int = 0, maximum: int = 2**64 - 1) -> int:
    if key not in command:
        if required:
            raise WorkerError("usage", f'missing field "{key}"')
        return fallback
    value = command[key]
    # Floats and strings are refused, not truncated: a campaign that says 1.5 calls has a bug.
    if not _is_int(value) or value < 0:
        raise WorkerError("usage", f'field "{key}" must be a non-negative integer')
    if value > maximum:
        raise WorkerError("usage", f'field "{key}" is too large')
    return value


def _string(command: dict, key: str) -> str:
    if key not in command:
        raise WorkerError("usage", f'missing field "{key}"')
    if not isinstance(command[key], str):
        raise WorkerError("usage", f'field "{key}" must be a string')
    return command[key]


def _seconds(value: object, key: str, low: float, high: float) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) \
            or not low <= value <= high:
        raise WorkerError("usage", f'field "{key}" must be a number of seconds from {low} to {high}')
    return float(value)


def _count(command: dict, key: str, maximum: int) -> int:
    """An integer field of 1 .. maximum taken out of `command`; 1 when absent."""
    if key not in command:
        return 1
    value = command.pop(key)
    if not _is_int(value) or not 1 <= value <= maximum:
        raise WorkerError("usage", f'field "{key}" must be an integer from 1 to {maximum}')
    return value


def take_load_spec(command: dict) -> LoadSpec:
    """Takes the load fields out of a run command (PROTOCOL.md, "Load", "Arrivals", "Load at scale")."""
    rate, clients, arrivals, seed = 0.0, 1, "fixed", None
    if "rate_hz" in command:
        value = command.pop("rate_hz")
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) \
                or not 0 <= value <= MAX_RATE_HZ:
            raise WorkerError("usage", 'field "rate_hz" must be a number from 0 (closed loop) to 1000000')
        rate = float(value)
    if "clients" in command:
        clients = command.pop("clients")
        if not _is_int(clients) or clients < 1:
            raise WorkerError("usage", 'field "clients" must be an integer of at least 1')
    if "arrivals" in command:
        arrivals = command.pop("arrivals")
        if arrivals not in ("fixed", "poisson"):
            raise WorkerError("usage", 'field "arrivals" must be "fixed" or "poisson"')
    if arrivals == "poisson" and rate <= 0:
        raise WorkerError("usage", 'field "arrivals": poisson needs a "rate_hz" above 0')
    if "seed" in command:
        seed = command.pop("seed")
        if not _is_int(seed) or not 0 <= seed < 2**63:
            raise WorkerError("usage", 'field "seed" must be an integer from 0 to 2^63 - 1')
    threads = _count(command, "threads", MAX_THREADS)
    objects = _count(command, "objects", MAX_OBJECTS)
    order = command.pop("object_order", "round-robin")
    if order not in OBJECT_ORDERS:
        raise WorkerError("usage", 'field "object_order" must be "round-robin" or "random"')
    return LoadSpec(rate, clients, arrivals, seed, threads, objects, order)


def refuse_scale(load: LoadSpec) -> None:
    """The Python workers call on one thread, to one object (PROTOCOL.md, "Load at scale")."""
    if load.threads > 1:
        raise WorkerError("unsupported", 'field "threads": CPython\'s threads take turns at the interpreter lock, '
                                         "so they would measure the lock, not the middleware")
    if load.objects > 1:
        raise WorkerError("unsupported", 'field "objects": the Python clients call one object')


def take_soak_spec(command: dict) -> SoakSpec | None:
    """Takes duration_s and interval_s out of a run command; None for a run of calls."""
    if "duration_s" not in command:
        if "interval_s" in command:
            raise WorkerError("usage", 'field "interval_s" needs "duration_s"')
        return None
    seconds = _seconds(command.pop("duration_s"), "duration_s", MIN_INTERVAL_S, MAX_SOAK_S)
    interval = _seconds(command.pop("interval_s"), "interval_s", MIN_INTERVAL_S, seconds) \
        if "interval_s" in command else 1.0
    duration_ns = int(seconds * 1e9)
    return SoakSpec(duration_ns, min(int(interval * 1e9), duration_ns))


def parse_run_spec(command: dict, modes: tuple[str, ...], payload_types: tuple[str, ...], soak: bool) -> RunSpec:
    if soak:
        for key in ("calls", "samples_file"):
            if key in command:
                raise WorkerError("usage", f'a soak run ("duration_s") takes no "{key}"')
    reject_unknown_fields(command, ("mode", "payload_type", "payload_bytes", "calls", "warmup", "samples_file",
                                    "sync_timeout_ms"))
    mode = _string(command, "mode")
    if mode not in MODES:
        raise WorkerError("usage", f'unknown mode "{mode}"')
    if mode not in modes:
        raise WorkerError("unsupported", f'mode "{mode}" not supported')
    ptype = _string(command, "payload_type")
    if ptype not in PAYLOAD_TYPES:
        raise WorkerError("usage", f'unknown payload_type "{ptype}"')
    if ptype not in payload_types:
        raise WorkerError("unsupported", f'payload_type "{ptype}" not supported')
    size = _unsigned(command, "payload_bytes", True, maximum=MAX_PAYLOAD_BYTES)
    warmup = _unsigned(command, "warmup", False)
    calls, samples = 0, None
    if not soak:
        calls = _unsigned(command, "calls", True)
        if calls == 0:
            raise WorkerError("usage", 'field "calls" must be at least 1')
        samples = _string(command, "samples_file")
        if not samples:
            raise WorkerError("usage", 'field "samples_file" is empty')
    timeout = _unsigned(command, "sync_timeout_ms", False, DEFAULT_SYNC_TIMEOUT_MS, 2**32 - 1)
    return RunSpec(mode, ptype, size, warmup, calls, samples, timeout)


def parse_option(options: dict, key: str, value: object) -> None:
    """One connect option into `options` (PROTOCOL.md, "Connect options"); an unknown one is `usage`."""
    if key == "tcp_nodelay":
        if not isinstance(value, bool):
            raise WorkerError("usage", 'option "tcp_nodelay" must be true or false')
    elif key == "socket_buffer_bytes":
        if not _is_int(value) or not 1 <= value <= MAX_SOCKET_BUFFER:
            raise WorkerError("usage", 'option "socket_buffer_bytes" must be an integer from 1 to 2^30')
    elif key == "sync_scope":
        if value not in SYNC_SCOPES:
            raise WorkerError("usage", 'option "sync_scope" must be one of none, transport, server, target')
    else:
        raise WorkerError("usage", f'unknown option "{key}" (known: tcp_nodelay, socket_buffer_bytes, sync_scope)')
    options[key] = value


def parse_connect_options(options: object) -> ConnectOptions:
    if options is None:
        return ConnectOptions()
    if not isinstance(options, dict):
        raise WorkerError("usage", 'field "options" must be an object')
    parsed: dict = {}
    for key, value in options.items():
        parse_option(parsed, key, value)
    return ConnectOptions(**parsed)


def parse_server_options(pairs: list[str]) -> ConnectOptions:
    """The server's `--option NAME=VALUE` arguments (VALUE as JSON); raises ValueError with the reason."""
    parsed: dict = {}
    for pair in pairs:
        key, equals, text = pair.partition("=")
        if not equals:
            raise ValueError(f'--option needs NAME=VALUE, got "{pair}"')
        if key == "sync_scope":
            raise ValueError("option sync_scope is a client option, not a server one")
        try:
            parse_option(parsed, key, json.loads(text))
        except json.JSONDecodeError:
            raise ValueError(f"--option {pair}: the value is not JSON (true, false, 65536)") from None
        except WorkerError as exc:
            raise ValueError(f"--option {pair}: {exc}") from None
    return ConnectOptions(**parsed)


def refuse_options(options: ConnectOptions, middleware: str) -> None:
    """For a middleware that always sets TCP_NODELAY and has neither buffer setting nor sync scope here."""
    if options.tcp_nodelay is False:
        raise WorkerError("unsupported", f"{middleware} always sets TCP_NODELAY: tcp_nodelay = false cannot be done")
    if options.socket_buffer_bytes is not None:
        raise WorkerError("unsupported",
                          f"{middleware} has no socket buffer setting here: socket_buffer_bytes cannot be done")
    if options.sync_scope is not None:
        raise WorkerError("unsupported", f"{middleware} has no SyncScopePolicy: sync_scope cannot be done")


SHAPE_KINDS = ("in", "out", "inout", "return", "exception", "wstring", "dii", "dsi", "collocated", "pipelined",
               "chained")
TWOWAY_ONLY = ("out", "return", "inout", "exception", "pipelined", "chained")


def take_shape(command: dict, supported: tuple[str, ...]) -> str:
    """The optional "shape" field, taken out of a run command: usage for a name that is no shape, unsupported for
    one the client does not make or that does not take the run's mode or payload type."""
    if "shape" not in command:
        return "in"
    name = command.pop("shape")
    if not isinstance(name, str):
        raise WorkerError("usage", 'field "shape" must be a string')
    if name.startswith("ami-"):
        digits = name[4:]
        if not (digits.isdigit() and digits[0] != "0" and 1 <= int(digits) <= 256):
            raise WorkerError("usage", f'shape "{name}": ami-N takes N from 1 to 256')
        kind = "ami"
    elif name in SHAPE_KINDS:
        kind = name
    else:
        raise WorkerError("usage", f'unknown shape "{name}"')
    if kind not in supported:
        raise WorkerError("unsupported", f'shape "{name}" not supported')
    mode, ptype = command.get("mode"), command.get("payload_type")
    if kind != "in" and mode != "twoway" and (kind in TWOWAY_ONLY or mode != "echo"):
        modes = "twoway" if kind in TWOWAY_ONLY else "twoway or echo"
        raise WorkerError("unsupported", f'shape "{name}" takes mode {modes}, not "{mode}"')
    if kind == "wstring" and ptype != "strings":
        raise WorkerError("unsupported", 'shape "wstring" takes payload_type strings only')
    return name
