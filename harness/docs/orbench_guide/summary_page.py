"""The reference page of summary.json, made from the codec's types (orbench/summary/model.py, one frozen dataclass
per section) and the description of each key in harness/docs/summary-fields.toml: a key added to the types
without a description there, or a description of a key that is gone, fails the guide's tests."""

from __future__ import annotations

import dataclasses
import tomllib
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orbench.summary.model import SUMMARY_VERSION, RunSummary

from orbench_guide.markdown import cell

DESCRIPTIONS = Path(__file__).resolve().parents[1] / "summary-fields.toml"


@dataclass(frozen=True)
class Field:
    section: str        # the dataclass's name
    key: str            # its JSON key
    takes: str          # its JSON type, in words; sections are named as [Section]
    # always, optional (absent when None), nullable (null when no value), flat, derived (a DERIVED property),
    # inherited (the keys of the section's base class)
    presence: str


def _is_record(tp: Any) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


def _takes(tp: Any, found: list[type]) -> str:
    """A type in JSON's words; each dataclass met is added to `found` (the sections still to describe)."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_takes(a, found) for a in args if a is not type(None))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return f"array of {_takes(args[0], found)}"
        return "[" + ", ".join(_takes(a, found) for a in args) + "]"
    if origin is list:
        return f"array of {_takes(args[0], found)}"
    if origin is dict:
        return f"object of {_takes(args[1], found)}"
    if _is_record(tp):
        if tp not in found:
            found.append(tp)
        return f"[{tp.__name__}](#{tp.__name__.lower()})"
    return {int: "integer", float: "number", str: "string", bool: "boolean"}.get(tp, getattr(tp, "__name__", str(tp)))


def _record_base(cls: type) -> type | None:
    """The dataclass a section's class extends (Point extends PointGroup): its keys are described once, there."""
    return next((b for b in cls.__mro__[1:] if _is_record(b)), None)


def _doc(cls: type) -> str:
    """The class's docstring; dataclass makes one of the signature where there is none."""
    doc = cls.__doc__ or ""
    return "" if doc.startswith(f"{cls.__name__}(") else doc


def _presence(f: dataclasses.Field) -> str:
    if f.metadata.get("flat"):
        return "flat"
    if f.metadata.get("keep"):
        return "nullable"
    return "optional" if f.default is None else "always"


def sections() -> dict[type, list[Field]]:
    """Every dataclass summary.json is made of, from RunSummary down, with its keys in the codec's order."""
    found: list[type] = [RunSummary]
    out: dict[type, list[Field]] = {}
    for cls in found:   # grows as fields name further sections
        hints = typing.get_type_hints(cls)
        fields = []
        base = _record_base(cls)
        if base is not None:
            fields.append(Field(cls.__name__, "...", _takes(base, found), "inherited"))
        inherited = {f.name for f in dataclasses.fields(base)} if base else set()
        for f in dataclasses.fields(cls):
            if f.name in inherited:
                continue
            key = f.metadata.get("key") or f.name
            takes, presence = _takes(hints[f.name], found), _presence(f)
            if presence == "always" and type(None) in typing.get_args(hints[f.name]):
                takes += " or null"
            fields.append(Field(cls.__name__, key, takes, presence))
        for name in getattr(cls, "DERIVED", ()):
            returns = typing.get_type_hints(getattr(cls, name).fget).get("return", Any)
            fields.append(Field(cls.__name__, name, _takes(returns, found), "derived"))
        out[cls] = fields
    return out


def descriptions(toml: str | None = None) -> dict[str, dict[str, str]]:
    """The descriptions by section and key: summary-fields.toml's, or those of the TOML text given."""
    return tomllib.loads(DESCRIPTIONS.read_text() if toml is None else toml)


def undescribed(toml: str | None = None) -> list[str]:
    """Keys of the types without a description, and descriptions of keys the types do not have."""
    text = descriptions(toml)
    known = {(cls.__name__, f.key) for cls, fields in sections().items() for f in fields if f.presence != "inherited"}
    missing = [f"{s}.{k}: no description in {DESCRIPTIONS.name}" for s, k in sorted(known)
               if not text.get(s, {}).get(k, "").strip()]
    stale = [f"{s}.{k}: described in {DESCRIPTIONS.name}, not a key of summary.json"
             for s, keys in text.items() for k in keys if (s, k) not in known]
    return missing + stale


PRESENCE = {"always": "always", "optional": "absent when it has no value", "nullable": "null when it has no value",
            "flat": "its keys are this object's", "inherited": "every key of that section",
            "derived": "written for readers, ignored when read back"}



def summary_page() -> str:
    text = descriptions()
    lines = ["# summary.json", "",
             f"Made from the codec's types (`harness/orbench/summary/model.py`, summary version {SUMMARY_VERSION}) "
             "and the descriptions in `harness/docs/summary-fields.toml` when the guide is built. A run's "
             "`summary.json` is one [RunSummary](#runsummary) object. A key whose value is absent or null has "
             "no value in that run (a point without a paired baseline has no `orb_added_latency_ns`); times are "
             "in nanoseconds unless the key says otherwise (`_us`: microseconds).", ""]
    for cls, fields in sections().items():
        lines += [f"## {cls.__name__}", "", cell(_doc(cls)), "",
                  "| key | value | present | what it is |", "|---|---|---|---|"]
        for f in fields:
            about = "" if f.presence == "inherited" else text.get(cls.__name__, {}).get(f.key, "")
            lines.append(f"| `{f.key}` | {f.takes} | {PRESENCE[f.presence]} | {cell(about)} |")
        lines.append("")
    return "\n".join(lines)
