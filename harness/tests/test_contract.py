"""Every target's real workers, over loopback, through the whole worker contract (orbench check-target)."""

import pytest
from orbench.targets.conformance import Conformance, format_checks
from orbench.targets.descriptor import read_targets

from tests.conftest import on_fitting_jdk, require_targets

# Known-answer targets run their baseline's workers (with --delay-ns): test_known_answer_servers.py checks them.
# The JVM targets' contract is in test_contract_java.py.
TARGETS = sorted(name for name, t in read_targets().items() if t.kind != "known-answer" and not t.is_jvm)
# `make test` checks one ORB and the baseline of each language; `make test-slow` every other target (10-30 s each).
FAST = {"c-socket", "omniorb", "java-socket", "jacorb", "python-socket", "omniorbpy"}


def layered(names: list[str]) -> list:
    """The targets as parameters, those outside FAST marked slow."""
    return [n if n in FAST else pytest.param(n, marks=pytest.mark.slow) for n in names]


def assert_passes_the_contract(name: str, log_dir) -> None:
    require_targets(name)
    target = on_fitting_jdk(read_targets()[name])
    checks = Conformance(target, log_dir=log_dir).run()
    report = format_checks(target, checks)
    assert all(c.passed for c in checks), report
    names = {c.name for c in checks}
    assert "a killed server gives the client an error answer, not a hang" in names
    assert any(n.startswith("run oneway") for n in names)
    # What the descriptor claims of load at scale was tried, not taken on trust.
    assert target.client_threads == any(n.startswith("threads: ") for n in names)
    assert target.objects == any(n.startswith("objects: ") for n in names)


@pytest.mark.parametrize("name", layered(TARGETS))
def test_target_passes_the_contract(name, tmp_path):
    assert_passes_the_contract(name, tmp_path)


@pytest.mark.slow
def test_the_long_haul_catches_thrift_s_framed_transport_closing_at_100_mib(tmp_path):
    """Thrift 0.17's framed transport ends a connection after 100 MiB read: its descriptor says so, and the
    long haul finds it again (the buffered thrift-cpp passes it in test_target_passes_the_contract)."""
    require_targets("thrift-cpp-framed")
    target = read_targets()["thrift-cpp-framed"]
    conformance = Conformance(target, log_dir=tmp_path)
    conformance.check("long haul", conformance._long_haul, step="long_haul")
    check = conformance.checks[-1]
    assert check.known and "No more data to read" in check.detail, check
