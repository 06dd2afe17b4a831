"""The stopping rule's decisions on known per-trial p50s, and the machine-load bookkeeping it sits beside."""

from orbench.hosts.placement import parse_cpu_list
from orbench.results.point import Point
from orbench.results.trial import Measurement, Trial
from orbench.running.cpu_usage import Snapshot, pair_usage, usage_between
from orbench.running.stopping import StoppingRule

POINT = Point(placement="same-core", mode="twoway", payload_type="octets", payload_bytes=1, target="a")


def trial(status: str, p50: float | None = None) -> Trial:
    return Trial.of(1, POINT, 0, Measurement(status=status, p50_ns=p50))


def rounds(rule: StoppingRule, per_round: list[dict[str, float]]) -> tuple[str | None, int]:
    point = rule.start_point()
    for values in per_round:
        for target, p50 in values.items():
            point.add(target, trial("ok", p50))
        point.add("skipped-target", trial("skipped"))
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
    assert usage_between(before, after, pinned={1}) == (50.0, 5.0)


def test_a_pair_of_hosts_records_the_busier_one():
    quiet = (Snapshot({0: (0, 0, 0), 1: (0, 0, 0)}, 0.5), Snapshot({0: (10, 100, 0), 1: (90, 100, 0)}, 0.7))
    busy = (Snapshot({0: (0, 0, 0), 1: (0, 0, 0)}, 2.0), Snapshot({0: (80, 100, 4), 1: (90, 100, 0)}, 2.5))
    load = pair_usage({"alpha": quiet[0], "beta": busy[0]}, {"alpha": quiet[1], "beta": busy[1]},
                     {"alpha": {1}, "beta": {1}})
    assert (load.other_cpus_busy_pct, load.steal_pct, load.loadavg_1m, load.usage_hosts) == (80.0, 2.0, 2.5,
                                                                                            "alpha beta")
