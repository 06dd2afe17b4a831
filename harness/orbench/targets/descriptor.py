"""Target descriptors: one TOML file per target in harness/targets/, loaded, checked and made runnable.

A descriptor says what a target is (language, kind, baseline), how to build it and how to start its two workers.
The format is documented in harness/targets/README.md.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from orbench.errors import UserError
from orbench.paths import repo_root, targets_dir
from orbench.results.shapes import claims, kind_of
from orbench.schemas import check, read_toml, schema
from orbench.targets.families import FAMILIES_FILE, protocol_of, read_families
from orbench.targets.jvm_share import shared
from orbench.targets.languages import LANGUAGES_FILE, read_languages

# "known-answer": a socket baseline doing a known amount of extra work per call (its parameter, in ns), measured
# against its plain baseline as an ORB is: its ORB-added latency must come out as the parameter.
# (The kinds, modes and payload types a descriptor may name are in descriptor.schema.json; its languages are
# those of harness/targets/languages.toml, languages.py.)
# Kinds measured against a baseline (ORB-added latency).
MEASURED_AGAINST_BASELINE = ("orb", "known-answer")
# What a middleware (orb) target is, beside its kind, is its family: harness/targets/families.toml (families.py)
# says which there are and the protocol each speaks (an interop pair needs both ends to speak the same one).
# Which sockets each connect option is set on (PROTOCOL.md, "Connect options"): `both` the client's and the
# server's, `client` the client's only. Its keys are the schema's option names (a test checks they agree).
OPTION_ENDS = {"tcp_nodelay": "both", "socket_buffer_bytes": "both", "sync_scope": "client"}
# Payload bytes one element of each type counts for (PROTOCOL.md, "Payload types"): N bytes are N / unit
# elements, rounded down, and the server counts unit bytes per element.
PAYLOAD_UNIT_BYTES = {"octets": 1, "records": 16, "longs": 4, "doubles": 8, "strings": 16}


def counted_payload_bytes(payload_type: str, payload_bytes: int) -> int:
    """The bytes a payload of `payload_bytes` carries and the server counts: whole elements only."""
    unit = PAYLOAD_UNIT_BYTES[payload_type]
    return payload_bytes // unit * unit

# A target instance with a parameter value: "<descriptor>@<value>", e.g. "c-socket-delay@2000".
PARAMETER_SEPARATOR = "@"


@dataclass(frozen=True)
class ThreadingSetting:
    """One server concurrency setting of a target's [threading] table: a name a campaign uses, the
    middleware's own words for it (recorded in the manifest) and the server arguments that select it; a sized
    one is named NAME-SIZE in a campaign and takes {size} in its words and args."""

    name: str
    words: str
    args: tuple[str, ...]
    sized: bool = False


@dataclass(frozen=True)
class ThreadingChoice:
    """A threading setting as a campaign names it ("per-connection", "pool-16"): the setting, its size (a sized
    one's), and its words and server arguments with {size} filled in."""

    name: str
    setting: ThreadingSetting
    size: int | None
    words: str
    args: tuple[str, ...]


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
    family: str | None = None   # orb targets: a family of families.toml ("corba", "grpc", ...); None otherwise
    # Options the target cannot change, with the value it always has ([supports] fixed_options), as pairs.
    fixed_options: tuple[tuple[str, object], ...] = ()
    # Options its worker refuses at connect with the ORB's reason ([supports] refused_options).
    refused_options: tuple[str, ...] = ()
    required_files: tuple[str, ...] = ()
    required_pkg_config: tuple[str, ...] = ()
    required_commands: tuple[str, ...] = ()
    required_java: int | None = None   # the lowest JDK feature version it runs on ([requires] java_version)
    # Its middleware looks the host's own name up when it starts ([requires] hostname_resolves).
    requires_hostname: bool = False
    # How to get what `requires` lists, when `make <build>` alone is not enough (e.g. an ORB built by hand).
    requires_hint: str | None = None
    path: Path = field(default=Path("."), compare=False)
    java: str | None = field(default=None, compare=False)   # the JVM for {java}; None: java_executable()
    # [parameter]: the name of the one value an instance of this descriptor takes ({name} in argv), its default
    # and its value in this instance (a known-answer target's known added latency, ns).
    parameter: str | None = None
    parameter_default: int | None = None
    parameter_value: int | None = None
    # Load at scale (PROTOCOL.md): its client takes `threads`; its server takes --objects and its client `objects`.
    client_threads: bool = False
    # When its oneway call returns: "written" by the calling thread, or "queued" for another thread to write.
    oneway_call: str = "written"
    objects: bool = False
    # [threading]: the server's concurrency settings, and the name of the one it runs as shipped.
    threading: tuple[ThreadingSetting, ...] = ()
    threading_default: str | None = None
    # check-target steps it fails as shipped, with why ([known_failures]: step id -> reason).
    known_failures: tuple[tuple[str, str], ...] = ()
    # [count]: server arguments of the counting mode only (a watcher that wakes per second, not per call, slowed).
    count_server_args: tuple[str, ...] = ()
    count_why: str | None = None
    # Invocation shapes (PROTOCOL.md, "Invocation shapes") its workers make ([supports] shapes; "ami" claims every
    # ami-N), and those its middleware lacks, with why ([supports] lacking_shapes): a campaign skips them so.
    shapes: tuple[str, ...] = ("in",)
    lacking_shapes: tuple[tuple[str, str], ...] = ()

    def shape_unsupported(self, shape: str) -> str | None:
        """Why this target cannot make calls of `shape`, or None when it claims it."""
        if claims(self.shapes, shape):
            return None
        kind = kind_of(shape).name
        why = dict(self.lacking_shapes).get(kind)
        return f"{self.name} lacks shape {shape}: {why}" if why else f"{self.name} does not make shape {shape}"

    @property
    def descriptor(self) -> str:
        """The descriptor's name: the target's name without its parameter value."""
        return self.name.split(PARAMETER_SEPARATOR, 1)[0]

    @property
    def added_scales_with_host(self) -> bool:
        """Whether what it adds over its baseline is work, which takes longer when the host runs slow (every
        middleware; c-socket-work's loop), rather than a clock's time (a delay_ns spin: N ns at any speed). The
        summary scales a pair's difference to the host's usual speed only then (stats/phases.speed_scaled); a
        run's manifest says it by listing known_added_ns for the others."""
        return self.known_added_ns is None

    @property
    def known_added_ns(self) -> int | None:
        """What a known-answer target's ORB-added latency must come out as: its parameter when that is a time
        (delay_ns); a known answer in instructions (c-socket-work's work_iterations) has none."""
        return self.parameter_value if self.kind == "known-answer" and self.parameter == "delay_ns" else None

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
        return protocol_of(self.family)

    @property
    def is_jvm(self) -> bool:
        # "java->c++": an interop pair (campaign/interop.py) with a JVM on one side.
        return "java" in self.language.split("->")

    def expand(self, argv: tuple[str, ...], share: bool = False, **values: str) -> list[str]:
        """Fill {root}, {java}, {host}, {port}, {gc_log} in a descriptor's argv.

        {gc_log} is the file a JVM worker writes its GC log to (-Xlog:gc*:file={gc_log}); the runner gives
        each worker its own in the run's logs/, anything else that starts workers gets /dev/null.
        {java} is the campaign's `jdk` when it set one (with_java), else the default JVM. `share`: a worker
        started on this machine by {java} maps its classes from its archive (jvm_share.py, made if missing)."""
        values = {"root": str(repo_root()), "java": self.java or java_executable(), "gc_log": os.devnull, **values}
        if self.parameter is not None:
            values.setdefault(self.parameter, str(self.parameter_value))
        try:
            command = [a.format(**values) for a in argv]
        except KeyError as exc:
            raise UserError(f"{self.path}: argv uses unknown placeholder {{{exc.args[0]}}}") from None
        if share and argv and argv[0] == "{java}":
            command = shared(command, volatile=values["gc_log"])
        return command

    def threading_choice(self, name: str) -> ThreadingChoice:
        """The setting a campaign names: an unsized setting by its name, a sized one as NAME-SIZE (SIZE >= 1)."""
        by_name = {s.name: s for s in self.threading}
        setting, size = by_name.get(name), None
        if setting is not None and setting.sized:
            setting = None  # a sized setting needs its size
        if setting is None and "-" in name:
            base, _, number = name.rpartition("-")
            if number.isdigit() and int(number) >= 1 and base in by_name and by_name[base].sized:
                setting, size = by_name[base], int(number)
        if setting is None:
            known = ", ".join(f"{s.name}-SIZE" if s.sized else s.name for s in self.threading) or "none"
            raise UserError(f"{self.path}: target {self.name!r} has no threading setting {name!r} "
                            f"(its settings: {known})")
        fill = (lambda text: text.replace("{size}", str(size))) if size is not None else (lambda text: text)
        return ThreadingChoice(name, setting, size, fill(setting.words), tuple(fill(a) for a in setting.args))

    def threading_names(self, size: int) -> tuple[str, ...]:
        """Every setting's name as a campaign would give it, a sized one at `size` (check-target runs them all)."""
        return tuple(f"{s.name}-{size}" if s.sized else s.name for s in self.threading)

    def with_server_args(self, args: tuple[str, ...]) -> Target:
        """The same target with `args` (an option set's `--option NAME=VALUE`) after its server argv."""
        return replace(self, server_argv=self.server_argv + args) if args else self

    def server_command(self, host: str, port: int = 0, gc_log: str = os.devnull) -> list[str]:
        """The server worker's command line on this machine (a JVM's with its class archive: expand)."""
        return self.expand(self.server_argv, share=True, host=host, port=str(port), gc_log=gc_log)

    def client_command(self, gc_log: str = os.devnull) -> list[str]:
        return self.expand(self.client_argv, share=True, gc_log=gc_log)


def java_executable() -> str:
    """The JVM the Java targets run on: $ORBENCH_JAVA, else $JAVA_HOME/bin/java, else java on PATH."""
    if os.environ.get("ORBENCH_JAVA"):
        return os.environ["ORBENCH_JAVA"]
    if os.environ.get("JAVA_HOME"):
        return str(Path(os.environ["JAVA_HOME"]) / "bin" / "java")
    return shutil.which("java") or "java"


def descriptor_schema() -> dict[str, Any]:
    return schema("orbench.targets", "descriptor")


def read_descriptor(path: Path) -> Target:
    """A descriptor, checked against descriptor.schema.json; every mistake names the file, key and value."""
    data = read_toml(path, "target descriptor")
    languages = read_languages()
    if isinstance(data.get("language"), str) and data["language"] not in languages:
        raise UserError(f"{path}: key language: value {data['language']!r}: not a language of "
                        f"harness/targets/{LANGUAGES_FILE} ({', '.join(languages)}); a new language is a table there "
                        "(harness/targets/README.md, \"Adding a language\")")
    families = read_families()
    if isinstance(data.get("family"), str) and data["family"] not in families:
        raise UserError(f"{path}: key family: value {data['family']!r}: not a family of harness/targets/{FAMILIES_FILE} "
                        f"({', '.join(families)}); a new family is a table there (harness/targets/README.md, "
                        "\"Adding another middleware\")")
    check(path, data, descriptor_schema())
    if data["name"] != path.stem:
        raise UserError(f"{path}: key name: value {data['name']!r} must match the file name {path.stem!r}")
    supports, requires, parameter = data["supports"], data.get("requires", {}), data.get("parameter")
    fixed = supports.get("fixed_options", {})
    claims = [set(supports.get("options", [])), set(fixed), set(supports.get("refused_options", []))]
    both = sorted((claims[0] & claims[1]) | (claims[0] & claims[2]) | (claims[1] & claims[2]))
    if both:
        raise UserError(f"{path}: key supports: value {both!r}: an option is one the target can set (options), "
                        "always has (fixed_options) or refuses (refused_options): one of them only")
    server, client = tuple(data["server"]["argv"]), tuple(data["client"]["argv"])
    if "orb" in data:
        server, client = server + orb_arguments(data["orb"], "server"), client + orb_arguments(data["orb"], "client")
    return Target(
        name=data["name"],
        description=data["description"],
        language=data["language"],
        kind=data["kind"],
        build=data["build"],
        server_argv=server,
        client_argv=client,
        modes=tuple(supports["modes"]),
        payload_types=tuple(supports["payload_types"]),
        options=tuple(supports.get("options", [])),
        baseline=data.get("baseline"),
        family=data.get("family"),
        fixed_options=tuple(sorted(fixed.items())),
        refused_options=tuple(supports.get("refused_options", [])),
        required_files=tuple(requires.get("files", [])),
        required_pkg_config=tuple(requires.get("pkg_config", [])),
        required_commands=tuple(requires.get("commands", [])),
        required_java=requires.get("java_version"),
        requires_hostname=bool(requires.get("hostname_resolves")),
        requires_hint=requires.get("hint"),
        path=path,
        parameter=parameter["name"] if parameter else None,
        parameter_default=parameter["default"] if parameter else None,
        parameter_value=parameter["default"] if parameter else None,
        client_threads=bool(supports.get("client_threads")),
        oneway_call=supports.get("oneway_call", "written"),
        objects=bool(supports.get("objects")),
        threading=threading_settings(path, data.get("threading")),
        threading_default=(data.get("threading") or {}).get("default"),
        known_failures=tuple(sorted(data.get("known_failures", {}).items())),
        count_server_args=tuple((data.get("count") or {}).get("server_args", [])),
        count_why=(data.get("count") or {}).get("why"),
        shapes=tuple(supports.get("shapes", ["in"])),
        lacking_shapes=tuple(sorted(supports.get("lacking_shapes", {}).items())),
    )


def threading_settings(path: Path, table: dict[str, Any] | None) -> tuple[ThreadingSetting, ...]:
    """A descriptor's [threading] tables; its `default` must name one of them."""
    if not table:
        return ()
    settings = tuple(ThreadingSetting(name, t["words"], tuple(t["args"]), bool(t.get("sized")))
                     for name, t in table.items() if name != "default")
    for s in settings:
        takes_size = any("{size}" in a for a in s.args)
        if takes_size != s.sized:
            raise UserError(f"{path}: key threading.{s.name}: " + (
                "sized = true, but no {size} in its args" if s.sized else "{size} in its args, but not sized = true"))
    if table["default"] not in {s.name for s in settings}:
        raise UserError(f"{path}: key threading.default: value {table['default']!r} is not one of its settings "
                        f"({', '.join(s.name for s in settings) or 'none'})")
    if any(s.sized and s.name == table["default"] for s in settings):
        raise UserError(f"{path}: key threading.default: value {table['default']!r} is a sized setting; the default "
                        "is the one the server runs with no arguments, an unsized one")
    return settings


def orb_arguments(orb: dict[str, Any], role: str) -> tuple[str, ...]:
    """A Java ORB's [orb] table as its workers' arguments (java/.../orb/OrbSettings.java). {host} and {port} in
    the server properties are left for the worker to fill (it alone knows the port it listens on), so they
    are escaped from the harness's own {placeholders}."""
    out = ("--orb-name", orb["name"], "--orb-version-attribute", orb["version_attribute"])
    if role == "server":
        for key, value in orb["server_properties"].items():
            out += ("--orb-property", f"{key}={value}".replace("{", "{{").replace("}", "}}"))
        if orb.get("free_port"):
            out += ("--orb-free-port", "true")
    return out


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
    targets = {p.stem: read_descriptor(p) for p in sorted(directory.glob("*.toml"))
               if p.name not in (LANGUAGES_FILE, FAMILIES_FILE)}
    for language in sorted({t.language for t in targets.values()}):
        base = targets.get(read_languages()[language].baseline)
        if base is not None and (base.kind != "socket" or base.language != language):
            raise UserError(f"{targets_dir() / LANGUAGES_FILE}: the baseline of {language}, {base.name!r}, must be a "
                            f"socket target in {language}, is a {base.kind} target in {base.language}")
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
