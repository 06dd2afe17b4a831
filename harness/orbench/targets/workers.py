"""Worker processes seen from the harness: start a server and wait for its ready line, drive a client over
JSON lines, notice death and hangs. The contract is harness/PROTOCOL.md.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from orbench.errors import WorkerError

# A JVM with an ORB takes one to three seconds to start on this 2-core machine; leave a wide margin for a
# loaded CI machine, but not so wide that a hung worker stalls a campaign for long.
READY_TIMEOUT_S = 60.0
# Commands other than `run` (hello, connect, quit) answer in well under a second.
COMMAND_TIMEOUT_S = 30.0
# ssh's exit status for its own failures and for a remote command killed by a signal.
SSH_FAILED = 255


def _tail(path: Path | None, lines: int = 8) -> str:
    if path is None or not path.exists():
        return ""
    text = path.read_text(errors="replace").strip().splitlines()
    return " | ".join(text[-lines:])


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with status {code}"


class _Process:
    """A child process whose stdout lines arrive on a queue, read by a daemon thread."""

    def __init__(self, role: str, name: str, argv: list[str], log_path: Path | None, env: dict | None = None,
                 reaper: Callable[[], None] | None = None):
        self.role = role
        # For a worker behind ssh: ends the remote process after the local ssh process is gone (hosts/remote.py).
        self.reaper = reaper
        self.via: str | None = None  # "host NAME (URL)" when the process is ssh running the worker there
        self.name = name
        self.argv = argv
        self.log_path = log_path
        self._log: IO[bytes] | int
        if log_path is not None:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = open(log_path, "ab")
        else:
            self._log = subprocess.DEVNULL
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._log,
                env=env,
                # A process group of its own, so a kill of the group also ends the worker's children; not a
                # session of its own (start_new_session): with Linux's autogroup scheduling every session is a
                # scheduler group, and a server and client in two groups on one CPU cost ~1 us more per
                # handover than in one (`orbench fidelity` measured it against sockperf).
                process_group=0,
            )
        except OSError as exc:
            raise WorkerError(f"{name} {role}: cannot start {argv[0]!r}: {exc}", "start") from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True, name=f"{name}-{role}-stdout").start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", errors="replace").rstrip("\n"))
        self.lines.put(None)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def dead_within(self, seconds: float) -> bool:
        """True when the process has ended or ends within `seconds` (an ssh needs a moment to report the
        death of its remote worker)."""
        try:
            self.proc.wait(timeout=seconds)
            return True
        except subprocess.TimeoutExpired:
            return False

    def has_line(self) -> bool:
        """A line (or the end of its stdout) is waiting to be read: the next read_json will not wait."""
        return not self.lines.empty()

    def death(self) -> str:
        code = self.proc.poll()
        why = _describe_exit(code) if code is not None else "closed its stdout"
        if self.via and code == SSH_FAILED:
            why = (f"ended: its ssh to {self.via} exited with status 255 (the remote worker was killed by a "
                   "signal, or the connection dropped)")
        tail = _tail(self.log_path)
        return f"{self.name} {self.role} {why}" + (f"; its stderr ends: {tail}" if tail else "")

    def read_json(self, timeout: float, watch: list[_Process] = (),
                  on_wait: Callable[[], None] | None = None) -> dict[str, Any]:
        """The next stdout line as JSON; fails on timeout, on EOF, on a line that is not JSON, or when a
        watched process (the server, while a client runs) dies first. `on_wait` runs each time the wait wakes
        up without a line (about twice a second); it may raise WorkerError (a trial's progress watchdog)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise WorkerError(f"{self.name} {self.role}: no answer within {timeout:.0f} s", "timeout")
            try:
                line = self.lines.get(timeout=min(left, 0.5 if on_wait is None else 0.25))
            except queue.Empty:
                if on_wait is not None:
                    on_wait()
                for other in watch:
                    if not other.alive():
                        # Give the client a moment to report the broken connection itself.
                        try:
                            line = self.lines.get(timeout=5.0)
                        except queue.Empty:
                            raise WorkerError(other.death(), "died") from None
                        break
                else:
                    continue
            if line is None:
                self.proc.wait(timeout=5)
                raise WorkerError(self.death(), "died")
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                raise WorkerError(f"{self.name} {self.role}: stdout line is not JSON: {line[:200]!r}", "protocol") from None
            if not isinstance(value, dict):
                raise WorkerError(f"{self.name} {self.role}: stdout line is not a JSON object: {line[:200]!r}",
                                  "protocol")
            return value

    def stop(self, grace: float = 5.0) -> int | None:
        """Close stdin (the polite stop of the contract), then SIGTERM, then SIGKILL the whole group."""
        if self.proc.poll() is None:
            try:
                if self.proc.stdin:
                    self.proc.stdin.close()
                self.proc.wait(timeout=grace)
            except (subprocess.TimeoutExpired, BrokenPipeError, OSError):
                pass
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self.proc.poll() is not None:
                break
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        if isinstance(self._log, int) is False:
            self._log.close()  # type: ignore[union-attr]
        if self.reaper is not None:
            reaper, self.reaper = self.reaper, None
            reaper()
        return self.proc.returncode


class ServerWorker(_Process):
    def __init__(self, name: str, argv: list[str], log_path: Path | None, env: dict | None = None,
                 ready_timeout: float = READY_TIMEOUT_S, reaper: Callable[[], None] | None = None):
        super().__init__("server", name, argv, log_path, env, reaper)
        try:
            ready = self.read_json(ready_timeout)
        except WorkerError:
            self.stop()
            raise
        if ready.get("event") == "error":
            self.stop()
            raise WorkerError(f"{name} server could not start: {ready.get('error')}", "start")
        if ready.get("event") != "ready" or not isinstance(ready.get("endpoint"), str):
            self.stop()
            raise WorkerError(f"{name} server: first line is not a ready line: {ready}", "protocol")
        self.ready = ready
        self.endpoint: str = ready["endpoint"]
        # Whether its stats answers carry `received` (the message counters); None until the first answer.
        self.counts_received: bool | None = None

    @property
    def answers_stats(self) -> bool:
        return "stats" in (self.ready.get("stdin_commands") or [])

    def stats(self, timeout: float = COMMAND_TIMEOUT_S) -> dict[str, Any] | None:
        """The server's answer to the stdin command `stats` (PROTOCOL.md): its counters since it started; None
        for a server that does not list the command. Raises WorkerError for a dead or silent server."""
        if not self.answers_stats:
            return None
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(b'{"cmd": "stats"}\n')
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.proc.wait(timeout=5)
            raise WorkerError(self.death(), "died") from None
        line = self.read_json(timeout)
        if line.get("event") != "stats":
            raise WorkerError(f"{self.name} server answered {line} to the stats command", "protocol")
        self.counts_received = isinstance(line.get("received"), dict)
        return line


class ClientWorker(_Process):
    def __init__(self, name: str, argv: list[str], log_path: Path | None, env: dict | None = None,
                 reaper: Callable[[], None] | None = None):
        super().__init__("client", name, argv, log_path, env, reaper)
        self._next_id = 0
        # A command sent whose answer never came (a hung or stalled call): the worker is busy with it and will
        # not read a `quit`, so stopping it skips the polite steps.
        self.answer_pending = False

    def call(self, command: dict[str, Any], timeout: float = COMMAND_TIMEOUT_S,
             watch: list[_Process] = (), on_event: Callable[[dict[str, Any]], None] | None = None,
             on_wait: Callable[[], None] | None = None) -> dict[str, Any]:
        """Send one command, return its answer (ok or not). Raises WorkerError only when the client or a
        watched server is dead, hangs, or breaks the protocol. Event lines before the answer (a soak's
        intervals) go to `on_event`; `timeout` then bounds each wait for the next line, not the whole command.
        `on_wait`: see read_json."""
        self.send(command)
        return self.receive(timeout, watch, on_event, on_wait)

    def send(self, command: dict[str, Any]) -> None:
        """The first half of `call`: send the command, its answer to be read by `receive` (two clients taking
        turns inside one run each: both commands are out before either answer comes)."""
        self._next_id += 1
        command = {**command, "id": self._next_id}
        self.answer_pending = True
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write((json.dumps(command) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.proc.wait(timeout=5)
            raise WorkerError(self.death(), "died") from None

    def receive(self, timeout: float = COMMAND_TIMEOUT_S, watch: list[_Process] = (),
                on_event: Callable[[dict[str, Any]], None] | None = None,
                on_wait: Callable[[], None] | None = None) -> dict[str, Any]:
        """The answer to the command `send` sent last (see `call`)."""
        answer = self.read_json(timeout, watch, on_wait)
        while "event" in answer and "ok" not in answer:
            if on_event is None or answer.get("id") != self._next_id:
                raise WorkerError(f"{self.name} client: unexpected event line: {str(answer)[:200]}", "protocol")
            on_event(answer)
            answer = self.read_json(timeout, watch, on_wait)
        if answer.get("id") != self._next_id:
            raise WorkerError(f"{self.name} client answered id {answer.get('id')!r} to command "
                              f"{self._next_id}: {answer}", "protocol")
        if not isinstance(answer.get("ok"), bool):
            raise WorkerError(f"{self.name} client: answer without a boolean 'ok': {answer}", "protocol")
        self.answer_pending = False
        return answer
