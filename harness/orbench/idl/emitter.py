"""The IDL emitters, found by name: one module each in orbench/idl/emitters/, which registers itself when it is
imported (`register(Emitter(...))`). The translator (`python3 -m orbench.idl NAME ...`), CMake's
orbench_translate_idl(NAME ...) and a family's `idl` key (harness/targets/families.toml) name one; a new
interface language is a new module there, and no other file changes.

Standard library only, as the whole translator: a build runs it with the system python3 before any venv exists.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

from orbench.idl.model import Module


@dataclass(frozen=True)
class Emitter:
    """One interface language: `emit` writes the text of its file from the parsed IDL and the arguments that
    `add_arguments` declared (argparse's namespace; none: a function that declares nothing). `in_only`: the
    language has in parameters only, no out parameters or user exceptions, so it is given the IDL without the
    invocation shapes (parser.py, ORBENCH_IN_ONLY). `capabilities`: its calls return object references that a
    call can be made on before the reply (promise pipelining), so it is given the IDL's ORBENCH_CAPABILITIES
    block too."""

    name: str
    description: str                                   # one line: "proto3 (gRPC)"
    emit: Callable[[Module, argparse.Namespace], str]
    add_arguments: Callable[[argparse.ArgumentParser], None] = lambda parser: None
    in_only: bool = True
    capabilities: bool = False


_registered: dict[str, Emitter] = {}


def register(emitter: Emitter) -> Emitter:
    """Called by an emitter module when it is imported; a second emitter of one name is a mistake."""
    known = _registered.get(emitter.name)
    if known is not None and known.emit is not emitter.emit:
        raise ValueError(f"two IDL emitters are named {emitter.name!r}")
    _registered[emitter.name] = emitter
    return emitter


def known_emitters() -> dict[str, Emitter]:
    """Every emitter, by name: the modules of the emitters package (every directory on its __path__) imported."""
    from orbench.idl import emitters as package

    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{info.name}")
    return dict(sorted(_registered.items()))


def get_emitter(name: str) -> Emitter:
    """The emitter of that name; KeyError naming the known ones."""
    known = known_emitters()
    if name not in known:
        raise KeyError(f"no IDL emitter {name!r} (known: {', '.join(known)}; one is a module in orbench/idl/emitters/)")
    return known[name]
