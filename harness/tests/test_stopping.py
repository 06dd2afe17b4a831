"""The stopping rule's decisions on known per-trial p50s, and the machine-load bookkeeping it sits beside."""

from orbench.machine_load import parse_cpu_list, trial_load
from orbench.stopping import StoppingRule


def rounds(rule: StoppingRule, per_round: list[dict[str, float]]) -> tuple[str | None, int]:
    point = rule.start_point()
    for values in per_round:
        for target, p50 in values.items():
            point.add(target, {"status": "ok", "p50_ns": p50})
        point.add("skipped-target", {"status": "skipped"})
        point.rounds += 1
        reason = point.stop_reason()
        if reason:
            return reason, point.rounds
    return None, point.rounds


def test_fixed_trials_without_a_target():
    assert rounds(StoppingRule(trials=3), [{"a": 1.0}] * 10) == ("fixed", 3)


def test_stops_when_every_interval_is_narrow_enough():
    steady = [{"a": 100.0 + (i % 2), "b": 50.0} for i in range(10)]
    assert rounds(StoppingRule(trials=3, target_ci_pct=2.0, max_trials=10), steady) == ("ci", 3)


def test_a_noisy_target_runs_to_max_trials():
    noisy = [{"a": 100.0, "b": 50.0 if i % 2 else 80.0} for i in range(10)]
    assert rounds(StoppingRule(trials=3, target_ci_pct=2.0, max_trials=6), noisy) == ("max_trials", 6)


def test_time_cap_ends_a_point():
    assert rounds(StoppingRule(trials=5, target_ci_pct=2.0, max_trials=9, time_cap_s=1e-9), [{"a": 1.0}] * 9) \
        == ("time_cap", 1)


def test_cpu_lists_and_trial_load():
    assert parse_cpu_list("0-2,5") == {0, 1, 2, 5}
    before = {0: (100, 1000, 0), 1: (500, 1000, 0)}
    after = {0: (150, 1100, 0), 1: (600, 1100, 10)}
    load = trial_load(before, after, pinned={1})
    assert load["other_cpus_busy_pct"] == 50.0 and load["steal_pct"] == 5.0
