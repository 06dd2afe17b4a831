"""The order of targets within a round (schedule.round_order): random per round, repeatable from the seed."""

from collections import Counter

from orbench.results.point import PointGroup
from orbench.running.schedule import round_order

GROUP = PointGroup(placement="same-core", mode="twoway", payload_type="octets", payload_bytes=1)


def test_the_order_is_a_permutation_repeatable_from_seed_group_and_round():
    targets = ["omniorb", "jacorb", "c-socket", "java-socket"]
    order = round_order(targets, GROUP, 3, 42)
    assert sorted(order) == sorted(targets)
    assert order == round_order(targets, GROUP, 3, 42)
    assert any(round_order(targets, GROUP, 3, seed) != order for seed in range(10))


def test_every_target_comes_first_about_equally_often():
    targets = ["a", "b", "c", "d"]
    first = Counter(round_order(targets, GROUP, r, 7)[0] for r in range(4000))
    assert set(first) == set(targets) and all(800 < n < 1200 for n in first.values())
    # ... and neighbours vary: each target follows each other one in some round.
    follows = {(o[i], o[i + 1]) for r in range(200) for o in [round_order(targets, GROUP, r, 7)] for i in range(3)}
    assert len(follows) == 12
