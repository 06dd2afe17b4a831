"""Ansible inventories read by ansible-core into host specs: INI and YAML files, inventory directories with
group_vars/ and host_vars/, children several levels deep, ranges, the constructed plugin, Ansible's ssh
variables, host patterns, and mistakes named with the file and the host."""

from __future__ import annotations

import pytest
from orbench.errors import UserError
from orbench.hosts.inventory import read_inventory
from orbench.hosts.ssh import Host, SshSettings

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
    assert sorted(inventory.hosts_of("lab")) == ["bench-a", "bench-b", "node01", "node02", "node03"]
    assert [s.name for s in inventory.resolve("clients")] == ["node01", "node02", "node03"]
    assert {s.name for s in inventory.resolve("all")} == {"bench-a", "bench-b", "node01", "node02", "node03", "here"}
    # Ansible's host patterns: an intersection, a subscript
    assert inventory.hosts_of("lab:&servers") == ["bench-a", "bench-b"]
    assert [s.name for s in inventory.resolve("clients[1:2]")] == ["node02", "node03"]


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

    def specs(inv):
        return sorted(str({k: v for k, v in s.as_dict().items() if k != "inventory"}) for s in inv.resolve("all"))

    assert specs(ini) == specs(yml)


def test_a_directory_with_group_vars_host_vars_and_a_constructed_plugin(tmp_path):
    """What labs keep: several files, variables in group_vars/ and host_vars/ (over the files' own), three
    levels of groups, and groups made by the constructed plugin from a variable."""
    inv = tmp_path / "inventory"
    (inv / "group_vars" / "all").mkdir(parents=True)
    (inv / "host_vars").mkdir()
    (inv / "10-hosts").write_text(  # no .ini: Ansible skips that extension in a directory
        "[rack1]\nnode[01:02] rack_cpu=epyc\n[rack2]\nnode[03:04] rack_cpu=xeon\n"
        "[racks:children]\nrack1\nrack2\n[lab:children]\nracks\n")
    (inv / "20-extra.yml").write_text("all:\n  children:\n    lab:\n      hosts:\n        gpu1:\n")
    (inv / "30-by-cpu.yml").write_text(
        "plugin: constructed\nstrict: false\nkeyed_groups:\n  - key: rack_cpu\n    prefix: cpu\n")
    (inv / "group_vars" / "all" / "ssh.yml").write_text(
        "ansible_user: bench\nansible_ssh_private_key_file: ~/.ssh/lab_ed25519\n"
        "ansible_ssh_common_args: -o ProxyJump=gate.lab -o 'UserKnownHostsFile=/etc/lab known_hosts'\n")
    (inv / "group_vars" / "rack2.yml").write_text("ansible_port: 2202\norbench_workdir: /scratch/{{ inventory_hostname }}\n")
    (inv / "host_vars" / "node04.yml").write_text("ansible_host: 192.0.2.4\n")
    inventory = read_inventory(inv)
    assert sorted(inventory.hosts_of("lab")) == ["gpu1", "node01", "node02", "node03", "node04"]
    assert inventory.hosts_of("racks") == ["node01", "node02", "node03", "node04"]
    assert inventory.hosts_of("cpu_xeon") == ["node03", "node04"]
    assert inventory.hosts_of("cpu_epyc") == ["node01", "node02"]
    n4, = inventory.resolve("node04")
    assert n4.url == "ssh://bench@192.0.2.4:2202" and n4.workdir == "/scratch/node04"
    assert n4.identity_file is not None and n4.identity_file.endswith("/.ssh/lab_ed25519") and "~" not in n4.identity_file
    assert n4.ssh_args == ("-o", "ProxyJump=gate.lab", "-o", "UserKnownHostsFile=/etc/lab known_hosts")
    # The host's key replaces the campaign's; its own options come after orbench's, which keep their values.
    argv = Host(n4, SshSettings(identity_file="/campaign/key")).wrap(["true"])
    assert "/campaign/key" not in argv and argv[argv.index("-i") + 1] == n4.identity_file
    assert argv.index("StrictHostKeyChecking=yes") < argv.index("ProxyJump=gate.lab")
    # What the manifest records: the source and the variables orbench used, key paths only.
    record = n4.as_dict()["inventory"]
    assert record["source"] == str(inv) and record["variables"]["ansible_port"] == 2202
    assert set(record["variables"]) <= {"ansible_host", "ansible_port", "ansible_user", "ansible_ssh_private_key_file",
                                        "ansible_ssh_common_args", "orbench_workdir"}
    assert "rack_cpu" not in record["variables"]


@pytest.mark.parametrize("text, words", [
    ("[servers\nbench-a\n", "ini plugin"),  # why, as Ansible says it
    ("[servers]\nbench-a ansible_port=99999\n", "ansible_port"),
    ("[servers]\nbench-a ansible_host='bad host;rm'\n", "bench-a"),
    ("[servers]\nbench-a ansible_connection=winrm\n", "ansible_connection"),
    ("[servers]\nbench-a ansible_ssh_common_args=\"-o 'unclosed\"\n", "ansible_ssh_common_args"),
])
def test_mistakes_name_the_file_and_host(tmp_path, text, words):
    path = tmp_path / "bad.ini"
    path.write_text(text)
    with pytest.raises(UserError) as exc:
        read_inventory(path).resolve("servers")
    assert str(path) in str(exc.value) and words in str(exc.value)


def test_unknown_names_and_missing_files(tmp_path, inventory):
    with pytest.raises(UserError, match="names no host"):
        inventory.resolve("nowhere")
    with pytest.raises(UserError, match="no such file"):
        read_inventory(tmp_path / "missing.ini")


def test_without_ansible_core_the_error_says_what_to_install(tmp_path):
    """A harness installed without the fleet extra: naming an inventory says what to install (ansible made
    unimportable in a real subprocess)."""
    import subprocess
    import sys

    (tmp_path / "lab.ini").write_text(INI)
    (tmp_path / "c.toml").write_text('name = "x"\ntargets = ["c-socket"]\nmodes = ["twoway"]\npayload_bytes = [64]\ninventory = "lab.ini"\n'
                                     'host_pairs = [["servers", "clients"]]\n')
    # None in sys.modules makes `import ansible` raise ImportError, as when it is not installed
    code = ("import sys; sys.modules['ansible'] = None; sys.argv = ['orbench', 'run', sys.argv[1]]; "
            "from orbench.cli import main; sys.exit(main())")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "c.toml")], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2, out.stderr
    assert "lab.ini" in out.stderr and "ansible-core" in out.stderr and "harness[fleet]" in out.stderr
