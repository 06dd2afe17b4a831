"""`orbench new-target`: a descriptor that loads, carries the new name everywhere, and never overwrites."""

import re
import tomllib

import pytest
from orbench.errors import UserError
from orbench.targets.descriptor import read_descriptor
from orbench.targets.new_target import new_target

from tests.conftest import run_cli


def test_a_new_target_like_jacorb_loads_under_its_own_name(tmp_path):
    path, steps = new_target("orbx", "jacorb", tmp_path)
    target = read_descriptor(path)
    assert target.name == "orbx" and target.kind == "orb" and target.baseline == "java-socket"
    argv = " ".join(target.server_argv + target.client_argv)
    assert "--target orbx" in argv and "--target jacorb" not in argv
    assert target.description.startswith("TODO")
    assert any("java/target/lib/orbx/" in s for s in steps)
    assert steps[-2].startswith("build it (make java), then: orbench check-target orbx (it tries every option")


def test_existing_names_and_bad_names_are_refused(tmp_path):
    with pytest.raises(UserError, match="exists already"):
        new_target("glassfish", "jacorb", tmp_path)
    (tmp_path / "orby.toml").write_text("x")
    with pytest.raises(UserError, match="exists already"):
        new_target("orby", "jacorb", tmp_path)
    assert (tmp_path / "orby.toml").read_text() == "x"
    with pytest.raises(UserError, match="lower-case"):
        new_target("Bad Name", "jacorb", tmp_path)
    with pytest.raises(UserError, match="unknown target 'nosuch'"):
        new_target("orbz", "nosuch", tmp_path)


def test_the_command_prints_the_path_and_the_steps(tmp_path):
    code, out, err = run_cli("new-target", "csock2", "--like", "c-socket", "--dir", str(tmp_path))
    assert code == 0, err
    assert f"wrote {tmp_path}/csock2.toml" in out and "orbench check-target csock2" in out


def test_a_new_python_target_gets_the_python_steps(tmp_path):
    with pytest.raises(UserError, match="which middleware family is it"):
        new_target("pyorb", None, tmp_path, language="python")
    path, steps = new_target("pyorb", None, tmp_path, language="python", family="corba")
    target = read_descriptor(path)
    assert target.language == "python" and target.kind == "orb" and target.baseline == "python-socket"
    assert "--target pyorb" in " ".join(target.client_argv)
    assert any("harness/workers/python/pyorb_client.py" in s for s in steps)
    assert any("harness/workers/python/orbench_worker/" in s for s in steps)
    assert steps[-2].startswith("build it (make python)")
    path, steps = new_target("pysock", None, tmp_path, language="python", kind="socket")
    assert read_descriptor(path).kind == "socket" and "socket_client.py" in steps[0]


def test_a_language_not_listed_yet_is_told_what_a_language_needs(tmp_path):
    code, out, err = run_cli("new-target", "rustorb", "--language", "rust", "--dir", str(tmp_path))
    assert code != 0 and not list(tmp_path.iterdir())
    for words in ("a table [rust] in harness/targets/languages.toml", "a worker kit", "socket baseline",
                  "new-target rust-socket --language rust --kind socket"):
        assert words in err
    code, out, err = run_cli("new-target", "x1", "--like", "jacorb", "--language", "java", "--dir", str(tmp_path))
    assert code != 0 and "either" in err


def test_the_first_target_of_a_new_language_is_a_skeleton_that_loads(tmp_path, monkeypatch):
    import orbench.targets.languages as languages
    from orbench.paths import targets_dir

    registry = tmp_path / "registry"
    registry.mkdir()
    (registry / "languages.toml").write_text(
        (targets_dir() / "languages.toml").read_text()
        + '\n[rust]\nlabel = "Rust"\nbaseline = "rust-socket"\nbaseline_label = "Rust sockets"\nbuild = "rust"\n'
          'kit = "rust/kit/"\nclock = "Instant::now()"\n[[rust.steps]]\nkind = "orb"\ntext = "rust/{name}/: its binding"\n')
    monkeypatch.setattr(languages, "targets_dir", lambda: registry)
    path, steps = new_target("rorb", None, tmp_path, language="rust")
    target = read_descriptor(path)
    assert (target.language, target.kind, target.baseline, target.build) == ("rust", "orb", "rust-socket", "rust")
    assert "--target rorb" in " ".join(target.client_argv) and "TODO" in path.read_text()
    assert steps[0] == "rust/rorb/: its binding" and steps[-2].startswith("build it (make rust)")


def _one_target_per_family_and_language() -> list[str]:
    from orbench.targets.descriptor import read_targets

    firsts: dict[tuple[str, str], str] = {}
    for name, t in sorted(read_targets().items()):
        if t.kind == "orb":
            firsts.setdefault((t.family, t.language), name)
    return sorted(firsts.values())


# A path in the repository as the steps print it; made by the build (not there before it): under these.
REPO_PATH = re.compile(r"(?<![\w/.{}-])(?:cpp|java|harness|idl)/[\w./{}-]*[\w/]")
BUILT = ("cpp/build/", "java/target/", "harness/workers/python/build/")


@pytest.mark.parametrize("like", _one_target_per_family_and_language())
def test_a_copy_of_each_family_s_target_names_its_own_files_and_only_existing_others(like, tmp_path):
    """new-target --like a target of each family and language: what is the template's is renamed (files, argv)
    or left as a TODO (options, packages, hint); every path the steps print is there already, is made by the
    build, or carries the new name (the steps make it); and every file the new descriptor names as its own is
    one the steps say how to make."""
    from orbench.paths import repo_root
    from orbench.targets.descriptor import read_targets
    from orbench.targets.languages import read_languages
    from orbench.targets.new_target import stem_of

    template = read_targets()[like]
    language = read_languages()[template.language]
    old_stem = stem_of(like, language)
    name = f"{old_stem}2" + like[len(old_stem):]
    stem = f"{old_stem}2"
    path, steps = new_target(name, like, tmp_path, family=template.family)
    target = read_descriptor(path)
    assert (target.family, target.language, target.kind) == (template.family, template.language, "orb")
    assert target.options == () and target.fixed_options == () and target.requires_hint is None
    assert target.required_pkg_config == ()
    paths = [p.removeprefix("{root}/") for a in target.server_argv + target.client_argv + target.required_files
             for p in a.split(":") if "/" in p]   # a class path is several
    own = [p for p in paths if re.search(rf"(?<![A-Za-z0-9]){re.escape(stem)}(?![A-Za-z0-9])", p)]
    assert own or template.language == "python", f"nothing renamed from {like}: {target}"
    printed = [p for step in steps for p in REPO_PATH.findall(step)]
    for p in printed:
        made = stem in p or p.startswith(BUILT)
        assert made or (repo_root() / p).exists(), f"step path {p} does not exist: {steps}"
    for file in own:
        if file.startswith(("cpp/", "java/", "harness/")):
            assert any(file.startswith(p) for p in printed), f"{file} is named by no step: {steps}"
    # Nothing of the template's is left in its files and argv but its own settings, which a TODO lists.
    old_word = re.compile(rf"(?<![A-Za-z0-9]){re.escape(old_stem)}(?![A-Za-z0-9])", re.IGNORECASE)
    listed = " ".join(line for line in path.read_text().splitlines() if line.startswith(f"# TODO: {like}'s own"))
    data = tomllib.loads(path.read_text())   # argv as written ([orb], the template's too, is marked a TODO)
    for value in target.required_files + tuple(data["server"]["argv"]) + tuple(data["client"]["argv"]):
        assert not old_word.search(value) or value in listed, f"{value!r} is still {like}'s"


def test_a_copy_of_a_family_s_own_target_under_a_new_name_asks_for_its_family(tmp_path):
    with pytest.raises(UserError) as exc:
        new_target("zeta-cpp", "ice-cpp", tmp_path)
    message = str(exc.value)
    for words in ("pass --family ice", "family 'zeta' is not in harness/targets/families.toml",
                  "a table [zeta]", "harness/orbench/idl/emitters/NAME.py"):
        assert words in message, message
    assert not list(tmp_path.iterdir())
    path, _ = new_target("zeta-cpp", "ice-cpp", tmp_path, family="ice")
    assert read_descriptor(path).family == "ice"


def test_a_first_target_of_a_family_in_a_language_leaves_the_template_s_family_tables_out(tmp_path):
    """No Java target of the Thrift family yet: copied from a Java CORBA ORB, without that ORB's [orb] table,
    with the language's steps and the family's emitter."""
    path, steps = new_target("zeta-java", None, tmp_path, language="java", family="thrift")
    target = read_descriptor(path)
    assert target.family == "thrift" and "[orb]" not in path.read_text().replace("'s [orb] table", "")
    assert any("python3 -m orbench.idl thrift" in s for s in steps)
    assert steps[0].startswith("java/src/main/java/org/orbench/zeta/")


def test_every_copied_argument_that_is_not_generic_is_flagged(tmp_path):
    """Thrift's `--transport buffered` names no Thrift word, but is Thrift's setting: flagged with the rest;
    what every target passes (worker paths, --host {host}, --target NAME, the baseline's JVM flags) is not."""
    path, _ = new_target("zeta-cpp", "thrift-cpp", tmp_path, family="thrift")
    flagged = [line for line in path.read_text().splitlines() if line.startswith("# TODO: thrift-cpp's own settings")]
    assert len(flagged) == 2 and all(line.endswith("keep or drop: --transport buffered") for line in flagged), flagged
    path, _ = new_target("zeta-java", "grpc-java", tmp_path, family="grpc")
    flagged = " ".join(line for line in path.read_text().splitlines() if "grpc-java's own settings" in line)
    assert "-Xmx256m" not in flagged and "--host" not in flagged and "org.orbench.zeta.ZetaServer" in flagged, flagged
