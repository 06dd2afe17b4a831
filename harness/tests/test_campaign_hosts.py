"""The host keys of a campaign ([hosts.NAME], host_pairs, [ssh]): checked before anything runs, each mistake
naming the file, the key and the value; and what deployment copies for each target."""

import pytest
from orbench.campaign.spec import read_campaign
from orbench.hosts.deploy import target_files
from orbench.hosts.ssh import Host, HostSpec, SshSettings, check_url
from orbench.paths import campaigns_dir
from orbench.targets.descriptor import read_targets

from tests.conftest import campaign_error

BASE = """
name = "t"
targets = ["c-socket"]
modes = ["twoway"]
payload_bytes = [1]
"""


def test_default_is_one_local_pair(write_campaign):
    pairs = read_campaign(write_campaign(BASE)).host_pairs()
    assert len(pairs) == 1 and pairs[0].label == "local" and pairs[0].bind_address == "127.0.0.1"


def test_named_hosts_and_url_pairs(write_campaign, tmp_path):
    (tmp_path / "kh").write_text("")
    c = read_campaign(write_campaign(BASE + """
host_pairs = [["alpha", "beta"], ["beta", "alpha"], ["ssh://bench@gamma.example:2222", "local"]]
[ssh]
known_hosts = "kh"
[hosts.alpha]
url = "ssh://root@10.1.0.1:22"
address = "192.168.7.1"
[hosts.beta]
url = "ssh://root@10.1.0.2"
java = "/opt/jdk/bin/java"
"""))
    pairs = c.host_pairs()
    assert [p.label for p in pairs] == ["alpha--beta", "beta--alpha", "gamma.example--local"]
    assert pairs[0].bind_address == "192.168.7.1", "the address key wins over the URL's host"
    assert pairs[1].bind_address == "10.1.0.2" and pairs[1].server.java == "/opt/jdk/bin/java"
    assert pairs[2].server.port == 2222 and pairs[2].server.destination == "bench@gamma.example"
    ssh = c.ssh_settings()
    assert ssh.known_hosts == str(tmp_path / "kh"), "relative to the campaign file"
    host = Host(pairs[2].server, ssh)
    argv = host.wrap(["echo", "a b"])
    assert argv[0] == "ssh" and "BatchMode=yes" in argv and "StrictHostKeyChecking=yes" in argv
    assert f"UserKnownHostsFile={tmp_path / 'kh'}" in argv and argv[-3:] == ["bench@gamma.example", "--", "echo 'a b'"]
    assert "-p" in argv and argv[argv.index("-p") + 1] == "2222"


@pytest.mark.parametrize("url, why", [
    ("http://root@h:22", "unsupported scheme"),
    ("ssh://root:secret@h:22", "password"),
    ("ssh://root@h:99999", "out of range"),
    ("root@h", "not a host URL"),
    ("ssh://ro ot@h", "not of the form"),
])
def test_bad_host_url_names_file_key_value(write_campaign, url, why):
    msg = campaign_error(write_campaign, BASE + f'host_pairs = [["alpha", "local"]]\n[hosts.alpha]\nurl = "{url}"\n')
    assert "hosts.alpha.url" in msg and repr(url) in msg and why in msg
    assert check_url(url)


def test_bad_url_in_host_pairs(write_campaign):
    msg = campaign_error(write_campaign, BASE + 'host_pairs = [["local", "ssh://u:pw@h"]]\n')
    assert "host_pairs[0][1]" in msg and "'ssh://u:pw@h'" in msg and "password" in msg


def test_unknown_host_name_in_pairs(write_campaign):
    msg = campaign_error(write_campaign, BASE + 'host_pairs = [["alpha", "betta"]]\n[hosts.alpha]\nurl = "local"\n')
    assert "host_pairs[0][0]" not in msg and "host_pairs[0][1]" in msg and "'betta'" in msg and "alpha" in msg


def test_pair_must_have_two_hosts_and_ssh_keys_are_checked(write_campaign):
    msg = campaign_error(write_campaign, BASE + 'host_pairs = [["local"]]\n')
    assert "host_pairs[0]" in msg
    msg = campaign_error(write_campaign, BASE + '[ssh]\npassword = "x"\n')
    assert "password" in msg
    msg = campaign_error(write_campaign, BASE + 'host_pairs = [["ssh://h", "local"]]\n[ssh]\nknown_hosts = "nope"\n')
    assert "ssh.known_hosts" in msg and "no such file" in msg


def test_local_server_on_loopback_cannot_serve_a_remote_client(write_campaign):
    msg = campaign_error(write_campaign, BASE + 'host_pairs = [["local", "ssh://root@h"]]\n')
    assert "host_pairs[0]" in msg and "127.0.0.1" in msg and "cannot reach" in msg
    text = BASE + 'host_pairs = [["me", "ssh://root@h"]]\n[hosts.me]\nurl = "local"\naddress = "10.9.9.9"\n'
    assert read_campaign(write_campaign(text)).host_pairs()[0].bind_address == "10.9.9.9"


def test_what_each_target_deploys():
    targets = read_targets()
    assert target_files(targets["omniorb"]) == ["cpp/build/orbench-omniorb-server", "cpp/build/orbench-omniorb-client"]
    assert target_files(targets["jacorb"]) == ["java/target/orbench-workers.jar", "java/target/lib/common",
                                               "java/target/lib/jacorb"]
    assert target_files(targets["java-socket"]) == ["java/target/orbench-workers.jar", "java/target/lib/common"]


def test_the_example_campaign_is_valid(tmp_path, monkeypatch):
    # Its [ssh] files are the user's; only their existence is checked, so point HOME at a stand-in.
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "known_hosts").write_text("")
    (tmp_path / ".ssh" / "id_ed25519").write_text("")
    monkeypatch.setenv("HOME", str(tmp_path))
    c = read_campaign(campaigns_dir() / "two-hosts.example.toml")
    assert [p.label for p in c.host_pairs()] == ["server-box--client-box", "local"]


def test_local_host_runs_the_command_itself():
    host = Host(HostSpec("local", "local", "127.0.0.1"), SshSettings())
    assert host.wrap(["a", "b"]) == ["a", "b"]
    assert host.run_shell("echo hi").stdout == b"hi\n"
