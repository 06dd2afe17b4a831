"""manifest.json as one type: the fields every run writes (what, who, when, where, how it ended), and the
sections of its kind (a campaign's hosts, targets, stopping records...; a soak's soak records; a JMH ingest's
source files). RunStore.write_manifest is its only writer; readers get the upgraded JSON (upgrade.py), and
Manifest.from_json reads that back for a writer that goes on (a resume).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, fields
from typing import Any

from orbench import __version__

# What a run directory holds: a campaign's trials, soak points' intervals, or ingested JMH results.
KINDS = ("campaign", "soak", "jmh")


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


@dataclass
class Manifest:
    kind: str
    run_id: str
    command: list[str]
    started_at: str
    status: str
    environment: dict[str, Any]
    orbench_version: str = __version__
    finished_at: str | None = None
    environment_at_end: dict[str, Any] | None = None
    # The kind's own parts, by their manifest key; written after the fields above, in insertion order.
    sections: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"manifest kind {self.kind!r}: one of {', '.join(KINDS)}")

    @classmethod
    def start(cls, kind: str, run_id: str, command: list[str], environment: dict[str, Any],
              status: str = "running", **sections: Any) -> Manifest:
        return cls(kind, run_id, list(command), now(), status, environment, sections=dict(sections))

    def finish(self, status: str) -> None:
        """The end: its status, when, and the load then (a busy machine at the end explains a late drift)."""
        self.status = status
        self.finished_at = now()
        self.environment_at_end = {"load": {"loadavg": list(os.getloadavg())}}

    # -- JSON -------------------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"orbench_version": self.orbench_version, "kind": self.kind, "run_id": self.run_id,
                               "command": self.command, "started_at": self.started_at, "status": self.status,
                               "environment": self.environment}
        if self.finished_at is not None:
            out["finished_at"] = self.finished_at
        if self.environment_at_end is not None:
            out["environment_at_end"] = self.environment_at_end
        for key, value in self.sections.items():
            if key in _FIELDS:
                raise ValueError(f"manifest section {key!r} is a field")
            out[key] = value
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        """A manifest as read (upgrade.py brings older ones to the current layout first); the schema version
        keys are the store's, not the manifest's."""
        rest = {k: v for k, v in data.items() if k not in ("schema_version", "schema_version_read")}
        own = {k: rest.pop(k) for k in list(rest) if k in _FIELDS}
        own.setdefault("kind", "campaign")
        own.setdefault("command", [])
        own.setdefault("environment", {})
        return cls(**own, sections=rest)

    # -- the sections, as the writers grow them ----------------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        return getattr(self, key) if key in _FIELDS else self.sections[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if key in _FIELDS:
            setattr(self, key, value)
        else:
            self.sections[key] = value

    def __contains__(self, key: str) -> bool:
        return key in _FIELDS or key in self.sections

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def setdefault(self, key: str, default: Any) -> Any:
        if key in _FIELDS:
            raise KeyError(f"{key} is a field of the manifest, always set")
        return self.sections.setdefault(key, default)

    def pop(self, key: str, default: Any = None) -> Any:
        return self.sections.pop(key, default)


_FIELDS = {f.name for f in fields(Manifest)} - {"sections"}
