"""The progress watchdog and the skip rule with known answers: real socket workers over loopback. A C socket
server told to stop reading after K messages (`--stall-after K`, PROTOCOL.md) must be caught within the
watchdog's bound, its point given up after two such trials, and the other points still run; the delay server at
1 ms per call, healthy but slow, must never be caught."""

from __future__ import annotations

from orbench.campaign.spec import read_campaign
from orbench.results.store import RunStore
from orbench.running.runner import Runner
from orbench.summary.summary import write_summary
from orbench.summary.table import format_table
from orbench.targets.descriptor import read_targets

from tests.conftest import require_targets

BOUND_S = 1.0  # tighter than the default, to keep the test short
# A failed trial's time beyond the bound: the last poll's lateness (0.5 s), the stop and restart of C workers.
RESTART_MARGIN_S = 3.0

STUCK = f"""
name = "stuck"
targets = ["c-socket"]
modes = ["twoway"]
payload_bytes = [1, 1000]
trials = 3
calls = 2000
warmup = 100
stall_timeout_s = {BOUND_S}
anatomy = "off"
"""


def stuck_campaign(write_campaign):
    """c-socket whose server stops reading after 500 payload messages: every trial (2100 calls) hangs."""
    targets = read_targets()
    targets["c-socket"] = targets["c-socket"].with_server_args(("--stall-after", "500"))
    return read_campaign(write_campaign(STUCK), targets=targets)


def test_a_server_that_stops_reading_is_caught_and_its_point_given_up(write_campaign, results_root):
    require_targets("c-socket")
    campaign = stuck_campaign(write_campaign)
    store = RunStore.create(campaign.name)
    failed = Runner(campaign, store).run()
    trials = store.read_trials()
    assert failed == 4 and len(trials) == 6
    for size in (1, 1000):  # the second point runs although the first was given up
        by_trial = {t.trial: t for t in trials if t.point.payload_bytes == size}
        for k in (0, 1):
            t = by_trial[k]
            assert t.status == "failed" and t.error.startswith("no progress for "), t.error
            # It read 500 payload messages: 100 of warm-up, then 400 timed ones counted since the reset after it.
            assert "after the server counted 400 messages (a trial of 100 warm-up and 2000 timed" in t.error, t.error
            assert t.duration_s is not None and t.duration_s < BOUND_S + RESTART_MARGIN_S, t.duration_s
        skipped = by_trial[2]
        assert skipped.status == "given_up"
        assert skipped.error.startswith("skipped after 2 failed or stalled trials in a row; the last: no progress")
    assert store.read_manifest()["targets"]["c-socket"]["workers"]["same-core"]["starts"] == 5  # 1 + 4 restarts

    summary = write_summary(store)
    points = [p for p in summary.points if p.point.target == "c-socket"]
    assert points and all(p.skipped.startswith("skipped after 2") for p in points)
    assert "skipped after 2 failed or stalled trials in a row" in format_table(summary)

    # --resume keeps a given-up point given up: nothing runs ...
    assert Runner(campaign, store, resume=True).run() == 0
    assert len(store.read_trials()) == 6
    # ... unless --retry-skipped: every trial of both points runs again, here with the server mended (it reads on),
    # as after a fix; the same stuck server would fail them as above, at 2 s a trial.
    mended = read_campaign(write_campaign(STUCK), targets=read_targets())
    assert Runner(mended, store, resume=True, retry_skipped=True).run() == 0
    trials = store.read_trials()
    assert len(trials) == 12 and sum(t.status == "ok" for t in trials) == 6


def test_a_healthy_slow_target_is_never_caught(write_campaign, results_root):
    """The delay server at 1 ms per call: a oneway flood of 1 B messages is read in one go and then served for
    seconds with no read at all, while the server counts one message a millisecond."""
    require_targets("c-socket", "c-socket-delay")
    path = write_campaign(f"""
name = "slow"
targets = ["c-socket-delay@1000000"]
modes = ["twoway", "oneway"]
payload_bytes = [1, 32168]
trials = 1
calls = 1500
warmup = 100
stall_timeout_s = {BOUND_S}
anatomy = "off"
""")
    campaign = read_campaign(path)
    store = RunStore.create(campaign.name)
    assert Runner(campaign, store).run() == 0
    slow = [t for t in store.read_trials() if t.point.target == "c-socket-delay@1000000"]
    assert len(slow) == 4 and all(t.status == "ok" for t in slow), [t.error for t in slow]
    assert all(t.duration_s >= 1.5 for t in slow)  # each trial really took longer than the bound


def test_stall_timeout_is_a_checked_campaign_key(write_campaign):
    from tests.conftest import campaign_error

    base = 'name = "x"\ntargets = ["c-socket"]\nmodes = ["twoway"]\npayload_bytes = [1]\n'
    assert "stall_timeout_s" in campaign_error(write_campaign, base + "stall_timeout_s = -1\n")
    assert read_campaign(write_campaign(base)).settings.stall_timeout_s == 5


def test_only_a_stall_as_long_as_the_bound_counts_towards_giving_a_point_up(tmp_path):
    """Two trials in a row whose few slow calls took 3 s in all give the point up at a 2 s bound; two whose
    slow calls took 0.1 s in all (a loaded machine's hiccups, still named by the stall warning) do not."""
    import numpy as np
    from orbench.results.point import Point
    from orbench.results.trial import Measurement, Trial
    from orbench.running.skips import PointSkips
    from orbench.stats.stalls import find_stall

    def trial(k: int, slow_ns: int, point: Point) -> Trial:
        samples = np.full(5000, 10_000, dtype="<i8")
        samples[:20] = slow_ns  # 20 calls of 5000 stall
        path = tmp_path / f"{point.payload_bytes}-{k}.i64"
        samples.tofile(path)
        assert find_stall(samples) is not None  # both kinds carry the stall warning
        return Trial.of(k, point, k, Measurement(status="ok", samples_file=path.name))

    long_stall, short_stall = (Point(placement="same-core", mode="oneway", payload_type="octets",
                                     payload_bytes=size, target="glassfish")
                               for size in (32168, 1))
    skips = PointSkips(tmp_path, long_stall_s=2.0)
    for k in (0, 1):
        skips.note(trial(k, 5_000_000, short_stall))  # 20 x 5 ms: 0.1 s
    assert skips.reason(short_stall) is None
    assert skips.note(trial(0, 150_000_000, long_stall)) is None  # 20 x 150 ms: 3 s
    why = skips.note(trial(1, 150_000_000, long_stall))
    assert why == skips.reason(long_stall)
    assert why.startswith("skipped after 2 failed or stalled trials in a row; the last: stalled: 20 of 5000 calls "
                          "(up to 150 ms, 3.0 s in all)"), why


def test_a_crawl_of_stalls_that_end_by_themselves_is_ended_but_one_stall_is_a_result(monkeypatch):
    """GlassFish's 32 KB oneway crawl, on a scripted clock: stalls of 3 s that each end by themselves, again and
    again. Each is below the 5 s bound; once they add up to twice it the trial ends ("crawling"). A trial with
    one such stall and steady progress otherwise runs to its end."""
    import orbench.running.watchdog as wd
    from orbench.errors import WorkerError

    def run(stalled, polls: int) -> tuple[str | None, float]:
        """stalled(k): whether the server counts nothing at poll k (polls are POLL_S apart)."""
        clock = {"t": 0.0}
        monkeypatch.setattr(wd.time, "monotonic", lambda: clock["t"])
        count = {"n": 0, "poll": 0}

        def server_count() -> int:
            count["poll"] += 1
            if not stalled(count["poll"]):
                count["n"] += 10
            return count["n"]

        dog = wd.Watchdog(server_count, [], 5.0, 5000, 1000)
        for _ in range(polls):
            clock["t"] += wd.POLL_S
            try:
                dog.check()
            except WorkerError as exc:
                return str(exc), clock["t"]
        return None, clock["t"]

    # Stalls of 3 s (6 polls) every 4 s: the fourth one brings them to 10 s.
    why, at = run(lambda k: k % 8 < 6, polls=400)
    assert why is not None and why.startswith("crawling:") and 12 <= at <= 20, (why, at)
    # One 3 s stall in 200 s of progress: a result, not a failure.
    why, _ = run(lambda k: 10 <= k < 16, polls=400)
    assert why is None
