"""IDL to a Cap'n Proto schema (Cap'n Proto 0.9). The rules (also in harness/PROTOCOL.md, "Cap'n Proto"):

- types: boolean Bool, octet UInt8, short Int16, unsigned short UInt16, long Int32, unsigned long UInt32,
  long long Int64, unsigned long long UInt64, float Float32, double Float64, string Text;
- `sequence<octet>` is `Data`, any other sequence `List(T)`; a typedef is replaced by what it names (a schema
  names types, it has no aliases of built-in ones);
- names: Cap'n Proto refuses underscores in a name and wants types in UpperCamelCase, everything else in
  lowerCamelCase, so `push_records` becomes `pushRecords` and `timeout_ms` `timeoutMs` (a binding calls the
  operations by these names: cpp/common/idl_client.hpp);
- struct fields, methods and the parameters of each method are numbered from @0 in their IDL order; a
  result is one field `result`;
- interface is interface, `interface B : A` is `interface B extends(A)`, an interface used as a type (in the
  IDL's ORBENCH_CAPABILITIES block, which this emitter is given) a capability;
- `oneway` is a streaming method (`-> stream`): Cap'n Proto has no oneway, and a
  streaming call is its flow-controlled one-way-in-spirit call (the server still returns, the caller does not
  wait for each return; PROTOCOL.md says what that means for a comparison).
The file's 64-bit id is derived from the module's name, so the same IDL gives the same schema.
"""

from __future__ import annotations

import argparse
import hashlib
import re

from orbench.idl.emitter import Emitter, register
from orbench.idl.model import Basic, Interface, Module, Sequence, Struct, Type, Typedef, resolved
from orbench.idl.parser import IdlError

SCALARS = {
    "boolean": "Bool",
    "octet": "UInt8",
    "short": "Int16",
    "unsigned short": "UInt16",
    "long": "Int32",
    "unsigned long": "UInt32",
    "long long": "Int64",
    "unsigned long long": "UInt64",
    "float": "Float32",
    "double": "Float64",
    "string": "Text",
}
# The words of the schema language that no name may be.
KEYWORDS = {"annotation", "const", "enum", "extends", "false", "import", "inf", "interface", "struct", "true",
            "union", "using", "void", "stream", "group"}


def camel(name: str, upper: bool) -> str:
    """`push_records` -> `pushRecords` (upper: `PushRecords`)."""
    parts = [p for p in name.split("_") if p]
    text = parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])
    return (text[:1].upper() if upper else text[:1].lower()) + text[1:]


def file_id(module: str) -> str:
    """A schema file's id: 64 bits with the top bit set, from the module's name."""
    value = int.from_bytes(hashlib.sha256(f"orbench.idl:{module}".encode()).digest()[:8], "big")
    return f"@0x{value | (1 << 63):016x}"


class CapnpEmitter:
    def __init__(self, module: Module, namespace: str):
        self.module = module
        self.namespace = namespace

    def name(self, name: str, line: int, upper: bool = False) -> str:
        out = camel(name, upper)
        if out in KEYWORDS or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", out):
            raise IdlError(f"{self.module.source}:{line}: '{name}' cannot be a Cap'n Proto name ('{out}')")
        return out

    def type(self, t: Type, line: int) -> str:
        t = resolved(t)
        if isinstance(t, Basic):
            return SCALARS[t.name]
        if isinstance(t, Sequence):
            if isinstance(t.element, Basic) and t.element.name == "octet":
                return "Data"
            return f"List({self.type(t.element, line)})"
        if isinstance(t.definition, Typedef):  # a typedef of a sequence: what it names
            return self.type(t.definition.type, line)
        return self.name(t.definition.name, line, upper=True)  # a struct, or an interface: a capability

    def emit(self) -> str:
        m = self.module
        out = [f"# Generated from {m.source} by orbench.idl (harness/orbench/idl): do not edit.",
               "# The mapping rules: harness/PROTOCOL.md, \"Cap'n Proto\".", "",
               f"{file_id(m.name)};", "",
               'using Cxx = import "/capnp/c++.capnp";',
               f'$Cxx.namespace("{self.namespace}");', ""]
        for d in m.definitions:
            if isinstance(d, Typedef):
                continue
            if isinstance(d, Struct):
                out.append(f"struct {self.name(d.name, d.line, upper=True)} {{")
                out += [f"  {self.name(f.name, d.line)} @{i} :{self.type(f.type, d.line)};"
                        for i, f in enumerate(d.fields)]
                out += ["}", ""]
            elif isinstance(d, Interface):
                out += self.interface(d)
        return "\n".join(out).rstrip() + "\n"

    def interface(self, interface: Interface) -> list[str]:
        base = f" extends({self.name(interface.base.name, interface.line, upper=True)})" if interface.base else ""
        out = [f"interface {self.name(interface.name, interface.line, upper=True)}{base} {{"]
        for n, op in enumerate(interface.operations):
            params = ", ".join(f"{self.name(p.name, op.line)} :{self.type(p.type, op.line)}" for p in op.params)
            if op.oneway:
                result = "stream"
            elif op.result is None:
                result = "()"
            else:
                result = f"(result :{self.type(op.result, op.line)})"
            out.append(f"  {self.name(op.name, op.line)} @{n} ({params}) -> {result};")
        return out + ["}", ""]


def to_capnp(module: Module, namespace: str = "orbench::schema") -> str:
    return CapnpEmitter(module, namespace).emit()


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cxx-namespace", default="orbench::schema", help="the C++ namespace of the generated code")


register(Emitter("capnp", "Cap'n Proto schema", lambda module, args: to_capnp(module, args.cxx_namespace),
                 _arguments, capabilities=True))
