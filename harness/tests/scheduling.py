"""How the tests are shared among pytest-xdist's processes (`pytest -n N`, as the Makefile runs them).

A test that shares a module-scoped fixture (a network-namespace lab, a run made once and read by several tests)
runs on the same process as the rest of its module that share it, so the fixture is made once; every other test
goes wherever a process is free. The work is handed out longest first (durations.json, measured), so that a long
test never starts last and holds up the end of a layer while the other processes stand idle; tests not listed
there, the short ones, fill in at the end.

Which tests go together is known only where tests are collected, in xdist's worker processes: each writes it
to a file the controller named (GROUPS_ENV), which the controller's scheduler reads once every worker has
collected. (xdist's own `--dist loadgroup` cannot be used: with pytest 9 the group it appends to a test's id is
lost.)

`pytest --record-durations` writes the durations of the tests it ran into durations.json (CONTRIBUTING.md, Tests).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest

DURATIONS = Path(__file__).with_name("durations.json")
# A test shorter than this is left out of durations.json: its place in the order hardly matters.
RECORDED_FROM_S = 1.0
SHARED_SCOPES = ("module", "package")
GROUPS_ENV = "ORBENCH_TEST_GROUPS"


def group_of(item: pytest.Item) -> str | None:
    """The module's name when the test uses a fixture shared beyond one test (then it runs with its module)."""
    defs = item._fixtureinfo.name2fixturedefs  # pytest's own record of the fixtures a test uses
    if any(d.scope in SHARED_SCOPES for chain in defs.values() for d in chain):
        return item.module.__name__
    return None


def read_durations() -> dict[str, float]:
    try:
        return json.loads(DURATIONS.read_text())
    except FileNotFoundError:
        return {}


def longest_first(items: list[pytest.Item], durations: dict[str, float]) -> list[pytest.Item]:
    """Items in units (a module's shared-fixture tests, or one test), the units by their measured time, longest
    first; a unit keeps its tests in their order, units of equal time keep theirs."""
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        units.setdefault(group_of(item) or item.nodeid, []).append(item)
    ranked = sorted(units.values(), key=lambda unit: -sum(durations.get(i.nodeid, 0.0) for i in unit))
    return [item for unit in ranked for item in unit]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--record-durations", action="store_true",
                     help=f"write the time of each test run of {RECORDED_FROM_S:.0f} s or more into "
                          f"tests/{DURATIONS.name}, the order in which the work is handed to xdist's processes")


def _distributing(config: pytest.Config) -> bool:
    """The controller of `pytest -n N` (xdist's default distribution)."""
    return (not hasattr(config, "workerinput") and bool(config.getoption("numprocesses", None))
            and config.getoption("dist", "no") == "load")


def pytest_configure(config: pytest.Config) -> None:
    # Only where the reports come together: the one process, or xdist's controller, not each of its workers.
    if config.getoption("--record-durations") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(Recorder(), "orbench-record-durations")
    if _distributing(config):
        fd, path = tempfile.mkstemp(prefix="orbench-test-groups-", suffix=".json")
        os.close(fd)
        os.environ[GROUPS_ENV] = path  # the workers, started after this, inherit it


def pytest_unconfigure(config: pytest.Config) -> None:
    if _distributing(config) and GROUPS_ENV in os.environ:
        Path(os.environ.pop(GROUPS_ENV)).unlink(missing_ok=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items[:] = longest_first(items, read_durations())
    path = os.environ.get(GROUPS_ENV)
    if path and hasattr(config, "workerinput"):
        groups = {item.nodeid: group for item in items if (group := group_of(item)) is not None}
        tmp = Path(f"{path}.{config.workerinput['workerid']}")
        tmp.write_text(json.dumps(groups))
        os.replace(tmp, path)  # every worker writes the same: the last one whole


@pytest.hookimpl(optionalhook=True)  # xdist's hook: absent without pytest-xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    if not _distributing(config):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedFixtureScheduling(LoadScopeScheduling):
        """xdist's scope scheduling with a scope per test, or per module for the tests sharing its fixtures, in
        the order collected (longest first), not by the number of tests in a scope."""

        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:  # read once all workers have collected: schedule() runs only then
                self.groups = json.loads(Path(os.environ[GROUPS_ENV]).read_text() or "{}")
            return self.groups.get(nodeid, nodeid)

    config.option.loadscopereorder = False
    return SharedFixtureScheduling(config, log)


class Recorder:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self) -> None:
        durations = read_durations()
        durations.update({k: round(v, 1) for k, v in self.seconds.items()})
        kept = {k: v for k, v in durations.items() if v >= RECORDED_FROM_S}
        DURATIONS.write_text(json.dumps(dict(sorted(kept.items())), indent=0) + "\n")
