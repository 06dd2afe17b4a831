"""IDL to Thrift IDL (Apache Thrift 0.17). The rules (also in harness/PROTOCOL.md, "Thrift"):

- types: boolean bool, octet i8 (signed: the same 8 bits), short i16, long i32,
  long long i64, double double, string string; Thrift has no unsigned types, so unsigned short becomes i32,
  unsigned long and unsigned long long i64 (from 2^63 a value would wrap: orbench's counters never get there);
  float, which Thrift lacks, becomes double;
- `sequence<octet>` is `binary`, any other sequence `list<T>`; a typedef stays a typedef;
- struct fields, and the parameters of an operation, are numbered from 1 in their IDL order;
- interface is service; `oneway` is Thrift's own oneway (no reply is sent, none is awaited).
Thrift has no way to escape a name, so an IDL name that is a Thrift keyword is refused.
"""

from __future__ import annotations

import argparse

from orbench.idl.emitter import Emitter, register
from orbench.idl.model import Basic, Interface, Module, Sequence, Struct, Type, Typedef
from orbench.idl.parser import IdlError

SCALARS = {
    "boolean": "bool",
    "octet": "i8",
    "short": "i16",
    "unsigned short": "i32",
    "long": "i32",
    "unsigned long": "i64",
    "long long": "i64",
    "unsigned long long": "i64",
    "float": "double",
    "double": "double",
    "string": "string",
}
# The words of Thrift's own grammar (thriftl.ll), which no identifier may be.
KEYWORDS = {"binary", "bool", "byte", "const", "cpp_include", "cpp_type", "double", "enum", "exception", "extends",
            "i16", "i32", "i64", "i8", "include", "list", "map", "namespace", "oneway", "optional", "required", "senum",
            "service", "set", "slist", "string", "struct", "throws", "typedef", "union", "void", "xsd_all",
            "xsd_attrs", "xsd_nillable", "xsd_optional"}


class ThriftEmitter:
    def __init__(self, module: Module, java_package: str | None = None):
        self.module = module
        self.java_package = java_package

    def name(self, name: str, line: int) -> str:
        if name in KEYWORDS:
            raise IdlError(f"{self.module.source}:{line}: '{name}' is a Thrift keyword, and Thrift cannot escape it")
        return name

    def type(self, t: Type, line: int) -> str:
        if isinstance(t, Basic):
            return SCALARS[t.name]
        if isinstance(t, Sequence):
            if isinstance(t.element, Basic) and t.element.name == "octet":
                return "binary"
            return f"list<{self.type(t.element, line)}>"
        return t.definition.name

    def emit(self) -> str:
        m = self.module
        out = [f"// Generated from {m.source} by orbench.idl (harness/orbench/idl): do not edit.",
               "// The mapping rules: harness/PROTOCOL.md, \"Thrift\".", "",
               f"namespace cpp {self.name(m.name, 0)}"]
        if self.java_package:
            out.append(f"namespace java {self.java_package}")
        out.append("")
        for d in m.definitions:
            if isinstance(d, Typedef):
                out += [f"typedef {self.type(d.type, d.line)} {self.name(d.name, d.line)}", ""]
            elif isinstance(d, Struct):
                out.append(f"struct {self.name(d.name, d.line)} {{")
                out += [f"  {i}: {self.type(f.type, d.line)} {self.name(f.name, d.line)}"
                        for i, f in enumerate(d.fields, start=1)]
                out += ["}", ""]
            else:
                out += self.service(d)
        return "\n".join(out).rstrip() + "\n"

    def service(self, interface: Interface) -> list[str]:
        out = [f"service {self.name(interface.name, interface.line)} {{"]
        for op in interface.operations:
            result = "void" if op.result is None else self.type(op.result, op.line)
            params = ", ".join(f"{i}: {self.type(p.type, op.line)} {self.name(p.name, op.line)}"
                               for i, p in enumerate(op.params, start=1))
            out.append(f"  {'oneway ' if op.oneway else ''}{result} {self.name(op.name, op.line)}({params})")
        return out + ["}", ""]


def to_thrift(module: Module, java_package: str | None = None) -> str:
    return ThriftEmitter(module, java_package).emit()


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--java-package", help="namespace java")


register(Emitter("thrift", "Thrift IDL (Apache Thrift)", lambda module, args: to_thrift(module, args.java_package),
                 _arguments))
