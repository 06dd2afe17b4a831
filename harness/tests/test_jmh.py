"""JMH results into the results store and the report. The fixture is a real `make jmh` result file (JDK 17,
-prof gc, the 2-core dev VM, under load from other work: its scores are noisy, its allocations are not)."""

import json

import pytest
from orbench.errors import UserError
from orbench.jmh import ingest, load_jmh, rows

from tests.conftest import FIXTURES, run_cli

RESULT = FIXTURES / "jmh-result.json"


def test_rows_carry_score_and_allocation_per_op():
    by = {(r["benchmark"], tuple(r["params"].items())): r for r in rows(load_jmh(RESULT))}
    call = by[("LoopbackCall.twowaySend", (("bytes", "1"),))]
    assert call["unit"] == "us/op" and call["score"] > 0 and call["alloc_bytes_per_op"] > 100
    assert by[("JniBench.jniNoop", ())]["unit"] == "ns/op"
    big = by[("CdrBench.unmarshalOctets", (("bytes", "65536"),))]["alloc_bytes_per_op"]
    assert big >= 65536  # the unmarshaled byte[] alone is 64 KiB


def test_ingest_into_the_store_and_show_in_a_report(tmp_path):
    from orbench_plots.section_jmh import section

    store = ingest(RESULT, tmp_path / "results")
    assert (store.path / "jmh.json").read_bytes() == RESULT.read_bytes()
    assert (tmp_path / "results" / "jmh" / "latest").resolve() == store.path
    manifest = json.loads((store.path / "manifest.json").read_text())
    assert manifest["kind"] == "jmh" and manifest["environment"]["kernel"]["release"]
    html = section(tmp_path / "results" / "jmh" / "latest")
    assert "LoopbackCall.twowaySend" in html and "allocated B/op" in html


def test_a_file_that_is_not_jmh_json_is_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "jmh"}')
    with pytest.raises(UserError, match="bad.json: not a JMH JSON result file"):
        load_jmh(bad)
    code, _out, err = run_cli("ingest-jmh", str(bad), "--results", str(tmp_path / "r"))
    assert code == 2 and "not a JMH JSON result file" in err and not (tmp_path / "r").exists()
