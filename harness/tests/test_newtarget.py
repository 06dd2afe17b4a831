"""`orbench new-target`: a descriptor that loads, carries the new name everywhere, and never overwrites."""

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
    path, steps = new_target("pyorb", None, tmp_path, language="python")
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
