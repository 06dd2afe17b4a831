"""The project's TOML files (campaigns, target descriptors) read and checked against their JSON Schemas, with
every mistake named by file, key and value, and a near miss of a known key suggested."""

from __future__ import annotations

import difflib
import json
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from orbench.errors import UserError


def schema(package: str, name: str) -> dict[str, Any]:
    """A JSON Schema shipped beside the code that uses it, e.g. schema("orbench.campaign", "campaign")."""
    return json.loads(resources.files(package).joinpath(f"{name}.schema.json").read_text())


def read_toml(path: Path, what: str) -> dict[str, Any]:
    """A TOML file's data; UserError naming the file when it is missing, not UTF-8 or not TOML."""
    if not path.is_file():
        raise UserError(f"{what} {path} not found")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not a UTF-8 text file (byte {exc.start} is {exc.object[exc.start]:#04x}); "
                        f"save the {what} as UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: not valid TOML: {exc}") from None


def check(path: Path, data: dict[str, Any], rules: dict[str, Any]) -> None:
    """UserError listing every place `data` breaks `rules` (a JSON Schema), each with its key and value."""
    errors = sorted(jsonschema.Draft202012Validator(rules).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        raise UserError("\n".join(explain(path, e, rules) for e in errors))


def where(error: jsonschema.ValidationError) -> str:
    """The key of an error as a reader writes it: supports.modes[1], option_sets[0].tcp_nodelay."""
    parts: list[str] = []
    for p in error.absolute_path:
        parts.append(f"[{p}]" if isinstance(p, int) else (f".{p}" if parts else str(p)))
    return "".join(parts) or "(top level)"


def explain(path: Path, error: jsonschema.ValidationError, rules: dict[str, Any]) -> str:
    """One mistake in words: unknown keys with a near miss suggested; otherwise key, value and the rule, in the
    schema's own words where it has them (`x-error`; a `description` for a rule with no message: not, if)."""
    if error.validator == "additionalProperties":
        known = list(error.schema.get("properties", {}))
        hints = []
        for k in [k for k in error.instance if k not in known]:
            close = difflib.get_close_matches(k, known, n=1)
            hints.append(f"unknown key {k!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        inside = "" if not error.absolute_path else f"key {where(error)}: "
        return f"{path}: {inside}{'; '.join(hints)}. Known keys: {', '.join(known)}"
    if error.validator in ("not", "if") and error.schema.get("description"):
        return f"{path}: key {where(error)}: {error.schema['description']}"
    # A rule whose schema words its own message (x-error), e.g. an address pattern no reader should decode.
    message = error.schema.get("x-error") or error.message
    return f"{path}: key {where(error)}: value {error.instance!r}: {message}"
