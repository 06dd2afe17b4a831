"""Durations as people write them: "24h", "90m", "45s", "1h30m", or a number of seconds."""

from __future__ import annotations

import re

_PART = re.compile(r"(\d+(?:\.\d+)?)(d|h|m|s)")
_UNIT_S = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}


def parse_duration(value: str | int | float) -> float:
    """Seconds; raises ValueError saying what a duration looks like."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a duration")
    if isinstance(value, (int, float)):
        seconds = float(value)
    else:
        text = value.strip().replace(" ", "")
        if re.fullmatch(r"\d+(\.\d+)?", text):
            seconds = float(text)
        elif text and _PART.sub("", text) == "" and re.fullmatch(r"(\d+(\.\d+)?(d|h|m|s))+", text):
            seconds = sum(float(n) * _UNIT_S[u] for n, u in _PART.findall(text))
        else:
            raise ValueError(f"{value!r} is not a duration: write e.g. \"24h\", \"90m\", \"45s\", \"1h30m\"")
    if not seconds > 0:
        raise ValueError(f"{value!r}: a duration must be above 0")
    return seconds


def format_duration(seconds: float) -> str:
    """The short form back: 5400 -> "1h30m", 90 -> "1m30s", 0.5 -> "0.5s"."""
    if seconds != int(seconds) or seconds < 60:
        return f"{seconds:g}s"
    left = int(seconds)
    out = ""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if left >= size:
            out += f"{left // size}{unit}"
            left %= size
    return out
