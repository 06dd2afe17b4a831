"""`orbench new-target NAME --like TARGET`: a starting descriptor for a new target, copied from the closest
existing one, with the name changed everywhere it appears and a list of what to do next (harness/targets/
README.md, "Adding an ORB"). It writes one file and never overwrites one.
"""

from __future__ import annotations

import re
from pathlib import Path

from orbench.errors import UserError
from orbench.paths import targets_dir
from orbench.targets.descriptor import Target, get_target, read_descriptor, read_targets

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")

# What to do after the descriptor, by (language, kind) of the template.
NEXT_STEPS = {
    ("java", "orb"): [
        "java/pom.xml: add the ORB as a `runtime` dependency and a copy-dependencies execution (like copy-jacorb)"
        " into java/target/lib/{name}/, by group id; keep its groups out of every other ORB's directory, and its"
        " jars off the test class path (surefire classpathDependencyExcludes)",
        "{path}: class path lib/common + lib/{name} (never another ORB's), -Dorg.omg.CORBA.ORBClass and"
        " ORBSingletonClass of the new ORB, requires.files naming its main jar",
        "{path} [orb]: the ORB's name, the manifest attribute of its jar that holds its version, and the"
        " properties that make its server bind and advertise exactly {{host}}:{{port}} (free_port = true if it"
        " refuses port 0); no Java code",
        "JDK 11+ removed java.corba and java.transaction: an ORB built for JDK 8 may need its OMG API jar (often"
        " `provided` in its pom), javax.transaction-api and its RMI parts added explicitly",
    ],
    ("c++", "orb"): [
        "cpp/orb/{name}/: the thin ORB-specific part (generated-header includes, endpoint arguments, version),"
        " beside cpp/orb/omniorb/; the servant and client logic in cpp/orb/ is shared",
        "cpp/CMakeLists.txt: build orbench-{name}-server and -client when the ORB is found, else skip with a"
        " message; {path}: requires.files and pkg_config to match",
    ],
    ("java", "socket"): [
        "java/src/main/java/org/orbench/socket/: a Transport (connect, listen) and its Link, registered by name"
        " in Transports.java; {path}: pass it with --transport",
    ],
    ("c++", "socket"): [
        "cpp/: the two workers against harness/PROTOCOL.md's wire format, built by cpp/CMakeLists.txt",
    ],
}


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


def new_target(name: str, like: str, directory: Path | None = None) -> tuple[Path, list[str]]:
    """Writes <directory>/<name>.toml from the `like` descriptor; returns its path and the next steps."""
    if not NAME_PATTERN.match(name):
        raise UserError(f"new target name {name!r}: use lower-case letters, digits and '-' (e.g. 'orbacus')")
    targets = read_targets()
    template = get_target(like, targets)
    directory = directory or targets_dir()
    path = directory / f"{name}.toml"
    if name in targets or path.exists():
        raise UserError(f"target {name!r} exists already ({path}); pick another name or edit that file")
    path.write_text(render(template, name))
    try:
        read_descriptor(path)
    except UserError:
        path.unlink()
        raise
    steps = [s.format(name=name, path=path) for s in NEXT_STEPS.get((template.language, template.kind), [])]
    if template.kind == "orb":
        steps.append(f"keep baseline = \"{template.baseline}\" (the socket target of the same language) or change it")
    steps += [f"build it (make {template.build}), then: orbench check-target {name} (it tries every option"
              " [supports] claims: claim only what passes)",
              f"add \"{name}\" to a campaign's targets (harness/campaigns/)"]
    return path, steps
