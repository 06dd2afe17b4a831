"""One codec between frozen dataclasses and JSON, for every typed record a run writes as JSON (summary.json's
sections, summary/model.py; the manifest's soak records, soak.py): a field's key is its name (or the `key` its
field gives), an optional field is left out when None, a `nullable` one written as null, a `flat` one (a Point,
a PointGroup) spreads its keys into the object holding it, a class's DERIVED properties are written and ignored
when read back."""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import field
from typing import Any, TypeVar

from orbench.results.point import PointGroup

T = TypeVar("T")


def optional(key: str | None = None) -> Any:
    """An optional key: absent from the JSON when None."""
    return field(default=None, metadata={"key": key} if key else {})


def nullable(key: str | None = None) -> Any:
    """A key always written, null when the value is None."""
    return field(default=None, metadata={"key": key, "keep": True} if key else {"keep": True})


def flat() -> Any:
    return field(metadata={"flat": True})


def _key(f: dataclasses.Field) -> str:
    return f.metadata.get("key") or f.name


def _is_optional(f: dataclasses.Field) -> bool:
    return f.default is None and not f.metadata.get("keep")


def to_json(value: Any) -> Any:
    """A record (or any value inside one) as JSON data: dicts, lists, numbers, strings."""
    if isinstance(value, PointGroup):
        return value.as_record()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if f.metadata.get("flat"):
                out.update(to_json(v))
            elif v is not None or not _is_optional(f):
                out[_key(f)] = to_json(v)
        for name in getattr(type(value), "DERIVED", ()):
            out[name] = to_json(getattr(value, name))
        return out
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    return value


def from_json(cls: type[T], data: Any) -> T:
    """The record of type `cls` that `data` (as to_json made it) describes. A key the type does not know is
    left out; a required one missing raises KeyError (summary.current_summary then recomputes)."""
    return _decode(cls, data)


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _decode(tp: Any, data: Any) -> Any:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        if data is None:
            return None
        (inner,) = [a for a in typing.get_args(tp) if a is not type(None)]
        return _decode(inner, data)
    if data is None:
        return None
    if isinstance(tp, type) and issubclass(tp, PointGroup):
        return tp.from_record(data)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = _hints(tp)
        values = {}
        for f in dataclasses.fields(tp):
            if f.metadata.get("flat"):
                values[f.name] = _decode(hints[f.name], data)
            elif _key(f) in data:
                values[f.name] = _decode(hints[f.name], data[_key(f)])
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise KeyError(f"{tp.__name__}: no {_key(f)!r} in {sorted(data)}")
        return tp(**values)
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v) for v in data)
        return tuple(_decode(a, v) for a, v in zip(args, data))
    if origin is list:
        return [_decode(typing.get_args(tp)[0], v) for v in data]
    if origin is dict:
        value_type = typing.get_args(tp)[1]
        return {k: _decode(value_type, v) for k, v in data.items()}
    if tp is float and isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    return data
