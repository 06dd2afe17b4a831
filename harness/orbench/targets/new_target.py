"""`orbench new-target NAME --like TARGET` or `--language LANG [--kind KIND]`: a starting descriptor for a new
target, written from the closest existing one (or, for a language with no target of that kind yet, a skeleton),
and a list of what to do next, from the new target's family (harness/targets/families.toml) and language
(harness/targets/languages.toml) (harness/targets/README.md, "Adding an ORB", "Adding a language").

What belongs to the template is not passed on as the new target's: its name and its stem (the name without the
language's build suffix: ice for ice-cpp) are renamed in the worker files and argv (orbench-ice-server becomes
orbench-thrift-server), a family named by the template's own stem becomes the new stem's family (or, when the
table has none, the user is asked to name one), and its claims (options, packages, hint, [threading]) are left
out with a TODO saying what they were. It writes one file and never overwrites one.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from orbench.errors import UserError
from orbench.paths import targets_dir
from orbench.targets.descriptor import Target, get_target, read_descriptor, read_targets
from orbench.targets.families import FAMILIES_FILE, Family, read_families
from orbench.targets.languages import LANGUAGES_FILE, Language, read_languages

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")
# A list longer than this goes on to further lines.
LINE_MAX = 100


def stem_of(name: str, language: Language) -> str:
    """A target's name without its language's build suffix (ice-cpp -> ice, grpc-java -> grpc): the name its
    worker files carry (cpp/build/orbench-ice-server, java/target/lib/grpc/)."""
    suffix = f"-{language.build}"
    return name[: -len(suffix)] if name.endswith(suffix) and len(name) > len(suffix) else name


def renamer(words: dict[str, str]) -> Callable[[str], str]:
    """Replaces each word, as a whole token (not inside a longer name), by its new form, in one pass; a
    lower-case word also Capitalized, where it may run into the next name (IceServer -> ThriftServer)."""
    caps = {old.capitalize(): new.capitalize() for old, new in words.items() if old.islower()}

    def alternatives(table: dict[str, str]) -> str:
        return "|".join(re.escape(w) for w in sorted(table, key=len, reverse=True))

    pattern = re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives(words)})(?![A-Za-z0-9])"
                         + (rf"|(?<![A-Za-z0-9])(?:{alternatives(caps)})(?![a-z0-9])" if caps else ""))
    table = {**words, **caps}
    return lambda text: pattern.sub(lambda m: table[m.group(0)], text)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string: the same escapes
    if isinstance(value, list):
        items = [toml_value(v) for v in value]
        lines = [""]
        for item in items:  # filled up to LINE_MAX, as the descriptors are written by hand
            if lines[-1] and len(lines[-1]) + len(item) + 2 > LINE_MAX:
                lines.append("")
            lines[-1] += (", " if lines[-1] else "") + item
        return "[" + ",\n        ".join(lines) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML form for {value!r}")


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


# The contract's own arguments (PROTOCOL.md, "Server worker"; a Java class path), which every target passes.
CONTRACT_ARGS = ("--host", "--port", "--target", "-cp")


def is_generic(argument: str, name: str, baseline_args: frozenset[str]) -> bool:
    """Whether a copied argument belongs to any target of its language rather than to the template: one filled
    in by the harness ({root}, {host}, {java}...), the contract's own flags and the new name, or one the
    language's socket baseline passes too (its JVM flags, which a middleware keeps for a fair subtraction)."""
    return "{" in argument or argument in CONTRACT_ARGS or argument == name or argument in baseline_args


def render(template: Target, name: str, stem: str, family: str | None, language: Language,
           baseline_args: frozenset[str] = frozenset()) -> str:
    """The new descriptor: the template's structure, what belongs to the template renamed or left as a TODO."""
    data = tomllib.loads(template.path.read_text())
    old_stem = stem_of(template.descriptor, language)
    rename = renamer({template.descriptor: name, old_stem: stem})
    like = template.descriptor
    out = [f"# {name}: started from {like}.toml by `orbench new-target {name} --like {like}`.",
           f"# {like}'s worker files and argv are renamed ({old_stem} -> {stem}: check each); its claims are left as",
           "# TODOs. Edit every TODO (harness/targets/README.md), then run orbench check-target " + name,
           f"name = {toml_value(name)}",
           f"description = {toml_value(f'TODO: what {name} is and where it comes from')}",
           f"language = {toml_value(data['language'])}",
           f"kind = {toml_value(data['kind'])}"]
    if family is not None:
        out.append(f"family = {toml_value(family)}")
    if "baseline" in data:
        out.append(f"baseline = {toml_value(data['baseline'])}")
    out.append(f"build = {toml_value(data['build'])}")
    if "parameter" in data:
        out += ["", "[parameter]"] + [f"{k} = {toml_value(v)}" for k, v in data["parameter"].items()]

    requires = data.get("requires", {})
    out += ["", "[requires]", f"files = {toml_value([rename(f) for f in requires.get('files', [])])}"]
    # Commands that are placeholders ({java}) are every target's of the language; the others are the template's.
    generic = [c for c in requires.get("commands", []) if c.startswith("{")]
    own = [c for c in requires.get("commands", []) if not c.startswith("{")]
    if generic or own:
        out.append(f"commands = {toml_value(generic)}" + (f"   # TODO: {like}'s also: {', '.join(own)}" if own else ""))
    if requires.get("pkg_config"):
        out.append(f"pkg_config = []   # TODO: the pkg-config packages it needs; {like}'s: "
                   f"{', '.join(requires['pkg_config'])}")
    if "java_version" in requires:
        out.append(f"java_version = {requires['java_version']}   # TODO: {like}'s; the lowest JDK it runs on")
    if "hint" in requires:
        out.append(f"# hint = \"TODO: how to get what requires lists when `make {data['build']}` is not enough\""
                   f"   ({like}'s: {requires['hint']})")
    for role in ("server", "client"):
        argv = [rename(a) for a in data[role]["argv"]]
        out += ["", f"[{role}]"]
        # Every argument that is not generic is the template's own setting (-Djacorb.poa..., Thrift's
        # --transport buffered), kept only once checked; one still naming the template after the renaming too.
        theirs = [a for a in argv if not is_generic(a, name, baseline_args)
                  or re.search(rf"(?<![a-z0-9]){re.escape(old_stem)}(?![a-z0-9])", a, re.IGNORECASE)]
        if theirs:
            out.append(f"# TODO: {like}'s own settings, keep or drop: {' '.join(theirs)}")
        out.append(f"argv = {toml_value(argv)}")

    supports = data["supports"]
    claimed = ", ".join(supports.get("options", [])) or "none"
    out += ["", "[supports]",
            f"modes = {toml_value(supports['modes'])}",
            f"payload_types = {toml_value(supports['payload_types'])}",
            f"options = []   # TODO: the connect options it can set; {like} claims: {claimed}. "
            "Claim one only once check-target passes with it."]
    for key in ("fixed_options", "refused_options", "client_threads", "objects"):
        if key in supports:
            out.append(f"# {key} = {toml_value(supports[key])}   # TODO: {like}'s; verify {name} does this before "
                       "claiming it")
    if "threading" in data:
        out += ["", f"# TODO: {like}'s server concurrency settings were [threading] "
                f"{', '.join(k for k in data['threading'] if k != 'default')}: name {name}'s own"]
    if "known_failures" in data:
        out += ["", f"# TODO: {like} is known to fail check-target's {', '.join(data['known_failures'])}: "
                f"run check-target {name} and list only what it fails ([known_failures])"]
    if "orb" in data and family != template.family:
        out += ["", f"# {like}'s [orb] table is left out: it tells the {template.family} family's workers about "
                "their ORB"]
    elif "orb" in data:
        out += ["", f"# TODO: [orb] is {like}'s: the new ORB's name, the manifest attribute that holds its version, "
                "the properties that make it bind and advertise {host}:{port}", "[orb]"]
        out += [f"{k} = {toml_value(v)}" for k, v in data["orb"].items()]
    return "\n".join(out) + "\n"


SKELETON = """# {name}: a skeleton from `orbench new-target {name} --language {language} --kind {kind}` (no {kind} target of
# {language} existed to copy). TODO: every value marked TODO (see harness/targets/README.md), then
#       run orbench check-target {name}
name = "{name}"
description = "TODO: what {name} is and where it comes from"
language = "{language}"
kind = "{kind}"
{orb_keys}build = "{build}"

[requires]
files = []   # TODO: the files its workers need, relative to the repo root

[server]
argv = ["TODO-server", "--target", "{name}", "--host", "{{host}}", "--port", "{{port}}"]

[client]
argv = ["TODO-client", "--target", "{name}"]

[supports]
modes = ["twoway", "oneway", "echo"]
payload_types = ["octets"]
options = []   # TODO: the connect options it can set; claim one only once check-target passes with it
"""


def new_language_steps(language: str) -> str:
    """What a language that is not in the registry needs before any of its targets can be described."""
    return (f"language {language!r} is not in harness/targets/{LANGUAGES_FILE} "
            f"(known: {', '.join(read_languages())}). A new language needs, in this order:\n"
            f"  1. a table [{language}] in harness/targets/{LANGUAGES_FILE}: label, baseline, baseline_label, build,"
            " kit, clock, steps (the [python] table is the shortest)\n"
            "  2. a worker kit: the part of harness/PROTOCOL.md that is the same for every middleware (command loop,"
            " run sequence, payloads, pacing, barriers, samples file), as harness/workers/python/orbench_worker/\n"
            "  3. a make target (its `build`) that installs and builds it, hooked into `make build`\n"
            "  4. its socket baseline, the floor (PROTOCOL.md, \"The socket baselines' wire format\"): one write per"
            " message, reads into one preallocated buffer, TCP_NODELAY on, then"
            f" orbench new-target {language}-socket --language {language} --kind socket\n"
            f"  5. its middleware targets: orbench new-target NAME --language {language}")


def new_family_steps(family: str, asked: str) -> str:
    """What a family that is not in the registry needs, and the question that brought it up."""
    return (f"{asked}family {family!r} is not in harness/targets/{FAMILIES_FILE} "
            f"(known: {', '.join(read_families())}). A new family needs, before its first target:\n"
            f"  1. a table [{family}] in harness/targets/{FAMILIES_FILE}: label, protocol, endpoint, port_pattern (or "
            "port_reader), idl, steps (the [thrift] table is a whole example)\n"
            "  2. if it has an interface language of its own: an IDL emitter, one module harness/orbench/idl/emitters/"
            "NAME.py that registers itself (emitters/thrift.py is a whole one), named by the table's idl\n"
            "  3. harness/PROTOCOL.md: how IDL maps to it and what that makes unfair\n"
            f"Then run this again (or name an existing family with --family).")


def _template(language: Language, kind: str, family: str | None, targets: dict[str, Target]) -> Target | None:
    """The closest target to copy: the language's baseline for a socket target, else its first of the kind (and
    of the family, where it has one)."""
    if kind == "socket" and language.baseline in targets:
        return targets[language.baseline]
    same = sorted(n for n, t in targets.items() if t.language == language.name and t.kind == kind)
    if kind == "orb" and same and family is None:
        raise UserError(f"new-target --language {language.name}: which middleware family is it? Name it with "
                        f"--family ({', '.join(read_families())}; a new one is a table in harness/targets/"
                        f"{FAMILIES_FILE}), or copy a target with --like")
    closest = [n for n in same if targets[n].family == family] or same
    return targets[closest[0]] if closest else None


def _family_of(template: Target | None, stem: str, language: Language, family: str | None,
               families: dict[str, Family], kind: str) -> str | None:
    """The new target's family: the one asked for; else the template's, unless the template's family is named by
    the template's own stem (ice-cpp is the Ice family): then the new stem's, which the table must have."""
    if kind != "orb":
        if family is not None:
            raise UserError(f"new-target --family {family}: only an orb target has a family (this one is {kind})")
        return None
    if family is not None:
        if family not in families:
            raise UserError(new_family_steps(family, ""))
        return family
    if template is None or template.family is None:
        return None
    old_stem = stem_of(template.descriptor, language)
    if template.family != old_stem or stem == old_stem:
        return template.family
    if stem not in families:
        raise UserError(new_family_steps(stem, f"{template.descriptor} is the {template.family} family's own "
                                               f"target, so the new one was taken for a new family {stem!r}: "
                                               f"to keep {template.family}, pass --family {template.family}; "
                                               "else "))
    return stem


def steps_for(family: Family | None, language: Language, kind: str) -> list[str]:
    """The steps of the new target's family for its language (the language's own for a family with none)."""
    if kind != "orb" or family is None:
        return language.steps_for(kind)
    own = family.steps_for(language.name)
    if own:
        return own
    fallback = language.steps_for("orb")
    if family.idl:
        fallback = fallback + [f"its interface file from idl/orbench.idl: python3 -m orbench.idl {family.idl} IDL OUT "
                               f"(harness/orbench/idl/emitters/{family.idl}.py), as the build of its language runs it"]
    return fallback


def new_target(name: str, like: str | None, directory: Path | None = None, language: str | None = None,
               kind: str = "orb", family: str | None = None) -> tuple[Path, list[str]]:
    """Writes <directory>/<name>.toml from the `like` descriptor, or from the closest target of `language` and
    `kind`; returns its path and the next steps."""
    if not NAME_PATTERN.match(name):
        raise UserError(f"new target name {name!r}: use lower-case letters, digits and '-' (e.g. 'orbacus')")
    if (like is None) == (language is None):
        raise UserError("new-target: name either the target to copy (--like TARGET) or a language (--language LANG)")
    targets = read_targets()
    languages = read_languages()
    families = read_families()
    if language is not None and language not in languages:
        raise UserError(new_language_steps(language))
    template = get_target(like, targets) if like else _template(languages[language], kind, family, targets)
    lang = languages[template.language if template else language]
    kind = template.kind if template else kind
    directory = directory or targets_dir()
    path = directory / f"{name}.toml"
    if name in targets or path.exists():
        raise UserError(f"target {name!r} exists already ({path}); pick another name or edit that file")
    stem = stem_of(name, lang)
    new_family = _family_of(template, stem, lang, family, families, kind)
    if template is not None:
        baseline = targets.get(template.baseline or lang.baseline)
        baseline_args = frozenset(baseline.server_argv + baseline.client_argv) if baseline else frozenset()
        path.write_text(render(template, name, stem, new_family, lang, baseline_args))
    else:
        orb_keys = (f'family = "{new_family or next(iter(families))}"   # TODO: one of {", ".join(families)}\n'
                    f'baseline = "{lang.baseline}"\n') if kind == "orb" else ""
        path.write_text(SKELETON.format(name=name, language=lang.name, kind=kind, build=lang.build,
                                        orb_keys=orb_keys))
    try:
        read_descriptor(path)
    except UserError:
        path.unlink()
        raise
    fam = families.get(new_family) if new_family else None
    steps = [s.format(name=name, path=path, stem=stem, family=new_family or "")
             for s in steps_for(fam, lang, kind)]
    steps.append(f"the part every {lang.label} worker shares is {lang.kit}: use it, add only what this target needs")
    if kind in ("orb", "known-answer"):
        steps.append(f"keep baseline = \"{lang.baseline}\" (the {lang.label} socket baseline,"
                     f" harness/targets/{LANGUAGES_FILE}) or change it")
    steps += [f"build it (make {lang.build}), then: orbench check-target {name} (it tries every option"
              " [supports] claims: claim only what passes)",
              f"add \"{name}\" to a campaign's targets (harness/campaigns/)"]
    return path, steps
