"""The manifest type: what every writer sets, its JSON both ways, the store as its one writer, and manifests of
every kind and older schema read back as the type."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from orbench.results.manifest import Manifest
from orbench.results.store import SCHEMA_VERSION, RunStore

FIXTURES = Path(__file__).parent / "fixtures"


def test_a_manifest_round_trips_through_the_store(tmp_path):
    store = RunStore.create("m", tmp_path)
    manifest = Manifest.start("campaign", store.run_id, ["orbench", "run", "quick"], {"host": {"kernel": "6.1"}},
                              campaign={"name": "quick"}, hosts={}, stopping=[])
    manifest.setdefault("stopping", []).append({"launch": 0})
    manifest["status"] = "complete"  # a field, not a section
    store.write_manifest(manifest)
    written = json.loads(store.manifest_path.read_text())
    assert written["schema_version"] == SCHEMA_VERSION and written["kind"] == "campaign"
    assert written["status"] == "complete" and written["stopping"] == [{"launch": 0}]
    back = store.manifest()
    assert back == manifest and back.sections["campaign"] == {"name": "quick"}
    manifest.finish("interrupted")
    assert manifest.finished_at and manifest.environment_at_end["load"]["loadavg"]


def test_the_store_writes_only_the_type(tmp_path):
    store = RunStore.create("m", tmp_path)
    with pytest.raises(TypeError, match="Manifest"):
        store.write_manifest({"status": "complete"})
    with pytest.raises(ValueError, match="kind"):
        Manifest.start("trace", "x", [], {})


@pytest.mark.parametrize("fixture, kind, version", [("run-small", "campaign", 1), ("soak-v9", "soak", 9)])
def test_older_manifests_read_as_the_type(tmp_path, fixture, kind, version):
    run_dir = tmp_path / "run"
    shutil.copytree(FIXTURES / fixture, run_dir)
    manifest = RunStore(run_dir).manifest()
    assert manifest.kind == kind and manifest.run_id and manifest.started_at
    assert RunStore(run_dir).read_manifest()["schema_version_read"] == version
    assert "schema_version" not in manifest.to_json()


def test_a_lazy_manifest_write_waits_for_the_interval_and_the_next_write_carries_it(tmp_path, monkeypatch):
    """A point group's stopping record is written lazily: not within MANIFEST_INTERVAL_S of the last write,
    and whatever it skipped is in the next write, lazy or not."""
    from orbench.results import store as store_module

    clock = [100.0]
    monkeypatch.setattr(store_module.time, "monotonic", lambda: clock[0])
    store = RunStore.create("m", tmp_path)
    manifest = Manifest.start("campaign", store.run_id, ["orbench"], {}, campaign={"name": "quick"}, stopping=[])
    store.write_manifest(manifest)
    manifest["stopping"].append({"launch": 0})
    store.write_manifest(manifest, lazily=True)
    assert json.loads(store.manifest_path.read_text())["stopping"] == []
    clock[0] += store_module.MANIFEST_INTERVAL_S
    store.write_manifest(manifest, lazily=True)
    assert json.loads(store.manifest_path.read_text())["stopping"] == [{"launch": 0}]
    manifest["stopping"].append({"launch": 1})
    store.write_manifest(manifest)
    assert len(json.loads(store.manifest_path.read_text())["stopping"]) == 2
