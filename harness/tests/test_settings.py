"""A campaign's settings as one typed value: every schema key a field, the schema's defaults, a manifest's
campaign read back as the same value, and no string lookups of settings left where trials run."""

import re
from pathlib import Path

import orbench.running
import pytest
from orbench.campaign.settings import Settings, campaign_schema, setting_keys
from orbench.campaign.spec import campaign_from_manifest, read_campaign
from orbench.paths import campaigns_dir

from tests.conftest import campaign_error, run_cli

GOOD = """
name = "t"
targets = ["omniorb", "c-socket"]
modes = ["twoway"]
payload_bytes = [1]
"""


def test_every_schema_key_is_a_setting_and_nothing_else():
    assert setting_keys() == set(campaign_schema()["properties"])


def test_defaults_come_from_the_schema(write_campaign):
    s = read_campaign(write_campaign(GOOD)).settings
    assert isinstance(s, Settings)
    assert (s.trials, s.calls, s.launches, s.placements, s.anatomy) == (5, 5000, 1, ("same-core",), "counters")
    assert s.load.clients == (1,) and s.load.sweep is None and s.budget_s is None and not s.is_planned
    with pytest.raises(AttributeError):
        s.calls = 3  # frozen


@pytest.mark.parametrize("name", ["quick", "middleware", "load", "precise", "sync-scope", "payload-types"])
def test_a_manifest_reads_back_as_the_same_settings(name):
    path = campaigns_dir() / f"{name}.toml"
    if not path.exists():
        pytest.skip(f"no campaign {name}")
    campaign = read_campaign(path)
    again = campaign_from_manifest({"campaign": campaign.as_run()}, Path("/nonexistent"))
    assert again.settings == campaign.settings


def test_budget_is_a_duration_and_implies_planned(write_campaign):
    s = read_campaign(write_campaign(GOOD + 'budget = "1m30s"\n')).settings
    assert s.budget_s == 90 and s.is_planned and s.to_json()["budget"] == "1m30s"
    assert "key budget" in campaign_error(write_campaign, GOOD + 'budget = "ten minutes"\n')


def test_a_bad_budget_flag_is_a_clear_error(write_campaign):
    code, _, err = run_cli("run", str(write_campaign(GOOD)), "--budget", "soon")
    assert code == 2 and "--budget" in err and "soon" in err


def test_no_string_lookups_of_settings_where_trials_run():
    """The runner, the stopping rule, steady state and the skips read typed fields, never keys by string."""
    root = Path(orbench.running.__file__).parent
    lookups = re.compile(r"settings\s*(\.get\(|\[)")
    found = [f"{p.relative_to(root)}:{n}: {line.strip()}" for p in sorted(root.rglob("*.py"))
             for n, line in enumerate(p.read_text().splitlines(), 1) if lookups.search(line)]
    assert not found, "\n".join(found)


def test_with_settings_changes_a_copy(write_campaign):
    campaign = read_campaign(write_campaign(GOOD))
    other = campaign.with_settings(anatomy="syscalls", order_seed=7)
    assert (other.settings.anatomy, other.settings.order_seed) == ("syscalls", 7)
    assert campaign.settings.anatomy == "counters" and campaign.settings.order_seed is None
    with pytest.raises(TypeError):
        campaign.with_settings(no_such_key=1)


def test_load_keys_go_through_the_load_plan(write_campaign):
    text = GOOD + 'clients = [4, 1]\nclients_as = ["threads"]\n[sweep]\nclients = 8\nslo_p99 = "2ms"\n'
    s = read_campaign(write_campaign(text)).settings
    assert s.load.clients == (1, 4) and s.load.sweep is not None and s.load.sweep.slo.p99_ns == 2e6
    out = s.to_json()
    assert out["clients"] == [1, 4] and out["sweep"]["slo_p99"] == "2ms" and "load" not in out
    assert "max_launches" in campaign_error(write_campaign, GOOD + "max_launches = 1\n")
