"""JMH results into the results store and the report. The fixtures are parts of real `make jmh` result files, one
per Java ORB (JDK 17, -prof gc, the 2-core dev VM, under load from other work: their scores are noisy, their
allocations are not): every LoopbackCall row and the 1 KiB / 64 KiB CdrBench octets rows of each ORB, and the
JacORB run's JniBench.jniNoop."""

import json

import pytest
from orbench.errors import UserError
from orbench.hosts.environment import collect_environment
from orbench.summary.jmh import ingest, read_jmh, rows

from tests.conftest import FIXTURES, run_cli

JACORB = FIXTURES / "jmh-result-jacorb.json"
GLASSFISH = FIXTURES / "jmh-result-glassfish.json"


def by_key(path):
    return {(r["benchmark"], tuple(sorted(r["params"].items()))): r for r in rows(read_jmh(path))}


def test_rows_carry_orb_score_and_allocation_per_op():
    for path, orb in ((JACORB, "jacorb"), (GLASSFISH, "glassfish")):
        by = by_key(path)
        call = by[("LoopbackCall.twowaySend", (("bytes", "1"), ("orb", orb)))]
        assert call["orb"] == orb and call["unit"] == "us/op" and call["score"] > 0
        assert call["alloc_bytes_per_op"] > 100
        big = by[("CdrBench.unmarshalOctets", (("bytes", "65536"), ("orb", orb)))]["alloc_bytes_per_op"]
        assert big >= 65536  # the unmarshaled byte[] alone is 64 KiB
    jni = by_key(JACORB)[("JniBench.jniNoop", ())]
    assert jni["unit"] == "ns/op" and jni["orb"] is None


def test_ingest_both_orbs_as_one_run_and_show_them_side_by_side(tmp_path):
    from orbench_plots.section_jmh import section

    store = ingest([JACORB, GLASSFISH], collect_environment(), tmp_path / "results")
    merged = json.loads((store.path / "jmh.json").read_text())
    assert len(merged) == len(read_jmh(JACORB)) + len(read_jmh(GLASSFISH))
    assert (tmp_path / "results" / "jmh" / "latest").resolve() == store.path
    manifest = json.loads((store.path / "manifest.json").read_text())
    assert manifest["kind"] == "jmh" and manifest["environment"]["host"]["kernel"].startswith("Linux")
    assert [p.rsplit("/", 1)[-1] for p in manifest["source_files"]] == [JACORB.name, GLASSFISH.name]
    html = section(tmp_path / "results" / "jmh" / "latest")
    assert "Java ORBs side by side" in html and "allocated B/op" in html
    side = html.split("<h3>Java ORBs side by side</h3>")[1].split("<h3>Every benchmark</h3>")[0]
    assert side.index("JacORB") < side.index("GlassFish")
    # One side-by-side row per benchmark x size, holding both ORBs' bytes per call.
    row = next(line for line in side.split("\n") if "LoopbackCall.twowaySend" in line and "bytes=1024" in line)
    for orb in ("jacorb", "glassfish"):
        alloc = by_key(JACORB if orb == "jacorb" else GLASSFISH)[
            ("LoopbackCall.twowaySend", (("bytes", "1024"), ("orb", orb)))]["alloc_bytes_per_op"]
        assert f"{alloc:,.0f}" in row
    assert "not run" not in side and "JniBench" not in side


def test_the_same_result_twice_is_refused(tmp_path):
    with pytest.raises(UserError, match="is also in"):
        ingest([JACORB, JACORB], {}, tmp_path / "results")
    assert not (tmp_path / "results" / "jmh").exists()


def test_a_file_that_is_not_jmh_json_is_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "jmh"}')
    with pytest.raises(UserError, match="bad.json: not a JMH JSON result file"):
        read_jmh(bad)
    code, _out, err = run_cli("ingest-jmh", str(JACORB), str(bad), "--results", str(tmp_path / "r"))
    assert code == 2 and "not a JMH JSON result file" in err and not (tmp_path / "r").exists()
