"""The descriptors in harness/targets/ load, and a broken descriptor is refused with its file named."""

import json
import re

import pytest
from orbench.errors import UserError
from orbench.paths import repo_root
from orbench.targets.descriptor import descriptor_schema, read_descriptor, read_targets
from orbench.targets.languages import read_languages

EXPECTED = {"omniorb", "tao", "jacorb", "glassfish", "c-socket", "java-socket", "java-nio", "java-jni", "java-ffm",
            "omniorbpy", "python-socket"}


def test_every_descriptor_loads_and_pairs_with_a_baseline():
    targets = read_targets()
    assert EXPECTED <= set(targets)
    for t in targets.values():
        if t.kind == "orb":
            base = targets[t.baseline]
            assert base.kind == "socket" and base.language == t.language
        assert t.server_command("127.0.0.1", 0) and t.client_command()
        # Every placeholder is filled, but those a Java ORB's server fills itself (--orb-property NAME=...).
        argv = t.server_command("127.0.0.1", 0)
        server = [a for i, a in enumerate(argv) if i == 0 or argv[i - 1] != "--orb-property"]
        assert "{" not in " ".join(server + t.client_command())


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
    with pytest.raises(UserError, match=r"bad.toml: key language: value 'cobol': not a language of "
                                        r"harness/targets/languages.toml \(c\+\+, java, python\)"):
        read_descriptor(path)


def test_languages_are_data_each_with_its_socket_baseline_and_make_target():
    languages = read_languages()
    targets = read_targets()
    makefile = (repo_root() / "Makefile").read_text()
    assert "enum" not in json.dumps(descriptor_schema()["properties"]["language"]), "languages.toml lists them"
    assert {t.language for t in targets.values()} == set(languages)
    for name, lang in languages.items():
        base = targets[lang.baseline]
        assert base.kind == "socket" and base.language == name, (name, base)
        assert re.search(rf"^{re.escape(lang.build)}:", makefile, re.MULTILINE), f"no make target {lang.build}"
        assert re.search(rf"^build:.*\b{re.escape(lang.build)}\b", makefile, re.MULTILINE), \
            f"make build does not build {lang.build}"
        assert (repo_root() / lang.kit).is_dir(), lang.kit
        assert lang.steps_for("orb") and lang.steps_for("socket")
    assert languages["python"].row_label == "Python middleware − Python sockets"


def test_orb_without_baseline_is_refused(tmp_path):
    path = tmp_path / "orbx.toml"
    path.write_text('name = "orbx"\ndescription = "x"\nlanguage = "java"\nkind = "orb"\nbuild = "x"\n'
                    '[server]\nargv = ["x"]\n[client]\nargv = ["y"]\n[supports]\nmodes = ["twoway"]\n'
                    'payload_types = ["octets"]\n')
    with pytest.raises(UserError, match="'baseline' is a required property"):
        read_descriptor(path)


GOOD = ('name = "{name}"\ndescription = "x"\nlanguage = "c++"\nkind = "socket"\nbuild = "cpp"\n'
        '[server]\nargv = ["x"]\n[client]\nargv = ["y"]\n[supports]\nmodes = ["twoway"]\npayload_types = ["octets"]\n')


@pytest.mark.parametrize("change, words", [
    (("modes = [\"twoway\"]", "modes = [\"twoway\", \"twoways\"]"), ["key supports.modes[1]", "'twoways'"]),
    (("build = \"cpp\"", "build = \"cpp\"\nbaselin = \"c-socket\""), ["unknown key 'baselin'", "did you mean 'baseline'"]),
    (("[client]", "[requires]\njava_version = 7\n[client]"), ["key requires.java_version", "value 7"]),
    (("[client]", "[requires]\nfles = [\"a\"]\n[client]"), ["key requires", "unknown key 'fles'", "'files'"]),
    (("argv = [\"y\"]", "argv = \"y\""), ["key client.argv", "value 'y'", "is not of type 'array'"]),
    (("payload_types = [\"octets\"]", "payload_types = [\"octets\"]\nfixed_options = { no_delay = true }"),
     ["key supports.fixed_options", "'no_delay'"]),
    (("[client]", "[orb]\nname = \"X\"\nversion_attribute = \"V\"\nserver_properties = {a = \"b\"}\n[client]"),
     ["key (top level)", "only a Java CORBA ORB", "[orb] table"]),
])
def test_descriptor_mistakes_name_the_file_the_key_and_the_value(tmp_path, change, words):
    path = tmp_path / "sock.toml"
    path.write_text(GOOD.format(name="sock").replace(*change))
    with pytest.raises(UserError) as exc:
        read_descriptor(path)
    message = str(exc.value)
    assert message.startswith(str(path)) and all(w in message for w in words), message


def test_a_java_orb_needs_its_orb_table_and_a_descriptor_in_another_encoding_is_named(tmp_path):
    path = tmp_path / "jorb.toml"
    path.write_text(GOOD.format(name="jorb").replace('"c++"', '"java"').replace('"socket"', '"orb"')
                    .replace('build = "cpp"', 'build = "java"\nbaseline = "java-socket"\nfamily = "corba"'))
    with pytest.raises(UserError, match="'orb' is a required property"):
        read_descriptor(path)
    path.write_bytes(GOOD.format(name="jorb").replace('"x"', '"caf\xe9"').encode("latin-1"))
    with pytest.raises(UserError, match=r"jorb.toml: not a UTF-8 text file"):
        read_descriptor(path)


def test_the_options_the_schema_names_are_the_options_the_harness_knows():
    from orbench.targets.descriptor import OPTION_ENDS, descriptor_schema

    assert descriptor_schema()["$defs"]["option"]["enum"] == list(OPTION_ENDS)


def test_a_java_orbs_table_becomes_its_workers_arguments():
    jacorb = read_targets()["jacorb"]
    server, client = jacorb.server_command("10.0.0.1", 0), jacorb.client_command()
    assert server[-8:] == ["--orb-name", "JacORB", "--orb-version-attribute", "Implementation-Version",
                           "--orb-property", "OAIAddr={host}", "--orb-property", "OAPort={port}"]
    assert client[-4:] == ["--orb-name", "JacORB", "--orb-version-attribute", "Implementation-Version"]
