"""Soak files: a soak described in TOML (harness/campaigns/tine.toml), for `orbench soak FILE`.

Keys (every one checked; a mistake names the file, the key and the value):
name, description, targets (each soaked in turn, with the same settings), duration, interval, rate_hz,
arrivals, seed, clients, mode, payload_bytes, placement.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orbench.errors import UserError
from orbench.running.soak.duration import parse_duration
from orbench.running.soak.session import SoakSettings
from orbench.targets.descriptor import Target, read_targets

KEYS = {"name", "description", "targets", "duration", "interval", "rate_hz", "arrivals", "seed", "clients", "mode",
        "payload_bytes", "placement"}


@dataclass(frozen=True)
class SoakFile:
    path: Path
    name: str
    description: str
    targets: list[Target]
    settings: SoakSettings


def _typed(path: Path, data: dict, key: str, kind: type | tuple[type, ...], default: Any) -> Any:
    value = data.get(key, default)
    if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
        raise UserError(f"{path}: key {key}: value {value!r}: expected {getattr(kind, '__name__', kind)}")
    return value


def load_soak_file(path: Path) -> SoakFile:
    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: not TOML: {exc}") from None
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise UserError(f"{path}: unknown key(s) {', '.join(unknown)} (a soak file has {', '.join(sorted(KEYS))})")
    for required in ("name", "targets", "duration"):
        if required not in data:
            raise UserError(f"{path}: key {required} is required")
    durations = {}
    for key, default in (("duration", None), ("interval", "10s")):
        value = data.get(key, default)
        try:
            durations[key] = parse_duration(value)
        except (ValueError, TypeError) as exc:
            raise UserError(f"{path}: key {key}: value {value!r}: {exc}") from None
    known = read_targets()
    names = _typed(path, data, "targets", list, [])
    for name in names:
        if name not in known:
            raise UserError(f"{path}: key targets: value {name!r}: no such target ({', '.join(sorted(known))})")
    settings = SoakSettings(
        duration_s=durations["duration"], interval_s=min(durations["interval"], durations["duration"]),
        rate_hz=float(_typed(path, data, "rate_hz", (int, float), 0)),
        arrivals=_typed(path, data, "arrivals", str, "fixed"), seed=data.get("seed"),
        clients=_typed(path, data, "clients", int, 1), mode=_typed(path, data, "mode", str, "twoway"),
        payload_bytes=_typed(path, data, "payload_bytes", int, 64),
        placement=_typed(path, data, "placement", str, "same-core"))
    targets = [known[n] for n in names]
    for t in targets:
        try:
            settings.check(t)
        except UserError as exc:
            raise UserError(f"{path}: {exc}") from None
    return SoakFile(path, _typed(path, data, "name", str, ""), _typed(path, data, "description", str, ""),
                    targets, settings)
