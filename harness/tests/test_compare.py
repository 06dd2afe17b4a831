"""The stopping rule and `orbench compare` on two real small runs (omniORB and the C socket baseline)."""

import json

from orbench.results.compare import compare_summaries

from tests.conftest import require_targets, run_cli

TWO_RUNS = """
name = "{name}"
targets = ["omniorb", "c-socket"]
modes = ["twoway"]
payload_bytes = [1, 4096]
trials = 2
calls = 300
warmup = 50
target_ci_pct = {target}
max_trials = 3
"""


def test_stopping_rule_and_compare_on_two_real_runs(write_campaign, results_root, tmp_path):
    require_targets("omniorb", "c-socket")
    # An unreachable target ends every point at max_trials; a 100% target at the minimum, by "ci".
    errs = {}
    for name, target in (("cmp-a", 0.0001), ("cmp-b", 100)):
        code, _out, errs[name] = run_cli("run", str(write_campaign(TWO_RUNS.format(name=name, target=target),
                                                                   f"{name}.toml")), "--no-report")
        assert code == 0, errs[name]
    assert errs["cmp-a"].splitlines()[-1].startswith("warning:")  # warnings are the last thing a run prints
    a = json.loads((results_root / "cmp-a" / "latest" / "summary.json").read_text())
    b = json.loads((results_root / "cmp-b" / "latest" / "summary.json").read_text())
    assert {p["stopping"]["reason"] for p in a["points"]} == {"max_trials"}
    assert all(p["trials_ok"] == 3 and p["stopping"]["trials"] == 3 for p in a["points"])
    assert any("ended by max_trials" in w for w in a["warnings"])
    assert {p["stopping"]["reason"] for p in b["points"]} == {"ci"}
    assert all(p["trials_ok"] == 2 for p in b["points"])
    for p in a["points"]:
        ci = p["p50_ci95_ns"]
        assert ci["low"] <= ci["estimate"] <= ci["high"] and ci["trials"] == 3

    out_json = tmp_path / "cmp.json"
    code, out, err = run_cli("compare", str(results_root / "cmp-a" / "latest"), str(results_root / "cmp-b"),
                             "--json", str(out_json))
    assert code == 0, err
    result = json.loads(out_json.read_text())
    assert len(result["points"]) == 4 and "4 common point(s)" in out
    assert {(r["target"], r["payload_bytes"]) for r in result["points"]} == \
        {("omniorb", 1), ("omniorb", 4096), ("c-socket", 1), ("c-socket", 4096)}
    assert all("orb_added" in r for r in result["points"] if r["target"] == "omniorb")
    # A run compared with itself has no change to flag.
    code, out, _ = run_cli("compare", str(results_root / "cmp-a"), str(results_root / "cmp-a"))
    assert code == 0 and "0 change(s) flagged" in out


def point(target, est, low, high):
    return {"placement": "same-core", "mode": "twoway", "payload_type": "octets", "payload_bytes": 1,
            "target": target, "latency_ns": {"p50": est},
            "p50_ci95_ns": {"estimate": est, "low": low, "high": high}}


def test_only_disjoint_intervals_are_flagged():
    a = {"run_id": "a", "points": [point("x", 100, 95, 105), point("y", 100, 95, 105), point("z", 1, 1, 1)]}
    b = {"run_id": "b", "points": [point("x", 120, 110, 130), point("y", 104, 99, 109)]}
    result = compare_summaries(a, b)
    by = {r["target"]: r["p50"] for r in result["points"]}
    assert by["x"]["flag"] == "slower" and by["x"]["change_pct"] == 20.0
    assert by["y"]["flag"] is None
    assert result["only_in_a"] == ["same-core twoway 1 B z"] and result["flagged"] == 1


def test_points_of_other_loads_host_pairs_and_option_sets_are_never_compared_as_one():
    """Keyed by the whole point: the same target and payload at another load, host pair or option set is
    another row (keyed by placement, mode, payload and target only, these 4 points became 1 row)."""
    dims = [{}, {"clients": 2}, {"rate_hz": 1000.0}, {"host_pair": "alpha--beta"}, {"options": "tcp_nodelay=false"}]
    a = {"run_id": "a", "points": [{**point("x", 100, 95, 105), **d} for d in dims]}
    b = {"run_id": "b", "points": [{**point("x", 100 + 10 * i, 95, 200), **d} for i, d in enumerate(dims)]}
    result = compare_summaries(a, b)
    assert len(result["points"]) == len(dims) and not result["only_in_a"]
    for i, row in enumerate(result["points"]):
        assert row["p50"]["b"]["estimate"] == 100 + 10 * i and {k: row[k] for k in dims[i]} == dims[i]
