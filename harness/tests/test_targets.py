"""The descriptors in harness/targets/ load, and a broken descriptor is refused with its file named."""

import pytest
from orbench.errors import UserError
from orbench.targets.descriptor import read_descriptor, read_targets

EXPECTED = {"omniorb", "tao", "jacorb", "glassfish", "c-socket", "java-socket", "java-nio", "java-jni", "java-ffm"}


def test_every_descriptor_loads_and_pairs_with_a_baseline():
    targets = read_targets()
    assert EXPECTED <= set(targets)
    for t in targets.values():
        if t.kind == "orb":
            base = targets[t.baseline]
            assert base.kind == "socket" and base.language == t.language
        assert t.server_command("127.0.0.1", 0) and t.client_command()
        assert "{" not in " ".join(t.server_command("127.0.0.1", 0) + t.client_command())


def test_targets_command_lists_each_with_its_state(capsys):
    from orbench.cli import main

    assert main(["targets"]) == 0
    out = capsys.readouterr().out
    for name in EXPECTED:
        line = next(line for line in out.splitlines() if line.startswith(name + " "))
        assert "available" in line or "MISSING" in line


def test_bad_descriptor_is_refused(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('name = "bad"\ndescription = "x"\nlanguage = "cobol"\nkind = "orb"\nbuild = "x"\n'
                    '[server]\nargv = ["x"]\n[client]\nargv = ["y"]\n[supports]\nmodes = ["twoway"]\n'
                    'payload_types = ["octets"]\n')
    with pytest.raises(UserError, match=r"bad.toml: language 'cobol'"):
        read_descriptor(path)


def test_orb_without_baseline_is_refused(tmp_path):
    path = tmp_path / "orbx.toml"
    path.write_text('name = "orbx"\ndescription = "x"\nlanguage = "java"\nkind = "orb"\nbuild = "x"\n'
                    '[server]\nargv = ["x"]\n[client]\nargv = ["y"]\n[supports]\nmodes = ["twoway"]\n'
                    'payload_types = ["octets"]\n')
    with pytest.raises(UserError, match="needs baseline"):
        read_descriptor(path)
