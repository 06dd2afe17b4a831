"""The reference pages of the campaign keys and the descriptor keys, made from their JSON Schemas (the files that
validate them), so a key cannot be added without its page knowing it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from orbench.schemas import schema

from orbench_guide.markdown import cell


@dataclass(frozen=True)
class Key:
    """One key of a schema: its dotted path (NAME for a table's free names, [] for an array's items), what it
    takes, its default, whether it is required, and its description ("" when the schema gives none)."""

    path: str
    takes: str
    default: str
    required: bool
    description: str


def campaign_schema() -> dict[str, Any]:
    return schema("orbench.campaign", "campaign")


def descriptor_schema() -> dict[str, Any]:
    return schema("orbench.targets", "descriptor")


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """A property's schema with its $ref's definition under it (the property's own words win)."""
    ref = node.get("$ref")
    if not ref:
        return node
    target = root
    for part in ref.removeprefix("#/").split("/"):
        target = target[part]
    return {**_resolve(target, root), **{k: v for k, v in node.items() if k != "$ref"}}


def _takes(node: dict[str, Any], root: dict[str, Any]) -> str:
    """What a value may be, in a few words: a type, the values of an enum, an array of what."""
    if "enum" in node:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in node["enum"])
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    kind = node.get("type")
    if kind == "array" and isinstance(node.get("items"), dict):
        return f"array of {_takes(_resolve(node['items'], root), root)}"
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "object" and "propertyNames" in node and "enum" in node["propertyNames"]:
        return "table of " + ", ".join(f"`{v}`" for v in node["propertyNames"]["enum"])
    return kind or "any"


def keys(root: dict[str, Any]) -> list[Key]:
    """Every key the schema names, depth first in the schema's order."""
    out: list[Key] = []

    def walk(node: dict[str, Any], prefix: str) -> None:
        node = _resolve(node, root)
        required = set(node.get("required", ()))
        for name, child in node.get("properties", {}).items():
            child = _resolve(child, root)
            path = f"{prefix}{name}"
            default = json.dumps(child["default"]) if "default" in child else ""
            out.append(Key(path, _takes(child, root), default, name in required, child.get("description", "")))
            walk(child, path + ".")
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and (extra.get("properties") or extra.get("$ref")):
            walk(extra, prefix + "NAME.")
        items = node.get("items")
        if isinstance(items, dict) and _resolve(items, root).get("properties"):
            walk(items, prefix.removesuffix(".") + "[].")

    walk(root, "")
    return out


def undescribed(root: dict[str, Any]) -> list[str]:
    """The keys without a description: the test that keeps the reference whole fails on any."""
    return [k.path for k in keys(root) if not k.description.strip()]



def keys_page(root: dict[str, Any], title: str, intro: str) -> str:
    """A page of one schema's keys as a table, the schema's own description first."""
    lines = [f"# {title}", "", intro, "", cell(root.get("description", "")), "",
             "| key | takes | default | description |", "|---|---|---|---|"]
    for k in keys(root):
        name = f"`{k.path}`" + (" (required)" if k.required else "")
        default = f"`{k.default}`" if k.default else ""
        lines.append(f"| {name} | {k.takes} | {default} | {cell(k.description)} |")
    return "\n".join(lines) + "\n"
