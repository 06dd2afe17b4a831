"""IDL to Slice (ZeroC Ice 3.7). The rules (also in harness/PROTOCOL.md, "gRPC and Ice"):

- types: boolean bool, octet byte, short short, long int, long long long, float float, double double, string
  string; Slice has no unsigned types, so unsigned short becomes int, unsigned long long, and unsigned long long
  stays long (values from 2^63 up would wrap: orbench's counters never get there);
- typedef sequence<T> N becomes sequence<T> N; struct, interface and operation names stay as they are (the Slice
  compilers need --underscore for names like push_records); a name that is a Slice keyword in any case
  (`value` is one: Value) is escaped with a backslash;
- every use of a named type is written fully scoped (::orbench::Counters), as the IDL must for `counters`;
- `oneway` has no Slice keyword: an Ice oneway is a property of the proxy (ice_oneway()), and the operation is
  a void operation with in parameters, which a oneway proxy may call;
- an interface's base is `extends`; an exception is a Slice exception of the same fields, and `raises (E)` is
  `throws E`;
- parameters: `in` stays; `out` is a Slice out parameter; `inout`, which Slice lacks, is the in parameter plus an
  out parameter of the same type named NAME_out (the payload travels both ways, as with IDL inout, but in two
  arguments); Slice puts every out parameter after the in ones, so they move there in their order;
- operations named in `amd` get ["amd"] (asynchronous dispatch in the server: the ice servers use it for the
  sync barrier, so that a waiting barrier holds no thread of Ice's server thread pool).
"""

from __future__ import annotations

import argparse

from orbench.idl.emitter import Emitter, register
from orbench.idl.model import Basic, Interface, Module, Operation, Sequence, Struct, Type, Typedef, UserException
from orbench.idl.parser import IdlError

SCALARS = {
    "boolean": "bool",
    "octet": "byte",
    "short": "short",
    "unsigned short": "int",
    "long": "int",
    "unsigned long": "long",
    "long long": "long",
    "unsigned long long": "long",
    "float": "float",
    "double": "double",
    "string": "string",
}
# Slice 3.7's keywords; Slice compares identifiers with keywords case-insensitively.
KEYWORDS = {"bool", "byte", "class", "const", "double", "enum", "exception", "extends", "false", "float", "idempotent",
            "implements", "int", "interface", "local", "localobject", "long", "module", "object", "optional", "out",
            "sequence", "short", "string", "struct", "throws", "true", "value", "void"}


def ident(name: str) -> str:
    return f"\\{name}" if name.lower() in KEYWORDS else name


class SliceEmitter:
    def __init__(self, module: Module, java_package: str | None = None, amd: frozenset[str] = frozenset()):
        self.module = module
        self.java_package = java_package
        self.amd = amd

    def type(self, t: Type, line: int) -> str:
        if isinstance(t, Basic):
            return SCALARS[t.name]
        if isinstance(t, Sequence):
            raise IdlError(f"{self.module.source}:{line}: Slice has no anonymous sequences: typedef it in the IDL")
        return f"::{self.module.name}::{t.definition.name}"

    def emit(self) -> str:
        m = self.module
        known = {op.name for d in m.definitions if isinstance(d, Interface) for op in d.operations}
        unknown = sorted(self.amd - known)
        if unknown:
            raise IdlError(f"{m.source}: --amd names no operation: {', '.join(unknown)}")
        out = [f"// Generated from {m.source} by orbench.idl (harness/orbench/idl): do not edit.",
               "// The mapping rules: harness/PROTOCOL.md, \"gRPC and Ice\".", "#pragma once", ""]
        if self.java_package:
            out += [f'[["java:package:{self.java_package}"]]', ""]
        out += [f"module {ident(m.name)}", "{"]
        for d in m.definitions:
            if isinstance(d, Typedef):
                if not isinstance(d.type, Sequence):
                    raise IdlError(f"{m.source}:{d.line}: Slice has no type aliases (typedef {d.name})")
                out.append(f"    sequence<{self.type(d.type.element, d.line)}> {ident(d.name)};")
                out.append("")
            elif isinstance(d, (Struct, UserException)):
                out += [f"    {'struct' if isinstance(d, Struct) else 'exception'} {ident(d.name)}", "    {"]
                out += [f"        {self.type(f.type, d.line)} {ident(f.name)};" for f in d.fields]
                out += ["    }", ""]
            else:
                out += self.interface(d)
        out += ["}"]
        return "\n".join(out) + "\n"

    def interface(self, interface: Interface) -> list[str]:
        base = "" if interface.base is None else f" extends ::{self.module.name}::{interface.base.name}"
        out = [f"    interface {ident(interface.name)}{base}", "    {"]
        for op in interface.operations:
            result = "void" if op.result is None else self.type(op.result, op.line)
            if op.oneway:
                out.append("        // IDL oneway: called through an ice_oneway() proxy.")
            if any(p.direction == "inout" for p in op.params):
                out.append("        // IDL inout: Slice has none; the payload goes in one argument, back in another.")
            meta = '["amd"] ' if op.name in self.amd else ""
            throws = "" if not op.raises else " throws " + ", ".join(f"::{self.module.name}::{e.name}" for e in op.raises)
            out.append(f"        {meta}{result} {ident(op.name)}({self.params(op)}){throws};")
        out += ["    }", ""]
        return out

    def params(self, op: Operation) -> str:
        ins = [f"{self.type(p.type, op.line)} {ident(p.name)}" for p in op.params if p.direction != "out"]
        outs = [f"out {self.type(p.type, op.line)} {ident(p.name if p.direction == 'out' else p.name + '_out')}"
                for p in op.params if p.direction != "in"]
        names = [p.name for p in op.params]
        clash = next((p.name for p in op.params if p.direction == "inout" and p.name + "_out" in names), None)
        if clash is not None:
            raise IdlError(f"{self.module.source}:{op.line}: {op.name}: inout '{clash}' needs the name "
                           f"'{clash}_out' for its Slice out parameter, which another parameter has")
        return ", ".join(ins + outs)


def to_slice(module: Module, java_package: str | None = None, amd: frozenset[str] = frozenset()) -> str:
    return SliceEmitter(module, java_package, amd).emit()


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--java-package", help='[["java:package:..."]]')
    parser.add_argument("--amd", default="", help='operations to mark ["amd"], comma-separated')


def _emit(module: Module, args: argparse.Namespace) -> str:
    return to_slice(module, args.java_package, frozenset(n for n in args.amd.split(",") if n))


register(Emitter("slice", "Slice (ZeroC Ice)", _emit, _arguments, in_only=False))
