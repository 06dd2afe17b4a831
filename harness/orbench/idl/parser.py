"""A parser for the subset of OMG IDL that orbench.idl uses: one module of typedefs, structs, exceptions and
interfaces (single inheritance) whose operations take `in`, `out` and `inout` parameters and may raise exceptions.
Anything else is refused with the file and line, never skipped.

Preprocessor lines (#ifndef, #define, #endif, #include) are dropped: the file is read as one translation unit,
with ORBENCH_TRANSLATED defined: a block `#ifndef ORBENCH_TRANSLATED` .. `#endif` (what only the CORBA ORBs
compile: wstring, the DSI) is left out whole. A parse for a language with `in` parameters only (`in_only`:
Thrift) also defines ORBENCH_IN_ONLY, whose block holds the invocation shapes (out and inout parameters, user
exceptions), and refuses those constructs should they appear outside it. A parse for a language whose calls
return object references usable before the reply (`capabilities`: Cap'n Proto) defines ORBENCH_CAPABILITIES:
only then is a block `#ifdef ORBENCH_CAPABILITIES` .. `#endif` read, where an interface may be a type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from orbench.idl.model import (
    BASIC_TYPES,
    DIRECTIONS,
    Basic,
    Definition,
    Field,
    Interface,
    Module,
    Operation,
    Param,
    Ref,
    Sequence,
    Struct,
    Type,
    Typedef,
    UserException,
)


class IdlError(Exception):
    """A construct the translator cannot read or map, with the file and line."""


@dataclass(frozen=True)
class Token:
    text: str
    line: int


# IDL constructs this translator knows it does not map: refused by name rather than as a syntax error.
_UNSUPPORTED = {"const", "enum", "union", "attribute", "readonly", "context", "valuetype", "any", "char", "wchar",
                "wstring", "fixed", "native", "abstract", "local", "Object"}
# What only a language with out parameters and user exceptions gets (Parser's in_only).
_SHAPES_ONLY = "is not supported by the translator for a language with in parameters only"


class Parser:
    def __init__(self, text: str, source: str, in_only: bool = True, capabilities: bool = False):
        self.source = source
        self.in_only = in_only
        defined = {TRANSLATED, IN_ONLY} if in_only else {TRANSLATED}
        self.defined = frozenset(defined | ({CAPABILITIES} if capabilities else set()))
        self.tokens = _scan(text, source, self.defined)
        self.pos = 0
        self.names: dict[str, Typedef | Struct] = {}  # by plain name within the module
        self.exceptions: dict[str, UserException] = {}
        self.interfaces: dict[str, Interface] = {}
        self.module = ""

    # ---- token helpers
    def peek(self, offset: int = 0) -> Token | None:
        i = self.pos + offset
        return self.tokens[i] if i < len(self.tokens) else None

    def error(self, message: str, tok: Token | None = None) -> IdlError:
        tok = tok or self.peek() or (self.tokens[-1] if self.tokens else Token("", 1))
        return IdlError(f"{self.source}:{tok.line}: {message}")

    def next(self) -> Token:
        tok = self.peek()
        if tok is None:
            raise self.error("unexpected end of file")
        self.pos += 1
        return tok

    def expect(self, text: str) -> Token:
        tok = self.next()
        if tok.text != text:
            raise self.error(f"expected '{text}', found '{tok.text}'", tok)
        return tok

    def accept(self, text: str) -> bool:
        tok = self.peek()
        if tok is not None and tok.text == text:
            self.pos += 1
            return True
        return False

    def identifier(self) -> Token:
        tok = self.next()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", tok.text):
            raise self.error(f"expected a name, found '{tok.text}'", tok)
        if tok.text in _UNSUPPORTED:
            raise self.error(f"'{tok.text}' is not supported by the translator", tok)
        return tok

    # ---- grammar
    def parse(self) -> Module:
        modules: list[Module] = []
        while self.peek() is not None:
            tok = self.next()
            if tok.text != "module":
                raise self.error(f"expected 'module' at the top level, found '{tok.text}'", tok)
            if modules:
                raise self.error("the translator maps one module per file", tok)
            modules.append(self.module_body())
        if not modules:
            raise IdlError(f"{self.source}: no module")
        return modules[0]

    def module_body(self) -> Module:
        self.module = self.identifier().text
        self.expect("{")
        definitions: list[Definition] = []
        while not self.accept("}"):
            tok = self.peek()
            if tok is None:
                raise self.error(f"module {self.module} is not closed")
            if tok.text == "typedef":
                definitions.append(self.typedef())
            elif tok.text == "struct":
                definitions.append(self.struct())
            elif tok.text == "interface":
                definitions.append(self.interface())
            elif tok.text == "exception":
                definitions.append(self.exception())
            elif tok.text == "module":
                raise self.error("nested modules are not supported by the translator", tok)
            else:
                raise self.error(f"'{tok.text}' is not supported by the translator", tok)
        self.expect(";")
        return Module(self.module, tuple(definitions), Path(self.source).name)

    def declare(self, definition: Typedef | Struct | UserException | Interface, tok: Token) -> None:
        known = [*self.names, *self.exceptions, *self.interfaces]
        clash = next((n for n in known if n.lower() == definition.name.lower()), None)
        if clash is not None:
            raise self.error(f"'{definition.name}' is already defined as '{clash}' (IDL names are case-insensitive)",
                             tok)
        if isinstance(definition, UserException):
            self.exceptions[definition.name] = definition
        elif isinstance(definition, Interface):
            self.interfaces[definition.name] = definition
        else:
            self.names[definition.name] = definition

    def typedef(self) -> Typedef:
        self.expect("typedef")
        t = self.type_spec()
        tok = self.identifier()
        self.expect(";")
        definition = Typedef(tok.text, t, tok.line)
        self.declare(definition, tok)
        return definition

    def struct(self) -> Struct:
        self.expect("struct")
        tok = self.identifier()
        fields = self.members(f"struct {tok.text}")
        if not fields:
            raise self.error(f"struct {tok.text} has no fields", tok)
        definition = Struct(tok.text, fields, tok.line)
        self.declare(definition, tok)
        return definition

    def exception(self) -> UserException:
        first = self.expect("exception")
        if self.in_only:
            raise self.error(f"'exception' {_SHAPES_ONLY}", first)
        tok = self.identifier()
        definition = UserException(tok.text, self.members(f"exception {tok.text}"), tok.line)
        self.declare(definition, tok)
        return definition

    def members(self, what: str) -> tuple[Field, ...]:
        """`{ T a, b; ... };` of a struct or an exception."""
        self.expect("{")
        fields: list[Field] = []
        while not self.accept("}"):
            t = self.type_spec()
            while True:
                name = self.identifier()
                if any(f.name == name.text for f in fields):
                    raise self.error(f"{what} has two fields named '{name.text}'", name)
                fields.append(Field(name.text, t))
                if not self.accept(","):
                    break
            self.expect(";")
        self.expect(";")
        return tuple(fields)

    def interface(self) -> Interface:
        self.expect("interface")
        tok = self.identifier()
        base = None
        if self.accept(":"):
            if self.in_only and CAPABILITIES not in self.defined:
                raise self.error(f"interface inheritance {_SHAPES_ONLY}")
            base = self.base_interface()
        self.expect("{")
        operations: list[Operation] = []
        while not self.accept("}"):
            operations.append(self.operation(tok.text))
        self.expect(";")
        names = [op.name for op in operations]
        inherited = set()
        ancestor = base
        while ancestor is not None:
            inherited |= {op.name for op in ancestor.operations}
            ancestor = ancestor.base
        for name in names:
            if names.count(name) > 1 or name in inherited:
                raise self.error(f"interface {tok.text} has two operations named '{name}'", tok)
        definition = Interface(tok.text, tuple(operations), tok.line, base)
        self.declare(definition, tok)
        return definition

    def base_interface(self) -> Interface:
        start = self.peek()
        name = self.qualified_name()
        if self.peek() is not None and self.peek().text == ",":
            raise self.error("multiple inheritance is not supported by the translator")
        if name not in self.interfaces:
            raise self.error(f"'{name}' is no interface defined before its use", start)
        return self.interfaces[name]

    def operation(self, interface: str) -> Operation:
        oneway = self.accept("oneway")
        first = self.peek()
        result = None if self.accept("void") else self.type_spec()
        name = self.identifier()
        self.expect("(")
        params: list[Param] = []
        if not self.accept(")"):
            while True:
                direction = self.next()
                if direction.text in ("out", "inout") and self.in_only:
                    raise self.error(f"{interface}::{name.text}: '{direction.text}' parameters {_SHAPES_ONLY}",
                                     direction)
                if direction.text not in DIRECTIONS:
                    raise self.error(f"expected 'in', 'out' or 'inout', found '{direction.text}'", direction)
                if oneway and direction.text != "in":
                    raise self.error(f"{interface}::{name.text}: a oneway operation takes in parameters only",
                                     direction)
                t = self.type_spec()
                pname = self.identifier()
                if any(p.name == pname.text for p in params):
                    raise self.error(f"{interface}::{name.text} has two parameters named '{pname.text}'", pname)
                params.append(Param(pname.text, t, direction.text))
                if self.accept(")"):
                    break
                self.expect(",")
        raises: list[UserException] = []
        tok = self.peek()
        if self.accept("raises"):
            if self.in_only:
                raise self.error(f"'raises' {_SHAPES_ONLY}", tok)
            if oneway:
                raise self.error(f"{interface}::{name.text}: a oneway operation raises no exception", tok)
            self.expect("(")
            while True:
                start = self.peek()
                raised = self.qualified_name()
                if raised not in self.exceptions:
                    raise self.error(f"'{raised}' is no exception defined before its use", start)
                raises.append(self.exceptions[raised])
                if self.accept(")"):
                    break
                self.expect(",")
        self.expect(";")
        if oneway and result is not None:
            raise self.error(f"{interface}::{name.text}: a oneway operation must return void", first)
        return Operation(name.text, result, tuple(params), oneway, name.line, tuple(raises))

    def type_spec(self) -> Type:
        tok = self.peek()
        if tok is None:
            raise self.error("expected a type")
        if tok.text == "sequence":
            self.next()
            self.expect("<")
            element = self.type_spec()
            if self.peek() is not None and self.peek().text == ",":
                raise self.error("bounded sequences are not supported by the translator")
            self.expect(">")
            return Sequence(element)
        if tok.text == "unsigned":
            self.next()
            words = ["unsigned", self.next().text]
            if words[1] == "long" and self.accept("long"):
                words.append("long")
            name = " ".join(words)
            if name not in BASIC_TYPES:
                raise self.error(f"'{name}' is not a type the translator maps", tok)
            return Basic(name)
        if tok.text == "long":
            self.next()
            if self.accept("long"):
                return Basic("long long")
            if self.peek() is not None and self.peek().text == "double":
                raise self.error("'long double' is not a type the translator maps", tok)
            return Basic("long")
        if tok.text in BASIC_TYPES:
            self.next()
            return Basic(tok.text)
        return Ref(self.scoped_name())

    def scoped_name(self) -> Typedef | Struct | Interface:
        start = self.peek()
        name = self.qualified_name()
        if name in self.interfaces and CAPABILITIES in self.defined:  # an object reference, for pipelining
            return self.interfaces[name]
        if name not in self.names:
            raise self.error(f"'{name}' is not defined before its use", start)
        return self.names[name]

    def qualified_name(self) -> str:
        """A name, plain or scoped in this module (::m::N, m::N), as its plain part."""
        start = self.peek()
        parts: list[str] = []
        absolute = self.accept("::")
        parts.append(self.identifier().text)
        while self.accept("::"):
            parts.append(self.identifier().text)
        if absolute or len(parts) > 1:
            if len(parts) != 2 or parts[0] != self.module:
                raise self.error(f"'{'::' if absolute else ''}{'::'.join(parts)}' names nothing in module "
                                 f"{self.module}", start)
        return parts[-1]


# Defined while the translator reads a file; the second for a language with in parameters only (see the module's
# docstring).
TRANSLATED = "ORBENCH_TRANSLATED"
IN_ONLY = "ORBENCH_IN_ONLY"
# Defined for a language whose calls return object references that a call can be made on before the reply
# (Cap'n Proto's capabilities): its `#ifdef` block holds what promise pipelining needs.
CAPABILITIES = "ORBENCH_CAPABILITIES"


def _scan(text: str, source: str, defined: frozenset[str] = frozenset({TRANSLATED})) -> list[Token]:
    """Tokens with line numbers; comments, whitespace and preprocessor lines dropped."""
    # Blank out comments first (keeping newlines so line numbers stay right), then preprocessor lines.
    def blank(match: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", match.group())

    if re.search(r"/\*(?:(?!\*/).)*\Z", text, re.S):
        raise IdlError(f"{source}: unterminated /* comment")
    text = re.sub(r"/\*.*?\*/|//[^\n]*", blank, text, flags=re.S)
    tokens: list[Token] = []
    depth = 0  # #if nesting inside a left-out block; 0: outside one
    for number, line in enumerate(text.splitlines(), start=1):
        directive = line.split() if line.lstrip().startswith("#") else []
        if depth:
            if directive and directive[0].startswith("#if"):
                depth += 1
            elif directive and directive[0] == "#endif":
                depth -= 1
            continue
        if directive[:1] == ["#ifndef"] and directive[1:2] and directive[1] in defined:
            depth = 1
            continue
        if directive[:1] == ["#ifdef"] and directive[1:2] and directive[1] not in defined:
            depth = 1
            continue
        if directive:
            continue
        for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*|::|[{}()<>;,:]|\S", line):
            tokens.append(Token(m.group(), number))
    if depth:
        raise IdlError(f"{source}: an #ifndef or #ifdef block is not closed by #endif")
    return tokens


def parse(text: str, source: str = "<idl>", in_only: bool = True, capabilities: bool = False) -> Module:
    """`in_only`: for a language with in parameters only (see the module's docstring)."""
    return Parser(text, source, in_only, capabilities).parse()


def parse_file(path: Path, in_only: bool = True, capabilities: bool = False) -> Module:
    try:
        text = path.read_text()
    except OSError as exc:
        raise IdlError(f"{path}: cannot read: {exc.strerror}") from None
    return parse(text, str(path), in_only, capabilities)
