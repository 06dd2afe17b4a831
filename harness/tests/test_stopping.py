"""The stopping rule's decisions on known per-trial p50s, and the machine-load bookkeeping it sits beside."""

from orbench.hosts.placement import parse_cpu_list
from orbench.results.point import Point
from orbench.results.trial import Measurement, Trial
from orbench.running.cpu_usage import Snapshot, pair_usage, usage_between
from orbench.running.stopping import StoppingRule
from orbench.summary.run_checks import foreign_share

POINT = Point(placement="same-core", mode="twoway", payload_type="octets", payload_bytes=1, target="a")


def trial(status: str, p50: float | None = None, number: int = 0) -> Trial:
    return Trial.of(1, POINT, number, Measurement(status=status, p50_ns=p50))


def rounds(rule: StoppingRule, per_round: list[dict[str, float]],
           seconds: list[float] | None = None) -> tuple[str | None, int]:
    """Round after round of the given p50s; `seconds`: each round's own time, as the runner adds it before asking
    the rule."""
    point = rule.start_point()
    for i, values in enumerate(per_round):
        for target, p50 in values.items():
            point.add(target, trial("ok", p50, point.rounds))
        point.add("skipped-target", trial("skipped", number=point.rounds))
        point.rounds += 1
        point.add_time(seconds[i] if seconds else 0.0)
        reason = point.stop_reason()
        if reason:
            return reason, point.rounds
    return None, point.rounds


def test_fixed_trials_without_a_target():
    assert rounds(StoppingRule(trials=3), [{"a": 1.0}] * 10) == ("fixed", 3)


def test_stops_when_every_interval_is_narrow_enough():
    # a: 100, 101, 100, 101 ... us. Student t: at 3 trials 2.9% wide (4.303 x 0.577 / sqrt 3, twice), at 4 1.8%.
    steady = [{"a": 100_000.0 + 1000 * (i % 2), "b": 50_000.0} for i in range(10)]
    assert rounds(StoppingRule(trials=3, target_ci_pct=2.0, max_trials=10), steady) == ("ci", 4)


def test_a_noisy_target_runs_to_max_trials():
    noisy = [{"a": 100.0, "b": 50.0 if i % 2 else 80.0} for i in range(10)]
    assert rounds(StoppingRule(trials=3, target_ci_pct=2.0, max_trials=6), noisy) == ("max_trials", 6)


def test_stops_on_the_orb_added_interval_in_ns_or_percent():
    # ORB-added: 1500 + (0, 100, 0, 100, ...) ns; the baseline itself is noisy (drift), which pairing cancels.
    per_round = [{"orb": 20_000.0 + 3000 * (i % 3) + 1500 + 100 * (i % 2), "base": 20_000.0 + 3000 * (i % 3)}
                 for i in range(40)]
    baselines = {"orb": "base"}
    # Half-width at 3 rounds: 4.303 x 57.7 / sqrt 3 = 143 ns; at 4: 3.182 x 57.7 / 2 = 92 ns.
    assert rounds(StoppingRule(trials=3, target_added_ci_ns=100, max_trials=40, baselines=baselines),
                  per_round) == ("ci", 4)
    assert rounds(StoppingRule(trials=3, target_added_ci_pct=10, max_trials=40, baselines=baselines),
                  per_round) == ("ci", 3)  # 143 ns is under 10% of 1533 ns
    # Too tight for either: max_trials.
    assert rounds(StoppingRule(trials=3, target_added_ci_ns=1, target_added_ci_pct=0.1, max_trials=8,
                               baselines=baselines), per_round) == ("max_trials", 8)
    # The p50 of the baseline alone would not stop at 1%: the drift makes it wide.
    assert rounds(StoppingRule(trials=3, target_ci_pct=1, max_trials=8, baselines=baselines),
                  per_round) == ("max_trials", 8)


def test_tied_trials_do_not_meet_a_target_finer_than_a_nanosecond():
    """Two trials whose paired differences tie (p50s read in whole nanoseconds) have an interval of width 0: that
    is a tie, not precision, and a target under a nanosecond stays out of reach (max_trials), as does a p50's."""
    tied = [{"orb": 21_000.0, "base": 19_000.0}] * 6
    baselines = {"orb": "base"}
    assert rounds(StoppingRule(trials=2, target_added_ci_ns=0.001, max_trials=6, baselines=baselines),
                  tied) == ("max_trials", 6)
    assert rounds(StoppingRule(trials=2, target_ci_pct=0.001, max_trials=6), tied) == ("max_trials", 6)
    # A target of a nanosecond or more is met by the tie.
    assert rounds(StoppingRule(trials=2, target_added_ci_ns=1, max_trials=6, baselines=baselines),
                  tied) == ("ci", 2)


def test_time_cap_ends_a_point_but_counts_from_its_first_round():
    # The first round (its full warm-ups) takes 100 s and is not counted; every later round takes 10 s, so a 25 s
    # cap ends the point after round 4 (noisy p50s: the interval target is never met).
    rule = StoppingRule(trials=2, target_ci_pct=2.0, max_trials=9, time_cap_s=25)
    assert rounds(rule, [{"a": 1.0}, {"a": 2.0}] * 5, [100.0] + [10.0] * 9) == ("time_cap", 4)


def test_the_time_cap_counts_the_groups_own_rounds_only():
    # Interleaved groups: a round's own seconds are what counts, not the time other groups' rounds took between
    # them (the runner adds each round's own seconds): 0.1 s rounds reach a 0.25 s cap after the fourth.
    rule = StoppingRule(trials=2, target_ci_pct=2.0, max_trials=9, time_cap_s=0.25)
    assert rounds(rule, [{"a": 1.0}, {"a": 2.0}] * 5, [5.0] + [0.1] * 9) == ("time_cap", 4)


def test_time_cap_never_ends_a_point_before_its_minimum_trials():
    # The rounds take far past the cap from the first on; the minimum of 5 still runs (the intervals need it),
    # and the cap ends the point right after.
    rule = StoppingRule(trials=5, target_ci_pct=2.0, max_trials=9, time_cap_s=25)
    assert rounds(rule, [{"a": 1.0}, {"a": 2.0}] * 5, [100.0] * 10) == ("time_cap", 5)


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
    assert load.foreign_cpu_pct is None  # remote hosts: orbench's own processes there are not told apart


def test_orbench_s_own_cpu_time_is_not_counted_as_other_work():
    # 200 jiffies over 2 CPUs; 100 busy, 90 of them orbench's own processes (its pid 7 used 90): 10 of 200 = 5%.
    before = Snapshot({0: (0, 0, 0), 1: (0, 0, 0)}, 1.0, {7: 10})
    after = Snapshot({0: (10, 100, 0), 1: (90, 100, 0)}, 1.0, {7: 100})
    load = pair_usage({"local": before}, {"local": after}, {"local": {1}})
    assert load.foreign_cpu_pct == 5.0
    # ... a worker that started during the trial counts whole (it was not in the first reading).
    assert pair_usage({"local": before}, {"local": Snapshot(after.cpus, 1.0, {7: 10, 8: 90})},
                     {"local": {1}}).foreign_cpu_pct == 5.0


def test_other_work_is_measured_against_wall_clock_time_and_averaged_signed():
    # A 10 ms trial on 2 CPUs is 2 jiffies of CPU time: one busy jiffy that orbench's worker used is no other work,
    # a second busy jiffy charged to no orbench process is half the CPUs' time, an interrupt jiffy is the network
    # stack's (nobody's).
    start = Snapshot({0: (0, 0, 0), 1: (0, 0, 0)}, 1.0, {7: 0}, irq=0, at=100.0)
    quiet = Snapshot({0: (1, 1, 0), 1: (0, 1, 0)}, 1.0, {7: 1}, irq=0, at=100.01)
    other = Snapshot({0: (1, 1, 0), 1: (1, 1, 0)}, 1.0, {7: 1}, irq=0, at=100.01)
    softirq = Snapshot({0: (1, 1, 0), 1: (1, 1, 0)}, 1.0, {7: 1}, irq=1, at=100.01)
    # Jiffies are counted at ticks: the worker's jiffy may fall outside the window while its process was charged.
    early = Snapshot({0: (0, 1, 0), 1: (0, 1, 0)}, 1.0, {7: 1}, irq=0, at=100.01)
    usage = {name: pair_usage({"local": start}, {"local": end}, {"local": {1}}).foreign_cpu_pct
             for name, end in [("quiet", quiet), ("other", other), ("softirq", softirq), ("early", early)]}
    assert usage == {"quiet": 0.0, "other": 50.0, "softirq": 0.0, "early": -50.0}


def test_a_run_s_other_work_is_the_duration_weighted_mean_of_signed_trial_figures():
    # Trials' figures scatter around the truth by a jiffy either way; clipping each at zero, or taking the median
    # of a few discrete values, would read a quiet machine as busy.
    point = Point(placement="same-core", mode="twoway", payload_type="octets", payload_bytes=1, target="c-socket")

    def trial(k: int, foreign: float | None, duration: float) -> Trial:
        return Trial(seq=k, point=point, trial=k, status="ok", foreign_cpu_pct=foreign, duration_s=duration)
    assert foreign_share([trial(0, -50.0, 0.01), trial(1, 50.0, 0.01), trial(2, 0.0, 0.02)]) == 0.0
    assert foreign_share([trial(0, 30.0, 0.03), trial(1, -10.0, 0.01), trial(2, None, 0.5)]) == 20.0
    assert foreign_share([trial(0, -40.0, 0.01)]) == 0.0
    assert foreign_share([trial(0, None, 0.01)]) is None


def test_a_round_trips_slices_are_read_at_the_usual_speed_as_the_summary_reads_them(tmp_path):
    """On a host slow in bursts inside every slice (tests/test_slices.py's made slices: the middleware adds 1 us),
    the rule reads each slice block by block, as the summary pairs it: the interval it stops on is the summary's,
    not the slice p50s' that the bursts spread."""
    import numpy as np

    from tests.test_slices import _bursty_slices

    rng = np.random.default_rng(5)
    made = {"orb": _bursty_slices(rng, 1_000, launches=1, trials=10), "base": _bursty_slices(rng, 0, launches=1, trials=10)}
    widths = {}
    for samples_dir in (None, tmp_path):
        point = StoppingRule(trials=2, target_added_ci_ns=300, baselines={"orb": "base"},
                             samples_dir=samples_dir).start_point()
        for number in range(10):
            for name, slices in made.items():
                pieces = [slices[(0, number, k)].astype("<i8") for k in (0, 1)]
                calls = np.concatenate(pieces)
                calls.tofile(tmp_path / f"{name}-{number}.i64")
                point.add(name, Trial.of(1, POINT.replace(target=name), number, Measurement(
                    status="ok", p50_ns=float(np.median(calls)), calls=calls.size, samples_file=f"{name}-{number}.i64",
                    slice_p50s_ns=tuple(float(np.median(p)) for p in pieces),
                    slice_sizes=tuple(p.size for p in pieces))))
        estimate, widths[samples_dir is not None] = point.added_half_widths()["orb"]
    assert abs(estimate - 1_000) < 60 and widths[True] < 0.25 * widths[False]
