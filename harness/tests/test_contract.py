"""Every target's real workers, over loopback, through the whole worker contract (orbench check-target)."""

import pytest
from orbench.targets.conformance import STEP_GROUPS, Conformance, format_checks
from orbench.targets.descriptor import read_targets

from tests.conftest import on_fitting_jdk, require_targets

# Known-answer targets run their baseline's workers (with --delay-ns): test_known_answer_servers.py checks them.
# The JVM targets' contract is in test_contract_java.py.
TARGETS = sorted(name for name, t in read_targets().items() if t.kind != "known-answer" and not t.is_jvm)
# `make test` checks one ORB and the baseline of each language; `make test-slow` every other target (10-30 s each).
FAST = {"c-socket", "omniorb", "java-socket", "jacorb", "python-socket", "omniorbpy"}
# The step groups that take most of a contract's time, each starting workers of its own or moving 256 MiB: for the
# FAST targets `make test-slow` runs them, `make test` the rest.
HEAVY = frozenset({"shapes", "long_haul", "options", "threading"})
CORE = frozenset(STEP_GROUPS) - HEAVY


def layered(names: list[str]) -> list:
    """The targets as parameters (name, step groups): a FAST target's core steps in `make test` and its heavy ones
    marked slow; every step of the others, marked slow."""
    out = []
    for n in names:
        if n in FAST:
            out += [pytest.param(n, CORE, id=f"{n}-core"),
                    pytest.param(n, HEAVY, id=f"{n}-heavy", marks=pytest.mark.slow)]
        else:
            out.append(pytest.param(n, None, id=n, marks=pytest.mark.slow))
    return out


def assert_passes_the_contract(name: str, log_dir, only: frozenset[str] | None = None) -> None:
    """The target's real workers pass every check of the step groups `only` (all when None)."""
    require_targets(name)
    target = on_fitting_jdk(read_targets()[name])
    checks = Conformance(target, log_dir=log_dir, only=only).run()
    report = format_checks(target, checks)
    assert all(c.passed for c in checks), report
    names = {c.name for c in checks}
    groups = set(STEP_GROUPS if only is None else only)
    assert ("a killed server gives the client an error answer, not a hang" in names) == ("lifecycle" in groups)
    assert any(n.startswith("run oneway") for n in names) == ("runs" in groups)
    assert any(n.startswith("long haul") for n in names) == ("long_haul" in groups)
    # What the descriptor claims of load at scale was tried, not taken on trust.
    if "threads" in groups:
        assert target.client_threads == any(n.startswith("threads: ") for n in names)
    if "objects" in groups:
        assert target.objects == any(n.startswith("objects: ") for n in names)


@pytest.mark.parametrize(("name", "only"), layered(TARGETS))
def test_target_passes_the_contract(name, only, tmp_path):
    assert_passes_the_contract(name, tmp_path, only)


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
