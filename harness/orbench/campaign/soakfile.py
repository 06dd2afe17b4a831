"""Soak settings, from `orbench soak TARGET`'s flags or a soak file (harness/campaigns/tine.toml, for `orbench
soak FILE`), and the one-point campaign they make: a soak is a campaign whose points have a duration
(campaign keys duration_s, interval_s, arrivals, arrivals_seed), run by the Runner like any other.

A soak file's keys (every one checked; a mistake names the file, the key and the value):
name, description, targets (each soaked in turn, with the same settings), duration, interval, rate_hz,
arrivals, seed, clients, mode, payload_bytes, placement.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orbench.campaign.duration import parse_duration
from orbench.campaign.spec import Campaign, campaign_from_data
from orbench.errors import UserError
from orbench.targets.descriptor import Target, read_targets

KEYS = {"name", "description", "targets", "duration", "interval", "rate_hz", "arrivals", "seed", "clients", "mode",
        "payload_bytes", "placement"}


@dataclass(frozen=True)
class SoakSettings:
    duration_s: float
    interval_s: float = 10.0
    rate_hz: float = 0.0            # 0: closed loop
    arrivals: str = "fixed"          # or "poisson" (with a rate)
    clients: int = 1
    mode: str = "twoway"
    payload_type: str = "octets"
    payload_bytes: int = 64
    placement: str = "same-core"
    seed: int | None = None          # Poisson: client k gets seed + k

    def check(self, target: Target) -> None:
        if not self.interval_s <= self.duration_s:
            raise UserError(f"soak interval {self.interval_s:g} s is longer than the duration {self.duration_s:g} s")
        if self.arrivals not in ("fixed", "poisson"):
            raise UserError(f"soak arrivals {self.arrivals!r}: use 'fixed' or 'poisson'")
        if self.arrivals == "poisson" and self.rate_hz <= 0:
            raise UserError("soak arrivals 'poisson' needs a rate above 0")
        if self.clients < 1:
            raise UserError(f"soak clients {self.clients}: at least 1")
        if self.mode not in target.modes:
            raise UserError(f"target {target.name} has no mode {self.mode!r} (it has {', '.join(target.modes)})")
        if self.mode == "oneway" and self.clients > 1:
            raise UserError("a oneway soak takes one client (harness/PROTOCOL.md, \"Soak runs\")")

    def campaign_keys(self) -> dict[str, Any]:
        """The campaign keys of one soak point with these settings."""
        return {"modes": [self.mode], "payload_types": [self.payload_type], "payload_bytes": [self.payload_bytes],
                "placements": [self.placement], "clients": [self.clients], "rates_hz": [self.rate_hz],
                "duration_s": self.duration_s, "interval_s": self.interval_s, "arrivals": self.arrivals,
                **({"arrivals_seed": self.seed} if self.seed is not None else {})}


def soak_campaign(path: Path, name: str, description: str, targets: list[str], settings: SoakSettings,
                  jdk: str | None = None, extra: dict[str, Any] | None = None) -> Campaign:
    """The campaign of a soak: its targets at one point, for the settings' duration. `path`: where relative
    paths of `extra` keys (ssh files) resolve, and what the manifest names as its source."""
    data = {"name": name, "description": description, "targets": list(targets), **settings.campaign_keys(),
            **(extra or {})}
    return campaign_from_data(path, data, jdk=jdk)


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
