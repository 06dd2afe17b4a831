"""Every JVM target's real workers, over loopback, through the whole worker contract (orbench check-target);
the other targets' are in test_contract.py."""

import pytest
from orbench.targets.descriptor import read_targets

from tests.test_contract import assert_passes_the_contract, layered

TARGETS = sorted(name for name, t in read_targets().items() if t.kind != "known-answer" and t.is_jvm)


@pytest.mark.parametrize(("name", "only"), layered(TARGETS))
def test_jvm_target_passes_the_contract(name, only, tmp_path):
    assert_passes_the_contract(name, tmp_path, only)
