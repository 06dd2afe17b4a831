"""`orbench new-target NAME --like TARGET` or `--language LANG [--kind KIND]`: a starting descriptor for a new
target, copied from the closest existing one (or, for a language with no target of that kind yet, a skeleton),
with the name changed everywhere it appears and a list of what to do next, which comes from the language's
table in harness/targets/languages.toml (harness/targets/README.md, "Adding an ORB", "Adding a language").
It writes one file and never overwrites one.
"""

from __future__ import annotations

import re
from pathlib import Path

from orbench.errors import UserError
from orbench.paths import targets_dir
from orbench.targets.descriptor import Target, get_target, read_descriptor, read_targets
from orbench.targets.languages import LANGUAGES_FILE, Language, read_languages

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")

def render(template: Target, name: str) -> str:
    """The template's text with its name replaced by `name` (name key, --target values, comments)."""
    text = template.path.read_text()
    text = re.sub(rf'^name = "{re.escape(template.name)}"', f'name = "{name}"', text, count=1, flags=re.MULTILINE)
    text = text.replace(f'"--target", "{template.name}"', f'"--target", "{name}"')
    text = re.sub(r'^description = ".*"$', f'description = "TODO: what {name} is and where it comes from"',
                  text, count=1, flags=re.MULTILINE)
    text = _unclaimed(text, template)
    header = (f"# {name}: started from {template.path.name} by `orbench new-target {name} --like {template.name}`.\n"
              f"# TODO: edit description, argv, requires, [orb], [supports] (see harness/targets/README.md), then\n"
              f"#       run orbench check-target {name}\n")
    return header + text


def _unclaimed(text: str, template: Target) -> str:
    """The template's claims about options are its own, not the new target's: [supports] options starts empty
    and fixed_options commented out, each with a note to verify (check-target tries every option claimed);
    a Java ORB's [orb] table is marked as the template's."""
    claimed = ", ".join(template.options) or "none"
    text = re.sub(r"^options = .*$",
                  f"options = []   # TODO: the connect options it can set; {template.name} claims: {claimed}. "
                  "Claim one only once check-target passes with it.", text, count=1, flags=re.MULTILINE)
    text = re.sub(r"^(fixed_options = .*)$",
                  rf"# \1   # TODO: {template.name}'s; verify the new target always does this before claiming it",
                  text, count=1, flags=re.MULTILINE)
    return text.replace("\n[orb]", f"\n# TODO: [orb] is {template.name}'s: the new ORB's name, the manifest attribute that "
                        "holds its version, the properties that make it bind and advertise {host}:{port}\n[orb]", 1)


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


def _template(language: Language, kind: str, targets: dict[str, Target]) -> Target | None:
    """The closest target to copy: the language's baseline for a socket target, else its first of the kind."""
    if kind == "socket" and language.baseline in targets:
        return targets[language.baseline]
    same = sorted(n for n, t in targets.items() if t.language == language.name and t.kind == kind)
    return targets[same[0]] if same else None


def new_target(name: str, like: str | None, directory: Path | None = None, language: str | None = None,
               kind: str = "orb") -> tuple[Path, list[str]]:
    """Writes <directory>/<name>.toml from the `like` descriptor, or from the closest target of `language` and
    `kind`; returns its path and the next steps."""
    if not NAME_PATTERN.match(name):
        raise UserError(f"new target name {name!r}: use lower-case letters, digits and '-' (e.g. 'orbacus')")
    if (like is None) == (language is None):
        raise UserError("new-target: name either the target to copy (--like TARGET) or a language (--language LANG)")
    targets = read_targets()
    languages = read_languages()
    if language is not None and language not in languages:
        raise UserError(new_language_steps(language))
    template = get_target(like, targets) if like else _template(languages[language], kind, targets)
    lang = languages[template.language if template else language]
    kind = template.kind if template else kind
    directory = directory or targets_dir()
    path = directory / f"{name}.toml"
    if name in targets or path.exists():
        raise UserError(f"target {name!r} exists already ({path}); pick another name or edit that file")
    if template is not None:
        path.write_text(render(template, name))
    else:
        orb_keys = f'family = "corba"   # TODO: corba, grpc or ice\nbaseline = "{lang.baseline}"\n' if kind == "orb" else ""
        path.write_text(SKELETON.format(name=name, language=lang.name, kind=kind, build=lang.build,
                                        orb_keys=orb_keys))
    try:
        read_descriptor(path)
    except UserError:
        path.unlink()
        raise
    steps = [s.format(name=name, path=path) for s in lang.steps_for(kind)]
    steps.append(f"the part every {lang.label} worker shares is {lang.kit}: use it, add only what this target needs")
    if kind in ("orb", "known-answer"):
        steps.append(f"keep baseline = \"{lang.baseline}\" (the {lang.label} socket baseline,"
                     f" harness/targets/{LANGUAGES_FILE}) or change it")
    steps += [f"build it (make {lang.build}), then: orbench check-target {name} (it tries every option"
              " [supports] claims: claim only what passes)",
              f"add \"{name}\" to a campaign's targets (harness/campaigns/)"]
    return path, steps
