"""`orbench verify` passes an undamaged run of every shipped campaign: each campaign file of harness/campaigns/
cut small (one launch, or two where the stopping rule may add one; one trial of 100 calls; its first payload
size; every other key as shipped: its modes, shapes, load, option sets, anatomy and profile modes) and run for
real, the soak file as a soak of a few seconds, and an ingested JMH result. A target that is not built here is
skipped by the run, as it would be."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

import pytest
from orbench.campaign.spec import read_campaign
from orbench.cli import main
from orbench.paths import campaigns_dir

from tests.conftest import FIXTURES

pytestmark = pytest.mark.slow

# two-hosts.example needs two hosts (tests/test_fleet_netns.py runs campaigns on network-namespace hosts); tine
# is tine-short's long form.
NOT_HERE = ("two-hosts.example", "tine")
SMALL = {"launches": 1, "max_launches": 2, "trials": 1, "max_trials": 1, "calls": 100, "warmup": 50,
         "jvm_warmup": 500, "step_calls": 300, "step_min_s": 0.25, "duration": "4s", "interval": "2s"}
SHIPPED = sorted(p.stem for p in campaigns_dir().glob("*.toml") if p.stem not in NOT_HERE)


def cut_small(data: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in data.items() if k != "budget"}
    for key, value in SMALL.items():
        if key in out:
            out[key] = value
    if isinstance(out.get("payload_bytes"), list):
        out["payload_bytes"] = out["payload_bytes"][:1]
        for key in ("anatomy_payload_bytes", "profile_payload_bytes"):  # a subset of payload_bytes
            if key in out:
                out[key] = out["payload_bytes"]
    if isinstance(out.get("sweep"), dict):
        out["sweep"] = cut_small(out["sweep"])
    return out


def toml_text(data: dict[str, Any]) -> str:
    """The TOML of a campaign's data (scalars, arrays, inline tables, one level of tables)."""
    def key(k: str) -> str:  # "c++" is not a bare key
        return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)

    def value(v: Any) -> str:
        if isinstance(v, dict):
            return "{" + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + "}"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return json.dumps(v)

    lines = [f"{key(k)} = {value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for k, v in data.items():
        if isinstance(v, dict):
            lines += [f"[{key(k)}]", *(f"{key(kk)} = {value(vv)}" for kk, vv in v.items())]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", SHIPPED)
def test_a_small_run_of_each_shipped_campaign_verifies(name, tmp_path, results_root, capsys):
    data = cut_small(tomllib.loads((campaigns_dir() / f"{name}.toml").read_text()))
    path = tmp_path / f"{name}.toml"
    path.write_text(toml_text(data))
    results = results_root
    code = main(["soak", str(path)] if "duration" in data else ["run", str(path), "--no-report"])
    capsys.readouterr()
    assert code in (0, 1), f"{name}: the run did not finish (exit {code})"  # 1: some trials failed, kept
    runs = list(results.glob("*/*/manifest.json"))
    assert runs, f"{name}: no run was written"
    assert main(["verify", str(results)]) == 0, capsys.readouterr().out


def test_an_ingested_jmh_run_verifies(results_root, capsys):
    results = results_root
    assert main(["ingest-jmh", str(FIXTURES / "jmh-result-jacorb.json")]) == 0
    assert main(["verify", str(results)]) == 0, capsys.readouterr().out
    run = next(results.glob("jmh/*/jmh-rows.json")).parent
    (run / "jmh-rows.json").write_text("[{")
    assert main(["verify", str(run)]) == 1
    assert "jmh-rows.json: not JSON" in capsys.readouterr().out


def test_campaigns_cut_small_keep_their_keys_and_read(tmp_path):
    for name in SHIPPED:
        data = tomllib.loads((campaigns_dir() / f"{name}.toml").read_text())
        small = tomllib.loads(toml_text(cut_small(data)))
        assert set(small) == set(data) - {"budget"}, name
        assert small.get("calls", 100) <= 100 and small.get("trials", 1) == 1, name
        if "duration" not in data:  # a soak file is read by `orbench soak`
            (tmp_path / f"{name}.toml").write_text(toml_text(small))
            read_campaign(tmp_path / f"{name}.toml")
