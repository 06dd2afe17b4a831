"""Target descriptors: one TOML file per target in harness/targets/, loaded, checked and made runnable.

A descriptor says what a target is (language, kind, baseline), how to build it and how to start its two workers.
The format is documented in harness/targets/README.md.
"""

from __future__ import annotations

import os
import shutil
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from orbench.errors import UserError
from orbench.paths import repo_root, targets_dir

# "known-answer": a socket baseline doing a known amount of extra work per call (its parameter, in ns), measured
# against its plain baseline as an ORB is: its ORB-added latency must come out as the parameter.
KINDS = ("orb", "socket", "known-answer")
# Kinds measured against a baseline (ORB-added latency).
MEASURED_AGAINST_BASELINE = ("orb", "known-answer")
# What a middleware (orb) target is, beside its kind: the family of middleware, and the protocol its workers
# speak (an interop pair needs both ends to speak the same one; the socket baselines and the known-answer
# servers speak the OBSK wire format).
FAMILIES = {"corba": "GIOP", "grpc": "gRPC over HTTP/2", "ice": "the Ice protocol"}
SOCKET_PROTOCOL = "the OBSK wire format"
LANGUAGES = ("c++", "java")
MODES = ("twoway", "oneway", "echo")
# Connect options the workers know (PROTOCOL.md, "Connect options"); `both`: set on the client's and on the
# server's sockets, `client`: the client's only.
OPTION_ENDS = {"tcp_nodelay": "both", "socket_buffer_bytes": "both", "sync_scope": "client"}
PAYLOAD_TYPES = ("octets", "records", "longs", "doubles", "strings")
# Payload bytes one element of each type counts for (PROTOCOL.md, "Payload types"): N bytes are N / unit
# elements, rounded down, and the server counts unit bytes per element.
PAYLOAD_UNIT_BYTES = {"octets": 1, "records": 16, "longs": 4, "doubles": 8, "strings": 16}


def counted_payload_bytes(payload_type: str, payload_bytes: int) -> int:
    """The bytes a payload of `payload_bytes` carries and the server counts: whole elements only."""
    unit = PAYLOAD_UNIT_BYTES[payload_type]
    return payload_bytes // unit * unit

_REQUIRED = ("name", "description", "language", "kind", "build", "server", "client", "supports")
_KNOWN = set(_REQUIRED) | {"baseline", "family", "requires", "notes", "parameter"}
# A target instance with a parameter value: "<descriptor>@<value>", e.g. "c-socket-delay@2000".
PARAMETER_SEPARATOR = "@"


@dataclass(frozen=True)
class Target:
    name: str
    description: str
    language: str
    kind: str
    build: str
    server_argv: tuple[str, ...]
    client_argv: tuple[str, ...]
    modes: tuple[str, ...]
    payload_types: tuple[str, ...]
    options: tuple[str, ...]
    baseline: str | None = None
    family: str | None = None   # orb targets: "corba", "grpc" or "ice" (FAMILIES); None for a socket baseline
    # Options the target cannot change, with the value it always has ([supports] fixed_options), as pairs.
    fixed_options: tuple[tuple[str, object], ...] = ()
    required_files: tuple[str, ...] = ()
    required_pkg_config: tuple[str, ...] = ()
    required_commands: tuple[str, ...] = ()
    required_java: int | None = None   # the lowest JDK feature version it runs on ([requires] java_version)
    # How to get what `requires` lists, when `make <build>` alone is not enough (e.g. an ORB built by hand).
    requires_hint: str | None = None
    path: Path = field(default=Path("."), compare=False)
    java: str | None = field(default=None, compare=False)   # the JVM for {java}; None: java_executable()
    # [parameter]: the name of the one value an instance of this descriptor takes ({name} in argv), its default
    # and its value in this instance (a known-answer target's known added latency, ns).
    parameter: str | None = None
    parameter_default: int | None = None
    parameter_value: int | None = None

    @property
    def descriptor(self) -> str:
        """The descriptor's name: the target's name without its parameter value."""
        return self.name.split(PARAMETER_SEPARATOR, 1)[0]

    @property
    def known_added_ns(self) -> int | None:
        """What a known-answer target's ORB-added latency must come out as."""
        return self.parameter_value if self.kind == "known-answer" else None

    def with_parameter(self, value: int) -> Target:
        """The instance `<descriptor>@<value>` of a descriptor with a [parameter]."""
        if self.parameter is None:
            raise UserError(f"{self.path}: target {self.descriptor!r} takes no parameter (no [parameter] table)")
        return replace(self, name=f"{self.descriptor}{PARAMETER_SEPARATOR}{value}", parameter_value=value)

    def with_java(self, java: str | None) -> Target:
        """The same target on another JVM (a campaign's `jdk`); socket and C++ targets are unchanged."""
        return replace(self, java=java) if self.is_jvm else self

    @property
    def protocol(self) -> str:
        """What its workers speak on the wire: its family's protocol, or the socket baselines' format."""
        return FAMILIES[self.family] if self.family else SOCKET_PROTOCOL

    @property
    def is_jvm(self) -> bool:
        # "java->c++": an interop pair (campaign/interop.py) with a JVM on one side.
        return "java" in self.language.split("->")

    def expand(self, argv: tuple[str, ...], **values: str) -> list[str]:
        """Fill {root}, {java}, {host}, {port}, {gc_log} in a descriptor's argv.

        {gc_log} is the file a JVM worker writes its GC log to (-Xlog:gc*:file={gc_log}); the runner gives
        each worker its own in the run's logs/, anything else that starts workers gets /dev/null.
        {java} is the campaign's `jdk` when it set one (with_java), else the default JVM."""
        values = {"root": str(repo_root()), "java": self.java or java_executable(), "gc_log": os.devnull, **values}
        if self.parameter is not None:
            values.setdefault(self.parameter, str(self.parameter_value))
        try:
            return [a.format(**values) for a in argv]
        except KeyError as exc:
            raise UserError(f"{self.path}: argv uses unknown placeholder {{{exc.args[0]}}}") from None

    def with_server_args(self, args: tuple[str, ...]) -> Target:
        """The same target with `args` (an option set's `--option NAME=VALUE`) after its server argv."""
        return replace(self, server_argv=self.server_argv + args) if args else self

    def server_command(self, host: str, port: int = 0, gc_log: str = os.devnull) -> list[str]:
        return self.expand(self.server_argv, host=host, port=str(port), gc_log=gc_log)

    def client_command(self, gc_log: str = os.devnull) -> list[str]:
        return self.expand(self.client_argv, gc_log=gc_log)


def java_executable() -> str:
    """The JVM the Java targets run on: $ORBENCH_JAVA, else $JAVA_HOME/bin/java, else java on PATH."""
    if os.environ.get("ORBENCH_JAVA"):
        return os.environ["ORBENCH_JAVA"]
    if os.environ.get("JAVA_HOME"):
        return str(Path(os.environ["JAVA_HOME"]) / "bin" / "java")
    return shutil.which("java") or "java"


def _field(data: dict, key: str, kind: type, path: Path, where: str = ""):
    value = data.get(key)
    if not isinstance(value, kind):
        raise UserError(f"{path}: {where}{key} must be a {kind.__name__}, got {value!r}")
    return value


def _strings(data: dict, key: str, path: Path, where: str = "") -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UserError(f"{path}: {where}{key} must be a list of strings, got {value!r}")
    return tuple(value)


def _java_version(requires: dict, path: Path) -> int | None:
    value = requires.get("java_version")
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 8:
        raise UserError(f"{path}: requires.java_version must be a JDK feature version (an integer like 22), "
                        f"got {value!r}")
    return value


def read_descriptor(path: Path) -> Target:
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: not valid TOML: {exc}") from None
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise UserError(f"{path}: missing key(s) {', '.join(missing)}")
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise UserError(f"{path}: unknown key(s) {', '.join(unknown)}")
    name = _field(data, "name", str, path)
    if name != path.stem:
        raise UserError(f"{path}: name {name!r} must match the file name {path.stem!r}")
    language = _field(data, "language", str, path)
    if language not in LANGUAGES:
        raise UserError(f"{path}: language {language!r} is not one of {', '.join(LANGUAGES)}")
    kind = _field(data, "kind", str, path)
    if kind not in KINDS:
        raise UserError(f"{path}: kind {kind!r} is not one of {', '.join(KINDS)}")
    baseline = data.get("baseline")
    if kind in MEASURED_AGAINST_BASELINE and not isinstance(baseline, str):
        raise UserError(f"{path}: an {kind} target needs baseline = \"<socket target of the same language>\"")
    parameter = data.get("parameter")
    if parameter is not None:
        if not isinstance(parameter, dict) or not isinstance(parameter.get("name"), str) \
                or not parameter["name"].isidentifier() or not _is_count(parameter.get("default")):
            raise UserError(f"{path}: [parameter] needs name = \"<identifier used as {{name}} in argv>\" and "
                            f"default = <integer >= 0>, got {parameter!r}")
    if kind == "known-answer" and parameter is None:
        raise UserError(f"{path}: a known-answer target needs a [parameter]: its known added latency in ns")
    family = data.get("family")
    if kind == "orb" and family not in FAMILIES:
        raise UserError(f"{path}: an orb target needs family = one of {', '.join(map(repr, FAMILIES))}, got {family!r}")
    if kind != "orb" and family is not None:
        raise UserError(f"{path}: a {kind} target has no family (it speaks the OBSK wire format), got family = {family!r}")
    supports = _field(data, "supports", dict, path)
    modes = _strings(supports, "modes", path, "supports.")
    payload_types = _strings(supports, "payload_types", path, "supports.")
    for m in modes:
        if m not in MODES:
            raise UserError(f"{path}: supports.modes has {m!r}, not one of {', '.join(MODES)}")
    for p in payload_types:
        if p not in PAYLOAD_TYPES:
            raise UserError(f"{path}: supports.payload_types has {p!r}, not one of {', '.join(PAYLOAD_TYPES)}")
    fixed = supports.get("fixed_options", {})
    if not isinstance(fixed, dict):
        raise UserError(f"{path}: supports.fixed_options must be a table (option = the value it always has)")
    for key in fixed:
        if key not in OPTION_ENDS:
            raise UserError(f"{path}: supports.fixed_options has {key!r}, not one of {', '.join(OPTION_ENDS)}")
    options = _strings(supports, "options", path, "supports.")
    for key in options:
        if key not in OPTION_ENDS:
            raise UserError(f"{path}: supports.options has {key!r}, not one of {', '.join(OPTION_ENDS)}")
        if key in fixed:
            raise UserError(f"{path}: option {key!r} is in both supports.options and supports.fixed_options")
    requires = data.get("requires", {})
    hint = requires.get("hint")
    if hint is not None and not isinstance(hint, str):
        raise UserError(f"{path}: requires.hint must be a str, got {hint!r}")
    server = _field(data, "server", dict, path)
    client = _field(data, "client", dict, path)
    return Target(
        name=name,
        description=_field(data, "description", str, path),
        language=language,
        kind=kind,
        build=_field(data, "build", str, path),
        server_argv=_strings(server, "argv", path, "server."),
        client_argv=_strings(client, "argv", path, "client."),
        modes=modes,
        payload_types=payload_types,
        options=options,
        baseline=baseline,
        family=family,
        fixed_options=tuple(sorted(fixed.items())),
        required_files=_strings(requires, "files", path, "requires."),
        required_pkg_config=_strings(requires, "pkg_config", path, "requires."),
        required_commands=_strings(requires, "commands", path, "requires."),
        required_java=_java_version(requires, path),
        requires_hint=hint,
        path=path,
        parameter=parameter["name"] if parameter else None,
        parameter_default=parameter["default"] if parameter else None,
        parameter_value=parameter["default"] if parameter else None,
    )


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def parse_instance(name: str) -> tuple[str, int | None]:
    """"c-socket-delay@2000" -> ("c-socket-delay", 2000); "omniorb" -> ("omniorb", None). Raises ValueError
    for a value that is not an integer >= 0."""
    if PARAMETER_SEPARATOR not in name:
        return name, None
    descriptor, value = name.split(PARAMETER_SEPARATOR, 1)
    if not value.isdigit():
        raise ValueError(f"{name!r}: the value after {PARAMETER_SEPARATOR!r} must be an integer >= 0")
    return descriptor, int(value)


def read_targets(directory: Path | None = None) -> dict[str, Target]:
    """Every descriptor in the directory, by name; baselines must name a socket target of the same language."""
    directory = directory or targets_dir()
    targets = {p.stem: read_descriptor(p) for p in sorted(directory.glob("*.toml"))}
    for t in targets.values():
        if t.baseline is None:
            continue
        base = targets.get(t.baseline)
        if base is None:
            raise UserError(f"{t.path}: baseline {t.baseline!r} is not a known target")
        if base.kind != "socket" or base.language != t.language:
            raise UserError(
                f"{t.path}: baseline {t.baseline!r} must be a socket target in {t.language}, "
                f"is a {base.kind} target in {base.language}"
            )
    return targets


def get_target(name: str, targets: dict[str, Target] | None = None) -> Target:
    """A target by name; "<descriptor>@<value>" is an instance of a descriptor with a [parameter]."""
    targets = targets if targets is not None else read_targets()
    try:
        descriptor, value = parse_instance(name)
    except ValueError as exc:
        raise UserError(f"target {exc}") from None
    if descriptor not in targets:
        raise UserError(f"unknown target {name!r}; known targets: {', '.join(sorted(targets))}")
    return targets[descriptor] if value is None else targets[descriptor].with_parameter(value)
