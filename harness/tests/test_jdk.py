"""The `jdk` campaign key and --jdk: resolved to a real installed JDK, refused with the key named, recorded."""

import os

import pytest
from orbench.campaign.spec import read_campaign
from orbench.errors import UserError
from orbench.hosts.jdk import installed_jdks, probe, resolve_jdk
from orbench.hosts.readiness import unavailable_reason
from orbench.targets.descriptor import read_targets

from tests.conftest import run_cli

CAMPAIGN = 'name = "j"\ntargets = ["java-socket", "c-socket"]\nmodes = ["twoway"]\npayload_bytes = [1]\n'


def _default_jdk():
    jdks = installed_jdks()
    if not jdks:
        pytest.skip("no JDK installed")
    return jdks[0]


def test_a_feature_version_resolves_to_an_installed_jdk():
    jdk = _default_jdk()
    again = resolve_jdk(str(jdk.feature))
    assert again.feature == jdk.feature and os.access(again.java, os.X_OK)
    assert any("version" in line for line in again.version)


def test_a_jdk_home_or_its_java_resolves():
    jdk = _default_jdk()
    home = os.path.dirname(os.path.dirname(jdk.java))
    assert resolve_jdk(home).java == jdk.java
    assert resolve_jdk(jdk.java).feature == jdk.feature


def test_an_unknown_version_names_the_key_and_what_is_installed(write_campaign):
    path = write_campaign(CAMPAIGN + 'jdk = "3"\n')
    with pytest.raises(UserError, match=r'c.toml: key jdk: value "3": no JDK 3 installed \(found: \d+'):
        read_campaign(path)


def test_a_bad_path_is_refused(write_campaign, tmp_path):
    path = write_campaign(CAMPAIGN + f'jdk = "{tmp_path}/nojdk"\n')
    with pytest.raises(UserError, match=r"key jdk: .*no such JDK .*nojdk does not exist"):
        read_campaign(path)
    not_a_jvm = tmp_path / "fake-java"
    not_a_jvm.write_text("#!/bin/sh\nexit 1\n")
    not_a_jvm.chmod(0o755)
    with pytest.raises(UserError, match="does not run as a JVM"):
        resolve_jdk(str(not_a_jvm), "--jdk")


def test_a_number_instead_of_a_string_is_a_schema_error(write_campaign):
    path = write_campaign(CAMPAIGN + "jdk = 17\n")
    with pytest.raises(UserError, match=r"key jdk: value 17: 17 is not of type 'string'"):
        read_campaign(path)


def test_the_jdk_fills_java_targets_only_and_is_recorded(write_campaign):
    jdk = _default_jdk()
    campaign = read_campaign(write_campaign(CAMPAIGN + f'jdk = "{jdk.feature}"\n'))
    by_name = {t.name: t for t in campaign.targets}
    assert by_name["java-socket"].client_command()[0] == jdk.java
    assert by_name["c-socket"].client_command() == read_targets()["c-socket"].client_command()
    assert campaign.as_run()["jdk_resolved"]["feature"] == jdk.feature


def test_run_jdk_flag_overrides_the_file_and_bad_values_exit_2(write_campaign):
    path = write_campaign(CAMPAIGN + 'jdk = "3"\n')
    code, _, err = run_cli("run", str(path), "--jdk", "4")
    assert code == 2 and '--jdk: value "4": no JDK 4 installed' in err


def test_java_ffm_is_missing_on_an_old_jdk_with_the_reason():
    ffm = read_targets()["java-ffm"]
    assert ffm.required_java == 22
    old = [j for j in installed_jdks() if j.feature < 22]
    if not old:
        pytest.skip("no JDK older than 22 installed")
    why = unavailable_reason(ffm.with_java(old[0].java))
    assert why and f"needs JDK 22+, {old[0].java} is JDK {old[0].feature}" in why


def test_probe_refuses_what_is_not_a_jvm():
    assert probe("/bin/false") is None


def test_a_local_run_starts_java_workers_on_the_campaigns_jdk(write_campaign):
    """The runner builds worker commands through the host pair (remote.py), not Target alone: check it there."""
    from orbench.hosts.placement import Placement
    from orbench.hosts.remote import HostSet, PairRuntime

    jdk = _default_jdk()
    campaign = read_campaign(write_campaign(CAMPAIGN + f'jdk = "{jdk.java}"\n'))
    pair = campaign.host_pairs()[0]
    hosts = HostSet([pair], campaign.ssh_settings(), campaign.name, "test")
    runtime = PairRuntime(pair, hosts, Placement("unpinned", None, None))
    by_name = {t.name: t for t in campaign.targets}
    assert runtime.client_command(by_name["java-socket"])[0] == jdk.java
    assert runtime.server_command(by_name["java-socket"])[0] == jdk.java
