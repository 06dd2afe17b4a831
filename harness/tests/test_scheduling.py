"""How the tests are shared among xdist's processes (tests/scheduling.py), on a suite of its own run by a real
`pytest -n 2`: a module's tests that share a fixture run on one process and make it once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SUITE = '''
import os, pathlib, pytest

LOG = pathlib.Path(os.environ["SUITE_LOG"])

def note(what):
    with LOG.open("a") as f:
        f.write(f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')} {what}\\n")

@pytest.fixture(scope="module")
def shared():
    note("made")
    return 1

def test_a(shared): note("a")
def test_b(shared): note("b")
def test_c(shared): note("c")
@pytest.mark.parametrize("k", range(6))
def test_alone(k): note(f"alone{k}")
'''


def test_a_shared_fixture_is_made_once_and_its_tests_run_together(tmp_path):
    (tmp_path / "test_suite.py").write_text(SUITE)
    log = tmp_path / "log.txt"
    harness = Path(__file__).resolve().parents[1]
    env = {**os.environ, "SUITE_LOG": str(log), "PYTHONPATH": str(harness)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "tests.scheduling",
                           "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = [line.split() for line in log.read_text().splitlines()]
    made = [w for w, what in lines if what == "made"]
    assert len(made) == 1, lines
    assert {w for w, what in lines if what in ("a", "b", "c")} == set(made), lines
    assert sum(what.startswith("alone") for _w, what in lines) == 6


def test_durations_name_tests_that_exist():
    """A test renamed or removed leaves its line behind in durations.json: harmless, but kept out."""
    from tests.scheduling import DURATIONS

    harness = DURATIONS.parents[1]
    for nodeid in json.loads(DURATIONS.read_text()):
        path, _, name = nodeid.partition("::")
        assert (harness / path).is_file(), nodeid
        assert f"def {name.split('[')[0]}(" in (harness / path).read_text(), nodeid
