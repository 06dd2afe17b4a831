"""A known answer through the whole pipeline: a real calibration point (the C socket server spinning 2 us per
call, against the plain C baseline) must recover 2 us: its interval covers N, or the estimate and one end of
the interval are within 10% of N.

A miss gets one more independent run (a 95% interval misses by chance now and then; a real bias misses every
time). On a machine that other processes
keep busy the known answer does not hold (the extra server work then also waits for the CPU), and the run's own
busy-machine measurement says so: the test is skipped with that reason rather than failed."""


import pytest
from orbench.results.store import RunStore
from orbench.summary.model import KnownAnswer
from orbench.summary.run_checks import foreign_share
from orbench.summary.summary import read_summary

from tests.conftest import require_targets, run_cli

N_NS = 2000
POINT = f"""
name = "calibration-point"
targets = ["c-socket-delay@{N_NS}"]
modes = ["twoway"]
payload_bytes = [1]
trials = 20
calls = 500
warmup = 500
rewarm = 50
"""
# Other processes' share of the CPUs (over the trials, summary.foreign_share) above which the known answer is not expected.
BUSY_FOREIGN_PCT = 20.0


def _run_point(write_campaign, results_root) -> tuple[KnownAnswer, float]:
    code, _out, err = run_cli("run", str(write_campaign(POINT, "calibration-point.toml")), "--no-report")
    assert code == 0, err
    run = results_root / "calibration-point" / "latest"
    summary = read_summary(RunStore(run.resolve()))
    assert summary is not None
    foreign = foreign_share([t for t in RunStore(run.resolve()).read_trials() if t.ok])
    (known,) = summary.known_answers
    return known.answer, foreign or 0.0


@pytest.mark.exclusive  # `make test` runs it alone, after its parallel part
def test_a_calibration_point_recovers_its_known_answer(write_campaign, results_root):
    require_targets("c-socket-delay", "c-socket")
    known, foreign = _run_point(write_campaign, results_root)
    if not _recovered(known) and foreign <= BUSY_FOREIGN_PCT:
        known, foreign = _run_point(write_campaign, results_root)
    if foreign > BUSY_FOREIGN_PCT:
        pytest.skip(f"machine shared: other processes used {foreign:.0f}% of the CPUs during the trials; "
                    f"known answers hold only on a machine orbench has to itself (recovered {known.text})")
    # 20 trials of 500 calls, each two slices of 250 but the first, which reads the anatomy whole: 38 slice pairs,
    # fewer where a slice had no block of calls at the host's usual speed (stats/phases.usual_blocks)
    assert known.known_ns == N_NS and 20 <= known.trials <= 38
    # 10%, not the campaign goal's 5% (the summary's within_tolerance): a server spinning N ns adds a little more
    # than N on a VM (about +4% and 20-60 ns on a 2-vCPU VM, C and Java alike; the user guide, "Known answers"), which a
    # tight interval shows; a property of the known-answer server, not of the pipeline. The errors this test is
    # for (pairing, units, signs, the wrong baseline) are far larger. With 20 short trials the estimate itself
    # scatters (1.9 to 2.4 us over 8 runs here), inside its interval.
    assert _recovered(known), known


def _recovered(known: KnownAnswer) -> bool:
    """The interval covers N, or the estimate and one end of the interval are within 10% of N."""
    low, high, x = known.ci95_low, known.ci95_high, known.recovered_ns
    near = (low is not None and high is not None and abs(x - N_NS) <= 0.10 * N_NS
            and min(abs(low - N_NS), abs(high - N_NS)) <= 0.10 * N_NS)
    return known.covered or near
