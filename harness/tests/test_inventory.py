"""Ansible-style inventories, INI and YAML, into host specs: groups, children, variables and their order,
host ranges, and mistakes named with the file (and the line, for INI)."""

from __future__ import annotations

import pytest
from orbench.errors import UserError
from orbench.hosts.inventory import read_inventory

INI = """\
# the lab
bench-a ansible_host=10.0.0.1 ansible_user=bench
[servers]
bench-a
bench-b ansible_host=10.0.0.2 ansible_port=2222 orbench_java=/opt/jdk25/bin/java

[clients]
node[01:03] ansible_user=runner

[lab:children]
servers
clients

[lab:vars]
ansible_user=lab
orbench_workdir=/scratch/orbench

[all:vars]
ansible_port=22

[me]
here ansible_connection=local orbench_address=10.0.0.9
"""

YAML = """\
all:
  hosts:
    bench-a:
      ansible_host: 10.0.0.1
      ansible_user: bench
  vars:
    ansible_port: 22
  children:
    lab:
      vars:
        ansible_user: lab
        orbench_workdir: /scratch/orbench
      children:
        servers:
          hosts:
            bench-a:
            bench-b:
              ansible_host: 10.0.0.2
              ansible_port: 2222
              orbench_java: /opt/jdk25/bin/java
        clients:
          hosts:
            node[01:03]:
              ansible_user: runner
    me:
      hosts:
        here:
          ansible_connection: local
          orbench_address: 10.0.0.9
"""


@pytest.fixture(params=["ini", "yaml"])
def inventory(request, tmp_path):
    path = tmp_path / ("hosts.ini" if request.param == "ini" else "hosts.yml")
    path.write_text(INI if request.param == "ini" else YAML)
    return read_inventory(path)


def test_groups_children_and_ranges(inventory):
    assert inventory.hosts_of("servers") == ["bench-a", "bench-b"]
    assert inventory.hosts_of("clients") == ["node01", "node02", "node03"]
    assert inventory.hosts_of("lab") == ["bench-a", "bench-b", "node01", "node02", "node03"]
    assert [s.name for s in inventory.resolve("lab")] == ["bench-a", "bench-b", "node01", "node02", "node03"]
    assert {s.name for s in inventory.resolve("all")} == {"bench-a", "bench-b", "node01", "node02", "node03", "here"}


def test_host_variables_win_over_child_groups_over_parents_over_all(inventory):
    a, = inventory.resolve("bench-a")
    assert a.url == "ssh://bench@10.0.0.1:22"  # its own ansible_user over the lab group's
    assert a.address == "10.0.0.1" and a.workdir == "/scratch/orbench" and a.java is None
    b, = inventory.resolve("bench-b")
    assert b.url == "ssh://lab@10.0.0.2:2222" and b.java == "/opt/jdk25/bin/java"
    node, = inventory.resolve("node02")
    assert node.url == "ssh://runner@node02:22" and node.address == "node02"
    here, = inventory.resolve("here")
    assert here.is_local and here.address == "10.0.0.9"


def test_ini_and_yaml_say_the_same(tmp_path):
    (tmp_path / "a.ini").write_text(INI)
    (tmp_path / "a.yaml").write_text(YAML)
    ini, yml = read_inventory(tmp_path / "a.ini"), read_inventory(tmp_path / "a.yaml")
    assert sorted(str(s.as_dict()) for s in ini.resolve("all")) == sorted(str(s.as_dict()) for s in yml.resolve("all"))


@pytest.mark.parametrize("text, words", [
    ("[servers\nbench-a\n", "line 1"),
    ("[servers]\nbench-a port\n", "line 2"),
    ("[servers:vars]\njust-a-word\n", "line 2"),
    ("[servers]\nbench-a ansible_port=99999\n", "ansible_port"),
    ("[a:children]\nb\n[b:children]\na\n[a]\nh\n", "its own child"),
])
def test_ini_mistakes_name_the_file_and_line(tmp_path, text, words):
    path = tmp_path / "bad.ini"
    path.write_text(text)
    with pytest.raises(UserError) as exc:
        read_inventory(path).resolve("a" if "children" in text else "servers")
    assert str(path) in str(exc.value) and words in str(exc.value)


@pytest.mark.parametrize("text, words", [
    ("all:\n  hosts: [a, b]\n", "hosts"),
    ("all:\n  hostz:\n    a:\n", "unknown key"),
    ("all:\n  hosts:\n    a: 5\n", "mapping"),
    ("- a\n- b\n", "mapping of groups"),
    ("all:\n  hosts:\n    a:\n      x: [1\n", "not YAML"),
])
def test_yaml_mistakes_name_the_file(tmp_path, text, words):
    path = tmp_path / "bad.yml"
    path.write_text(text)
    with pytest.raises(UserError) as exc:
        read_inventory(path).resolve("all")
    assert str(path) in str(exc.value) and words in str(exc.value)


def test_unknown_names_and_missing_files(tmp_path, inventory):
    with pytest.raises(UserError, match="neither a group"):
        inventory.resolve("nowhere")
    with pytest.raises(UserError, match="cannot read"):
        read_inventory(tmp_path / "missing.ini")
