"""The parsed form of an IDL file: the subset orbench.idl uses, as frozen dataclasses.

Names in a `Ref` are resolved at parse time to the definition they mean, so the emitters never look names up.
"""

from __future__ import annotations

from dataclasses import dataclass

# IDL's basic types that the translator maps (char, wchar, any, fixed, long double are not used and refused).
BASIC_TYPES = ("boolean", "octet", "short", "unsigned short", "long", "unsigned long", "long long",
               "unsigned long long", "float", "double", "string")


@dataclass(frozen=True)
class Basic:
    name: str  # one of BASIC_TYPES


@dataclass(frozen=True)
class Sequence:
    element: Type


@dataclass(frozen=True)
class Ref:
    """A use of a named type (typedef or struct; an interface, an object reference, where capabilities are
    parsed), with the definition it resolved to."""

    definition: Typedef | Struct | Interface


Type = Basic | Sequence | Ref


@dataclass(frozen=True)
class Typedef:
    name: str
    type: Type
    line: int


@dataclass(frozen=True)
class Field:
    name: str
    type: Type


@dataclass(frozen=True)
class Struct:
    name: str
    fields: tuple[Field, ...]
    line: int


@dataclass(frozen=True)
class UserException:
    """An IDL exception (raised by operations that name it in `raises`); it may have no fields."""

    name: str
    fields: tuple[Field, ...]
    line: int


# A parameter's direction: what travels in the request (in, inout) and in the reply (out, inout).
DIRECTIONS = ("in", "out", "inout")


@dataclass(frozen=True)
class Param:
    name: str
    type: Type
    direction: str = "in"  # one of DIRECTIONS


@dataclass(frozen=True)
class Operation:
    name: str
    result: Type | None  # None: void
    params: tuple[Param, ...]
    oneway: bool
    line: int
    raises: tuple[UserException, ...] = ()


@dataclass(frozen=True)
class Interface:
    name: str
    operations: tuple[Operation, ...]  # its own, not its base's
    line: int
    base: Interface | None = None


Definition = Typedef | Struct | UserException | Interface


@dataclass(frozen=True)
class Module:
    name: str
    definitions: tuple[Definition, ...]
    source: str  # the IDL file's name, for the generated files' header


def resolved(t: Type) -> Type:
    """The type behind any chain of typedef aliases (a typedef of a sequence stays a Ref: it has a name)."""
    while isinstance(t, Ref) and isinstance(t.definition, Typedef) and not isinstance(t.definition.type, Sequence):
        t = t.definition.type
    return t
