"""What a oneway flood may hand a server (running/flood.py): the arithmetic, and the server it was for."""

import json

import pytest
from orbench.results.store import RunStore
from orbench.running.flood import PIECE_BYTES, TRIAL_BYTES, most_calls, pieces

from tests.conftest import require_targets, run_cli


def test_a_warm_up_goes_out_in_pieces_of_at_most_the_bound():
    per = PIECE_BYTES // 65536
    assert pieces(5000, 65536) == [per] * (5000 // per) + [5000 % per]
    assert sum(pieces(5000, 32168)) == 5000 and max(pieces(5000, 32168)) * 32168 <= PIECE_BYTES
    assert pieces(5000, 1) == [5000]          # small messages: one piece, as before
    assert pieces(0, 65536) == [0]
    assert pieces(3 * per, 65536) == [per] * 3
    assert pieces(7, 64 * PIECE_BYTES) == [1] * 7  # never fewer than one call a piece


def test_a_planned_oneway_trial_holds_at_most_the_trial_bound():
    assert most_calls(65536, 500) == 1024 and most_calls(32168, 500) == TRIAL_BYTES // 32168
    assert most_calls(1, 500) == TRIAL_BYTES and most_calls(2 * TRIAL_BYTES, 500) == 500


GLASSFISH_64K = """
name = "flood-warmup"
targets = ["glassfish"]
modes = ["oneway"]
payload_bytes = [65536]
placements = ["same-core"]
launches = 2
trials = 1
calls = 500
jvm_warmup = 5000
steady_cv_pct = 2
steady_chunk_calls = 500
steady_max_s = 0.5
anatomy = "off"
"""


@pytest.mark.slow
def test_glassfish_survives_a_large_oneway_warm_up(write_campaign, results_root):
    """GlassFish's server keeps the oneway requests it has read until it has served them: the middleware
    campaign's JVM warm-up of 5000 oneways of 64 KB in one go filled its 256 MB heap, it thrashed in full
    collections and stopped answering (at the first point of a launch, every time). In pieces it serves them."""
    require_targets("glassfish")
    code, out, err = run_cli("run", str(write_campaign(GLASSFISH_64K)), "--no-report")
    assert code == 0, err
    run_dir = (results_root / "flood-warmup" / "latest").resolve()
    trials = [t for t in RunStore(run_dir).read_trials() if t.point.target == "glassfish"]
    assert [t.status for t in trials] == ["ok", "ok"], [t.error for t in trials]
    assert all(t.lost_messages == 0 for t in trials)
    steady = [s for s in json.loads((run_dir / "manifest.json").read_text())["steady_state"]
              if s["target"] == "glassfish"]
    assert [s["warmup_calls"] for s in steady] == [5000, 5000] and all(s["stopped_by"] != "error" for s in steady)
    # One server start per launch, no restart; each launch's GC log its own (launch 1's wrote over launch 0's).
    logs = sorted(p.name for p in (run_dir / "logs").glob("*glassfish-server-gc-*.log"))
    assert logs == ["same-core-glassfish-server-gc-l0s1.log", "same-core-glassfish-server-gc-l1s1.log"]
    assert not any("Pause Full" in (run_dir / "logs" / name).read_text() for name in logs)
