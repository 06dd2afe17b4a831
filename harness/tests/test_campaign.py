"""A campaign file is validated before anything runs; each mistake names the file, the key and the value."""

import tomllib

import pytest
from orbench.campaign.settings import Settings
from orbench.campaign.spec import read_campaign
from orbench.errors import UserError
from orbench.paths import campaigns_dir

from tests.conftest import campaign_error, run_cli

GOOD = """
name = "t"
targets = ["omniorb", "c-socket"]
modes = ["twoway", "oneway"]
payload_bytes = [1, 1000, 65536]
trials = 3
"""


def test_good_campaign_expands_with_defaults(write_campaign):
    c = read_campaign(write_campaign(GOOD))
    assert c.settings.trials == 3 and c.settings.calls == 5000 and c.settings.placements == ("same-core",)
    assert c.settings.payload_types == ("octets",) and c.settings.options == {}
    assert len(c.point_groups()) == 2 * 3
    assert [t.name for t in c.targets] == ["omniorb", "c-socket"]


def test_orb_baseline_is_added(write_campaign):
    c = read_campaign(write_campaign(GOOD.replace('["omniorb", "c-socket"]', '["jacorb"]')))
    assert [t.name for t in c.targets] == ["jacorb", "java-socket"]
    assert c.added_baselines == ["java-socket"]


def test_unknown_target(write_campaign):
    msg = campaign_error(write_campaign, GOOD.replace('"omniorb"', '"omniorbb"'))
    assert "targets[0]" in msg and "'omniorbb'" in msg and "did you mean 'omniorb'" in msg


def test_payload_given_as_string(write_campaign):
    msg = campaign_error(write_campaign, GOOD.replace("[1, 1000, 65536]", '[1, "1KB", 65536]'))
    assert "payload_bytes[1]" in msg and "'1KB'" in msg and "integer" in msg


def test_negative_trial_count(write_campaign):
    msg = campaign_error(write_campaign, GOOD.replace("trials = 3", "trials = -2"))
    assert "key trials" in msg and "-2" in msg and "minimum" in msg


def test_misspelt_key_gets_a_suggestion(write_campaign):
    msg = campaign_error(write_campaign, GOOD.replace("trials = 3", "trails = 3"))
    assert "unknown key 'trails'" in msg and "did you mean 'trials'" in msg


def test_unknown_mode_and_placement(write_campaign):
    msg = campaign_error(write_campaign, GOOD.replace('"oneway"]', '"sideways"]') + 'placements = ["one-core"]\n')
    assert "modes[1]" in msg and "'sideways'" in msg
    assert "placements[0]" in msg and "'one-core'" in msg


def test_missing_required_key(write_campaign):
    msg = campaign_error(write_campaign, GOOD.replace("modes =", "#modes ="))
    assert "'modes' is a required property" in msg


def test_broken_toml(write_campaign):
    msg = campaign_error(write_campaign, GOOD + "trials = = 3\n")
    assert "not valid TOML" in msg


def test_missing_file(tmp_path):
    with pytest.raises(UserError, match="not found"):
        read_campaign(tmp_path / "nope.toml")


def test_cli_refuses_a_bad_campaign_with_status_2(write_campaign, results_root):
    path = write_campaign(GOOD.replace("trials = 3", "trials = -1"))
    code, out, err = run_cli("run", str(path))
    assert code == 2
    assert str(path) in err and "trials" in err and "-1" in err
    assert not results_root.exists() or not any(results_root.rglob("manifest.json")), "nothing may run"


def test_quick_campaign_is_valid():
    from orbench.paths import campaigns_dir

    c = read_campaign(campaigns_dir() / "quick.toml")
    sizes = c.settings.payload_bytes
    assert len(sizes) >= 8 and min(sizes) == 1 and max(sizes) == 65536
    assert any(s & (s - 1) for s in sizes), "at least one size that is not a power of two"
    assert {t.name for t in c.targets} == {"omniorb", "jacorb", "c-socket", "java-socket"}
    assert c.settings.modes == ("twoway", "oneway")


@pytest.mark.parametrize("entry, key", [
    ('host = "x; rm -rf /"', "key host"),
    ('host = ""', "key host"),
    ('[hosts.alpha]\nurl = "local"\naddress = "10.0.0.1 && reboot"', "key hosts.alpha.address"),
])
def test_an_address_that_is_not_one_is_refused_naming_the_key(write_campaign, entry, key):
    message = campaign_error(write_campaign, 'name = "c"\ntargets = ["c-socket"]\n' + entry + "\n")
    assert key in message and "not an IP address or a host name" in message, message


def test_a_campaign_file_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "latin.toml"
    path.write_bytes('name = "c"\ndescription = "Caf\xe9"\ntargets = ["c-socket"]\n'.encode("latin-1"))
    with pytest.raises(UserError, match=rf"{path}: not a UTF-8 text file \(byte 29 is 0xe9\)"):
        read_campaign(path)
    code, _out, err = run_cli("run", str(path))
    assert code == 2 and "not a UTF-8 text file" in err and "Traceback" not in err


def test_settings_by_target_must_name_a_target_descriptor_or_language(write_campaign):
    text = 'name = "x"\ntargets = ["c-socket"]\nmodes = ["twoway"]\npayload_bytes = [1]\nlaunches_for = {"java" = 5}\n'
    path = write_campaign(text)
    with pytest.raises(UserError, match=rf"{path}: key launches_for.java: names no target of the campaign"):
        read_campaign(path)
    # The counting mode's settings by target are looked up the same way and checked the same way.
    path = write_campaign(text.replace('launches_for = {"java" = 5}', 'count_rate_hz_for = {"omniorb" = 100}'))
    with pytest.raises(UserError, match=rf"{path}: key count_rate_hz_for.omniorb: names no target"):
        read_campaign(path)


# Shipped campaigns whose latency trials are not sliced, and why; the soak files (`orbench soak`) run at a rate.
UNSLICED = {
    "anatomy": "reads the anatomy counters around every trial (anatomy_trials = all), which are each target's alone",
}
SOAK_FILES = ("tine", "tine-short")


@pytest.mark.parametrize("path", [p for p in sorted(campaigns_dir().glob("*.toml")) if p.stem not in SOAK_FILES],
                         ids=lambda p: p.stem)
def test_every_shipped_campaign_measures_in_alternating_slices(path):
    """The sliced design is the default: a campaign that does not say otherwise slices its trials, and the anatomy
    readings (sequential trials) stay in its first launch's first round. A campaign that opts out is listed."""
    s = Settings.from_json(tomllib.loads(path.read_text()))
    # A later trial of a later launch: sliced unless the anatomy is read there at every size.
    sliced = s.slice_calls > 0 and not all(s.reads_anatomy(b, trial=1, launch=1) for b in s.payload_bytes)
    assert sliced != (path.stem in UNSLICED), (
        f"{path.name}: slice_calls {s.slice_calls}, anatomy {s.anatomy}, anatomy_trials {s.anatomy_trials}: "
        + (f"listed as unsliced ({UNSLICED[path.stem]}) but sliced" if path.stem in UNSLICED else
           "no trial beyond the anatomy's would be sliced"))
