"""GC pauses from a real unified GC log (the first 200 lines of a JacORB server's log from the quick campaign,
JDK 17, G1, -Xlog:gc*:file=...:time,uptime,level,tags)."""

import re

import pytest
from orbench.results.point import Point
from orbench_plots.gclog import gc_logs, parse_gc_log, pause_summary

from tests.conftest import FIXTURES

LOG = FIXTURES / "gc" / "jacorb-server-gc.log"


def test_only_pause_end_lines_count():
    text = LOG.read_text()
    ends = re.findall(r"\[gc +\] GC\((\d+)\) (Pause[^\n]*?) ([\d.]+)ms$", text, re.MULTILINE)
    starts = re.findall(r"\[gc,start +\] GC\(\d+\) Pause", text)
    pauses = parse_gc_log(LOG)
    assert len(pauses) == len(ends) > 0 and len(starts) >= len(ends)
    assert [p.gc_id for p in pauses] == [int(e[0]) for e in ends]
    assert [p.duration_ms for p in pauses] == [float(e[2]) for e in ends]
    first = pauses[0]
    assert first.what.startswith("Pause Young") and first.start_unix < first.end_unix
    assert first.end_unix - first.start_unix == pytest.approx(first.duration_ms / 1e3, abs=1e-6)
    s = pause_summary(pauses)
    assert s["pauses"] == len(ends) and s["max_ms"] == max(float(e[2]) for e in ends)


def test_logs_are_found_by_workers_and_role(tmp_path):
    for name in ("same-core-jacorb-client-gc-1.log", "same-core-jacorb-client-gc-2.log",
                 "same-core-jacorb-server-gc-1.log", "same-core-java-socket-client-gc-1.log",
                 "same-core-tcp_nodelay=false-jacorb-client-gc-1.log"):
        (tmp_path / name).write_text("")
    point = Point(placement="same-core", mode="twoway", payload_type="octets", payload_bytes=1, target="jacorb")
    found = gc_logs(tmp_path, point.workers_slug)
    assert [p.name for p in found["client"]] == ["same-core-jacorb-client-gc-1.log", "same-core-jacorb-client-gc-2.log"]
    assert [p.name for p in found["server"]] == ["same-core-jacorb-server-gc-1.log"]
