"""A parser for the subset of OMG IDL that orbench.idl uses: one module of typedefs, structs and interfaces whose
operations take `in` parameters. Anything else is refused with the file and line, never skipped.

Preprocessor lines (#ifndef, #define, #endif, #include) are dropped: the file is read as one translation unit,
with ORBENCH_TRANSLATED defined: a block `#ifndef ORBENCH_TRANSLATED` .. `#endif` (what only the CORBA ORBs
compile: out and inout arguments, exceptions, wstring) is left out whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from orbench.idl.model import (
    BASIC_TYPES,
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
)


class IdlError(Exception):
    """A construct the translator cannot read or map, with the file and line."""


@dataclass(frozen=True)
class Token:
    text: str
    line: int


# IDL constructs this translator knows it does not map: refused by name rather than as a syntax error.
_UNSUPPORTED = {"const", "enum", "union", "exception", "attribute", "readonly", "raises", "context", "valuetype",
                "any", "char", "wchar", "wstring", "fixed", "native", "abstract", "local", "Object"}


class Parser:
    def __init__(self, text: str, source: str):
        self.source = source
        self.tokens = _scan(text, source)
        self.pos = 0
        self.names: dict[str, Typedef | Struct] = {}  # by plain name within the module
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
            elif tok.text == "module":
                raise self.error("nested modules are not supported by the translator", tok)
            else:
                raise self.error(f"'{tok.text}' is not supported by the translator", tok)
        self.expect(";")
        return Module(self.module, tuple(definitions), Path(self.source).name)

    def declare(self, definition: Typedef | Struct, tok: Token) -> None:
        clash = next((n for n in self.names if n.lower() == definition.name.lower()), None)
        if clash is not None:
            raise self.error(f"'{definition.name}' is already defined as '{clash}' (IDL names are case-insensitive)",
                             tok)
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
        self.expect("{")
        fields: list[Field] = []
        while not self.accept("}"):
            t = self.type_spec()
            while True:
                name = self.identifier()
                if any(f.name == name.text for f in fields):
                    raise self.error(f"struct {tok.text} has two fields named '{name.text}'", name)
                fields.append(Field(name.text, t))
                if not self.accept(","):
                    break
            self.expect(";")
        self.expect(";")
        if not fields:
            raise self.error(f"struct {tok.text} has no fields", tok)
        definition = Struct(tok.text, tuple(fields), tok.line)
        self.declare(definition, tok)
        return definition

    def interface(self) -> Interface:
        self.expect("interface")
        tok = self.identifier()
        if self.peek() is not None and self.peek().text == ":":
            raise self.error("interface inheritance is not supported by the translator")
        self.expect("{")
        operations: list[Operation] = []
        while not self.accept("}"):
            operations.append(self.operation(tok.text))
        self.expect(";")
        names = [op.name for op in operations]
        for name in names:
            if names.count(name) > 1:
                raise self.error(f"interface {tok.text} has two operations named '{name}'", tok)
        return Interface(tok.text, tuple(operations), tok.line)

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
                if direction.text in ("out", "inout"):
                    raise self.error(f"{interface}::{name.text}: '{direction.text}' parameters are not supported "
                                     "by the translator", direction)
                if direction.text != "in":
                    raise self.error(f"expected 'in', found '{direction.text}'", direction)
                t = self.type_spec()
                pname = self.identifier()
                params.append(Param(pname.text, t))
                if self.accept(")"):
                    break
                self.expect(",")
        if self.peek() is not None and self.peek().text == "raises":
            raise self.error("'raises' is not supported by the translator")
        self.expect(";")
        if oneway and result is not None:
            raise self.error(f"{interface}::{name.text}: a oneway operation must return void", first)
        return Operation(name.text, result, tuple(params), oneway, name.line)

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

    def scoped_name(self) -> Typedef | Struct:
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
        name = parts[-1]
        if name not in self.names:
            raise self.error(f"'{name}' is not defined before its use", start)
        return self.names[name]


# Defined while the translator reads a file (see the module's docstring).
TRANSLATED = "ORBENCH_TRANSLATED"


def _scan(text: str, source: str) -> list[Token]:
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
        if directive[:2] == ["#ifndef", TRANSLATED]:
            depth = 1
            continue
        if directive:
            continue
        for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*|::|[{}()<>;,:]|\S", line):
            tokens.append(Token(m.group(), number))
    if depth:
        raise IdlError(f"{source}: #ifndef {TRANSLATED} is not closed by #endif")
    return tokens


def parse(text: str, source: str = "<idl>") -> Module:
    return Parser(text, source).parse()


def parse_file(path: Path) -> Module:
    try:
        text = path.read_text()
    except OSError as exc:
        raise IdlError(f"{path}: cannot read: {exc.strerror}") from None
    return parse(text, str(path))
