"""The middleware families (harness/targets/families.toml): for each, its label, the protocol its workers speak,
its servers' endpoint and how to read the port from it, the IDL emitter that writes its interface file, and what
a new target of it needs. A new family is data there (and an emitter module, if it has an interface language),
not a change to the descriptor schema or to harness code."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from orbench.errors import UserError
from orbench.idl.emitter import known_emitters
from orbench.paths import targets_dir
from orbench.schemas import check, read_toml, schema
from orbench.targets.endpoints import PORT_READERS, SOCKET_FORM, EndpointForm

FAMILIES_FILE = "families.toml"
# What the socket baselines and the known-answer servers speak (PROTOCOL.md): no family's.
SOCKET_PROTOCOL = "the OBSK wire format"


@dataclass(frozen=True)
class Family:
    name: str
    label: str
    protocol: str
    endpoint: EndpointForm
    idl: str | None = None                     # the IDL emitter of its interface file; None: its own compiler
    steps: tuple[tuple[str, str], ...] = ()    # (language, text)
    extra_segments: str | None = None          # why a request is more than one segment, in its own words

    def steps_for(self, language: str) -> list[str]:
        return [text for lang, text in self.steps if lang == language]


def families_path(directory: Path | None = None) -> Path:
    return (directory or targets_dir()) / FAMILIES_FILE


@cache
def _read(path: Path) -> dict[str, Family]:
    data = read_toml(path, "family registry")
    check(path, data, schema("orbench.targets", "families"))
    emitters = known_emitters()
    out = {}
    for name, t in data.items():
        for key in ("endpoint", "port_pattern"):
            if key in t:
                try:
                    compiled = re.compile(t[key])
                except re.error as exc:
                    raise UserError(f"{path}: key {name}.{key}: value {t[key]!r}: not a regular expression: {exc}") \
                        from None
                if key == "port_pattern" and "port" not in compiled.groupindex:
                    raise UserError(f"{path}: key {name}.port_pattern: value {t[key]!r}: has no group (?P<port>...)")
        if "port_reader" in t and t["port_reader"] not in PORT_READERS:
            raise UserError(f"{path}: key {name}.port_reader: value {t['port_reader']!r}: not a reader of "
                            f"harness/orbench/targets/endpoints.py ({', '.join(PORT_READERS)}); a textual endpoint "
                            "needs none: give port_pattern")
        if "idl" in t and t["idl"] not in emitters:
            raise UserError(f"{path}: key {name}.idl: value {t['idl']!r}: no such IDL emitter ({', '.join(emitters)}"
                            f"); one is a module harness/orbench/idl/emitters/{t['idl']}.py")
        out[name] = Family(name=name, label=t["label"], protocol=t["protocol"],
                           endpoint=EndpointForm(t["endpoint"], t.get("port_pattern"), t.get("port_reader")),
                           idl=t.get("idl"), steps=tuple((s["language"], s["text"]) for s in t.get("steps", [])),
                           extra_segments=t.get("extra_segments"))
    return out


def read_families(directory: Path | None = None) -> dict[str, Family]:
    """Every family, by name (read once per file)."""
    path = families_path(directory)
    if not path.exists():
        raise UserError(f"{path}: missing; it lists the middleware families an orb target may belong to")
    return _read(path)


def endpoint_form(family: str | None) -> EndpointForm:
    """The endpoint of a target of that family; None: a socket baseline's (or a known-answer server's)."""
    return SOCKET_FORM if family is None else read_families()[family].endpoint


def protocol_of(family: str | None) -> str:
    return SOCKET_PROTOCOL if family is None else read_families()[family].protocol
