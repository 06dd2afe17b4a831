"""The protocol channel: one JSON object per line on stdout, flushed at once. Servers answer stdin commands
from another thread than the one that printed the ready line, so writes take a lock."""

from __future__ import annotations

import json
import sys
import threading

_lock = threading.Lock()


def write_line(obj: dict) -> None:
    text = json.dumps(obj, separators=(",", ":")) + "\n"
    with _lock:
        sys.stdout.write(text)
        sys.stdout.flush()


def log(message: str) -> None:
    """For humans: stderr, which the harness keeps beside the run."""
    print(f"orbench: {message}", file=sys.stderr, flush=True)
