"""Middleware families are data (harness/targets/families.toml) and IDL emitters find themselves: a new family from
a temporary table and a temporary emitter module is accepted by the descriptor schema, the translator, the
endpoints and check-target (real workers), with no module under harness/orbench/ changed."""

from __future__ import annotations

import re
import sys
import tomllib

import pytest
from orbench.errors import UserError
from orbench.idl.__main__ import main as translate
from orbench.paths import repo_root, targets_dir
from orbench.targets import families
from orbench.targets.conformance import Conformance, format_checks
from orbench.targets.descriptor import read_descriptor, read_targets
from orbench.targets.families import endpoint_form, read_families
from orbench.targets.new_target import new_target

from tests.conftest import require_targets

IDL = repo_root() / "idl" / "orbench.idl"
# The shipped families, in the registry's order, read from the file itself: adding one there needs no edit here.
SHIPPED = tuple(tomllib.loads((targets_dir() / "families.toml").read_text()))

# A family whose servers are the C socket workers: their real ready lines and wire, under a name and an endpoint
# form the harness has never seen.
NEW_FAMILY = r"""
[plain]
label = "Plain"
protocol = "plain sockets, as a family"
endpoint = 'tcp://\S+:\d+'
port_pattern = ':(?P<port>\d+)$'
idl = "listing"
[[plain.steps]]
language = "c++"
text = "cpp/{stem}/: its workers, built into cpp/build/orbench-{stem}-server and cpp/build/orbench-{stem}-client"
"""

# An interface language of one line per operation.
EMITTER = '''
from orbench.idl.emitter import Emitter, register
from orbench.idl.model import Interface


def emit(module, args):
    return "".join(f"{d.name}.{op.name}\\n" for d in module.definitions if isinstance(d, Interface)
                   for op in d.operations)


register(Emitter("listing", "one line per operation", emit))
'''

DESCRIPTOR = """name = "c-socket"
description = "the C socket workers as a target of a family new to the harness"
language = "c++"
kind = "orb"
family = "{family}"
baseline = "c-socket"
build = "cpp"

[requires]
files = ["cpp/build/orbench-csocket-server", "cpp/build/orbench-csocket-client"]

[server]
argv = ["{{root}}/cpp/build/orbench-csocket-server", "--host", "{{host}}", "--port", "{{port}}"]

[client]
argv = ["{{root}}/cpp/build/orbench-csocket-client"]

[supports]
modes = ["twoway", "oneway"]
payload_types = ["octets"]
"""


@pytest.fixture
def plain_family(tmp_path, monkeypatch):
    """The shipped families plus [plain], and the emitter `listing` in a directory of its own."""
    from orbench.idl import emitter
    from orbench.idl import emitters as package

    registry = tmp_path / "registry"
    registry.mkdir()
    (registry / "families.toml").write_text((targets_dir() / "families.toml").read_text() + NEW_FAMILY)
    extra = tmp_path / "emitters"
    extra.mkdir()
    (extra / "listing.py").write_text(EMITTER)
    # Every shipped emitter imported first: one imported under the copy would be lost with it after the test.
    monkeypatch.setattr(emitter, "_registered", dict(emitter.known_emitters()))
    monkeypatch.setattr(package, "__path__", [*package.__path__, str(extra)])
    monkeypatch.setattr(families, "targets_dir", lambda: registry)
    yield registry
    sys.modules.pop("orbench.idl.emitters.listing", None)


def test_the_shipped_families_name_real_emitters_and_every_orb_target_has_one():
    table = read_families()
    from orbench.idl.emitter import known_emitters

    assert tuple(table) == SHIPPED and SHIPPED
    assert {f.idl for f in table.values() if f.idl} <= set(known_emitters())
    for target in read_targets().values():
        assert (target.family in table) == (target.kind == "orb"), target.name
        if target.family:
            # Every family has steps of its own for every language it has targets in.
            assert table[target.family].steps_for(target.language), (target.family, target.language)


def test_a_new_family_is_accepted_by_the_translator_the_schema_and_the_endpoints(plain_family, tmp_path):
    out = tmp_path / "orbench.listing"
    assert translate(["listing", str(IDL), str(out)]) == 0
    assert "Bench.push\n" in out.read_text() and "Bench.shutdown\n" in out.read_text()

    path = tmp_path / "c-socket.toml"
    path.write_text(DESCRIPTOR.format(family="plain"))
    target = read_descriptor(path)
    assert target.family == "plain" and target.protocol == "plain sockets, as a family"
    path.write_text(DESCRIPTOR.format(family="plane"))
    known = re.escape(", ".join((*SHIPPED, "plain")))
    with pytest.raises(UserError, match=r"c-socket.toml: key family: value 'plane': not a family of "
                                        rf"harness/targets/families.toml \({known}\)"):
        read_descriptor(path)

    form = endpoint_form("plain")
    assert form.port_of("tcp://10.0.0.1:4711") == 4711
    assert form.with_port("tcp://[::1]:4711", 80) == "tcp://[::1]:80"


def test_a_new_family_passes_check_target_with_real_workers(plain_family, tmp_path):
    require_targets("c-socket")
    path = tmp_path / "c-socket.toml"
    path.write_text(DESCRIPTOR.format(family="plain"))
    target = read_descriptor(path)
    # The steps where a family counts: the ready line (its endpoint form) and the relay (its port read from the
    # endpoint); test_contract runs every step for the shipped families.
    checks = Conformance(target, log_dir=tmp_path / "logs", only=frozenset({"delays"})).run()
    report = format_checks(target, checks)
    assert all(c.passed for c in checks), report
    names = {c.name for c in checks}
    # Its endpoint was checked against its family's form, and its port read from it for the relay.
    assert {"server prints a valid ready line", "samples are ns: twoway against replies held a known time"} <= names


def test_new_target_like_a_family_s_own_target_takes_the_new_family(plain_family, tmp_path):
    path, steps = new_target("plain-cpp", "ice-cpp", tmp_path)
    target = read_descriptor(path)
    assert target.family == "plain" and target.required_files == ("cpp/build/orbench-plain-server",
                                                                  "cpp/build/orbench-plain-client")
    assert steps[0] == ("cpp/plain/: its workers, built into cpp/build/orbench-plain-server and "
                        "cpp/build/orbench-plain-client")


@pytest.mark.parametrize("change, words", [
    (("port_pattern = ':(?P<port>\\d+)$'", "port_pattern = ':(\\d+)$'"), ["key plain.port_pattern", "no group"]),
    (("port_pattern = ':(?P<port>\\d+)$'", "port_reader = 'url'"), ["key plain.port_reader", "'url'", "ior"]),
    (("port_pattern = ':(?P<port>\\d+)$'", ""), ["key plain", "port_pattern or port_reader, one of them"]),
    (("endpoint = 'tcp://\\S+:\\d+'", "endpoint = 'tcp://(\\S+'"), ["key plain.endpoint", "not a regular expression"]),
    (('idl = "listing"', 'idl = "listings"'), ["key plain.idl", "'listings'", "emitters/listings.py"]),
    (('label = "Plain"', 'label = "Plain"\nlabels = "x"'), ["unknown key 'labels'", "did you mean 'label'"]),
])
def test_family_table_mistakes_name_the_file_the_key_and_the_value(plain_family, change, words):
    path = plain_family / "families.toml"
    path.write_text(path.read_text().replace(*change))
    with pytest.raises(UserError) as exc:
        read_families()
    message = str(exc.value)
    assert message.startswith(str(path)) and all(w in message for w in words), message


def test_a_family_s_warnings_are_in_its_own_words(tmp_path):
    """check-target's warning for more than one segment per request: Cap'n Proto's is its Finish message, the
    others' a request written in parts (families.toml, extra_segments)."""
    targets = read_targets()
    words = {}
    for name in ("capnp-cpp", "thrift-cpp"):
        conformance = Conformance(targets[name], log_dir=tmp_path / name)
        conformance._one_segment(2.1)
        words[name] = conformance.checks[-1].detail
    assert "Finish message" in words["capnp-cpp"] and "header, then body" not in words["capnp-cpp"], words
    assert "header, then body" in words["thrift-cpp"], words
