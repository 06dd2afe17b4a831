"""Error answers (PROTOCOL.md, "Errors"): every failure becomes {"ok": false, "error", "error_kind"}."""

from __future__ import annotations

KINDS = ("usage", "unsupported", "transport", "remote", "internal")


class WorkerError(Exception):
    """A failure with the error_kind the harness acts on."""

    def __init__(self, kind: str, message: str):
        assert kind in KINDS, kind
        super().__init__(message)
        self.kind = kind
