"""IDL to proto3 for gRPC. The rules (also in harness/PROTOCOL.md, "gRPC and Ice"):

- integers map to the fixed-width proto types of the same size and sign (long: sfixed32, unsigned long long:
  fixed64; short and octet, which proto lacks, to sfixed32 / fixed32), so a value's wire size does not depend
  on the value as a varint's would; boolean, float, double, string map to themselves;
- a struct is a message; a typedef of a sequence is a message with one field, `items`
  (`sequence<octet>`: `bytes`, else `repeated`); inside a struct a sequence field is that field inline;
- an operation takes its one parameter's message when that parameter is a struct or a sequence typedef, else
  a message `<Operation>Request` of its parameters (none: `Empty`); it returns its result's message, `Empty`
  for void, or `<Operation>Reply { result = 1 }` for a basic type;
- a `oneway` operation is a client-streaming call, `rpc op(stream Request) returns (Empty)`: gRPC has no
  oneway, and the workers send one stream message per call (PROTOCOL.md says what that changes);
- parameters: `in` and `inout` ones travel in the request, `out` and `inout` ones and the result in the reply
  (one value that is a struct or a sequence typedef: its own message, as above; else `<Operation>Reply` with
  `result` first, then those parameters by name): so an inout payload goes in the request and comes back in
  the reply;
- an interface's base: proto has no service inheritance, so a derived interface is a service of its own
  operations only, served beside its base's service (a client calls the base's operations on the base's);
- a user exception has no proto form (gRPC has no typed errors): an operation that raises it fails with status
  FAILED_PRECONDITION whose message is the exception's name and its fields as `name=value`, space-separated
  (`Refused count=4`); the proto says so in a comment.
"""

from __future__ import annotations

import argparse

from orbench.idl.emitter import Emitter, register
from orbench.idl.model import (
    Basic,
    Interface,
    Module,
    Operation,
    Ref,
    Sequence,
    Struct,
    Type,
    Typedef,
    UserException,
    resolved,
)
from orbench.idl.parser import IdlError

SCALARS = {
    "boolean": "bool",
    "octet": "fixed32",
    "short": "sfixed32",
    "unsigned short": "fixed32",
    "long": "sfixed32",
    "unsigned long": "fixed32",
    "long long": "sfixed64",
    "unsigned long long": "fixed64",
    "float": "float",
    "double": "double",
    "string": "string",
}
EMPTY = "Empty"
# The status a raising operation fails with (a user exception's nearest gRPC equivalent).
RAISED_STATUS = "FAILED_PRECONDITION"


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


class ProtoEmitter:
    def __init__(self, module: Module, java_package: str | None = None):
        self.module = module
        self.java_package = java_package
        self.lines: list[str] = []
        self.messages: set[str] = {EMPTY}

    def emit(self) -> str:
        m = self.module
        out = [f"// Generated from {m.source} by orbench.idl (harness/orbench/idl): do not edit.",
               "// The mapping rules: harness/PROTOCOL.md, \"gRPC and Ice\".",
               'syntax = "proto3";', "", f"package {m.name};", ""]
        if self.java_package:
            out += [f'option java_package = "{self.java_package}";', "option java_multiple_files = true;", ""]
        out += ["// Operations without arguments, and void results.", f"message {EMPTY} {{}}", ""]
        self.lines = out
        for d in m.definitions:
            if isinstance(d, Struct):
                self.struct(d)
            elif isinstance(d, Typedef) and isinstance(d.type, Sequence):
                self.message(d.name, [(self.sequence_field(d.type), "items")], f"typedef {_idl(d.type)} {d.name}")
        for d in m.definitions:
            if isinstance(d, UserException):
                self.exception(d)
            elif isinstance(d, Interface):
                self.service(d)
        return "\n".join(self.lines).rstrip() + "\n"

    def add_message_name(self, name: str, line: int) -> None:
        if name in self.messages:
            raise IdlError(f"{self.module.source}:{line}: proto message name '{name}' is used twice")
        self.messages.add(name)

    def message(self, name: str, fields: list[tuple[str, str]], comment: str, line: int = 0) -> None:
        self.add_message_name(name, line)
        self.lines.append(f"// {comment}")
        self.lines.append(f"message {name} {{")
        for number, (ptype, fname) in enumerate(fields, start=1):
            self.lines.append(f"  {ptype} {fname} = {number};")
        self.lines += ["}", ""]

    def struct(self, s: Struct) -> None:
        self.message(s.name, [(self.field_type(f.type, s.line), f.name) for f in s.fields], f"struct {s.name}", s.line)

    def sequence_field(self, seq: Sequence, line: int = 0) -> str:
        element = resolved(seq.element)
        if isinstance(element, Basic) and element.name == "octet":
            return "bytes"
        if isinstance(element, Sequence) or (isinstance(element, Ref) and isinstance(element.definition, Typedef)):
            if isinstance(element, Ref):
                return f"repeated {element.definition.name}"  # the typedef's wrapper message
            raise IdlError(f"{self.module.source}:{line}: an anonymous sequence of sequences has no proto form")
        return f"repeated {self.field_type(element, line)}"

    def field_type(self, t: Type, line: int) -> str:
        t = resolved(t)
        if isinstance(t, Basic):
            return SCALARS[t.name]
        if isinstance(t, Sequence):
            return self.sequence_field(t, line)
        if isinstance(t.definition, Struct):
            return t.definition.name
        return self.sequence_field(t.definition.type, line)  # a sequence typedef used as a field: inline

    def message_of(self, t: Type) -> str | None:
        """The message a parameter or result of type `t` travels as by itself, or None when it needs a wrapper."""
        t = resolved(t)
        if isinstance(t, Ref):
            return t.definition.name
        return None

    def request(self, op: Operation) -> str:
        params = [p for p in op.params if p.direction != "out"]
        if not params:
            return EMPTY
        if len(params) == 1:
            own = self.message_of(params[0].type)
            if own is not None:
                return own
        name = f"{camel(op.name)}Request"
        self.message(name, [(self.field_type(p.type, op.line), p.name) for p in params],
                     f"the arguments of {op.name}", op.line)
        return name

    def reply(self, op: Operation) -> str:
        values = ([] if op.result is None else [(op.result, "result")]) + \
            [(p.type, p.name) for p in op.params if p.direction != "in"]
        if not values:
            return EMPTY
        if len(values) == 1:
            own = self.message_of(values[0][0])
            if own is not None:
                return own
        name = f"{camel(op.name)}Reply"
        what = "result" if values == [(op.result, "result")] else "reply"
        self.message(name, [(self.field_type(t, op.line), n) for t, n in values], f"the {what} of {op.name}", op.line)
        return name

    def exception(self, e: UserException) -> None:
        fields = "".join(f" {f.name}=<{f.name}>" for f in e.fields)
        self.lines += [f"// exception {e.name}: gRPC has no user exceptions; an operation that raises it fails",
                       f"// with status {RAISED_STATUS} and the message \"{e.name}{fields}\".", ""]

    def service(self, interface: Interface) -> None:
        rpcs = []
        for op in interface.operations:
            request, reply = self.request(op), self.reply(op)
            if op.oneway:
                rpcs.append("  // IDL oneway: one stream message per call (gRPC has no oneway).")
                rpcs.append(f"  rpc {op.name}(stream {request}) returns ({reply});")
                continue
            if any(p.direction == "inout" for p in op.params):
                rpcs.append("  // IDL inout: the payload goes in the request and comes back in the reply.")
            if op.raises:
                names = ", ".join(e.name for e in op.raises)
                rpcs.append(f"  // raises {names}: status {RAISED_STATUS} (gRPC has no user exceptions).")
            rpcs.append(f"  rpc {op.name}({request}) returns ({reply});")
        head = [f"// interface {interface.name}"]
        if interface.base is not None:
            head = [f"// interface {interface.name} : {interface.base.name}: its own operations here, those of "
                    f"{interface.base.name} in service", f"// {interface.base.name} (proto has no service inheritance)."]
        self.lines += [*head, f"service {interface.name} {{", *rpcs, "}", ""]


def _idl(t: Type) -> str:
    if isinstance(t, Basic):
        return t.name
    if isinstance(t, Sequence):
        return f"sequence<{_idl(t.element)}>"
    return t.definition.name


def to_proto(module: Module, java_package: str | None = None) -> str:
    return ProtoEmitter(module, java_package).emit()


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--java-package", help="option java_package (and java_multiple_files)")


register(Emitter("proto", "proto3 (gRPC)", lambda module, args: to_proto(module, args.java_package), _arguments,
                 in_only=False))
