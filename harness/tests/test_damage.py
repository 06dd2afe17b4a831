"""Results that defend themselves: copies of a real run (made once for this module: omniORB and the C socket
baseline, twoway 1 B, 3 trials of 200 calls, one launch), damaged on disk the way files get damaged (cut short,
edited by hand, lost in a copy), read by every reader of a run. For each kind of damage: no traceback, a message
naming the file and the row, the statistics of the undamaged trials exactly those of the run without the
damaged trial, the original run and the damaged copy's own files byte-identical, nothing written on failure."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from orbench.campaign.spec import read_campaign
from orbench.cli import main
from orbench.results.integrity import Damage
from orbench.results.store import SCHEMA_VERSION, RunStore
from orbench.running.runner import Runner

from tests.conftest import FIXTURES, require_targets

CAMPAIGN = """
name = "damage"
targets = ["omniorb", "c-socket"]
modes = ["twoway"]
payload_bytes = [1]
trials = 3
calls = 200
warmup = 50
anatomy = "off"
"""
OUTPUTS = ("summary.json", "report.html", "figures", "export")  # what the readers may write


@pytest.fixture(scope="module")
def original(tmp_path_factory) -> Path:
    require_targets("omniorb", "c-socket")
    root = tmp_path_factory.mktemp("damage")
    (root / "damage.toml").write_text(CAMPAIGN)
    store = RunStore.create("damage", root / "results")
    assert Runner(read_campaign(root / "damage.toml"), store, argv=["test"]).run() == 0
    assert main(["summarize", str(store.path)]) == 0
    return store.path


@pytest.fixture
def run(original, tmp_path) -> Path:
    """A copy of the module's run for one test; the original is checked byte for byte after the test."""
    before = digests(original)
    copy = tmp_path / "run"
    shutil.copytree(original, copy)
    yield copy
    assert digests(original) == before, "a reader changed the original run"


def digests(root: Path, leave_out: tuple[str, ...] = ()) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))
            if p.is_file() and p.relative_to(root).parts[0] not in leave_out}


def rows(run: Path) -> list[dict[str, str]]:
    with open(run / "trials.csv", newline="") as f:
        return list(csv.DictReader(f))


def lines(run: Path) -> list[bytes]:
    return (run / "trials.csv").read_bytes().splitlines(keepends=True)


def samples_of(run: Path, line: int) -> Path:
    """The samples file of the trial on trials.csv's line `line` (the header is line 1)."""
    return run / rows(run)[line - 2]["samples_file"]


def omniorb_line(run: Path, trial: int) -> int:
    return next(n for n, r in enumerate(rows(run), start=2) if r["target"] == "omniorb" and r["trial"] == str(trial))


def without_row(run: Path, line: int, where: Path) -> Path:
    """The same run with one trial's row taken out cleanly: what the damaged run must compute."""
    shutil.copytree(run, where)
    kept = [text for n, text in enumerate(lines(run), start=1) if n != line]
    (where / "trials.csv").write_bytes(b"".join(kept))
    (where / "summary.json").unlink()
    return where


def summary_of(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text())


def summarize(run: Path, capsys) -> tuple[int, str]:
    code = main(["summarize", str(run)])
    return code, capsys.readouterr().err


# --- damage that leaves a trial out --------------------------------------------------------------------------

def cut_last_row(run: Path) -> tuple[int, str]:
    data = (run / "trials.csv").read_bytes()
    (run / "trials.csv").write_bytes(data[:-150])
    return len(lines(run)), "trials.csv:{line}: cut short"


def non_number(run: Path) -> tuple[int, str]:
    line = omniorb_line(run, 1)
    text = lines(run)
    cells = next(csv.reader([text[line - 1].decode()]))
    cells[list(rows(run)[0]).index("calls")] = "2OO"
    text[line - 1] = (",".join(cells) + "\r\n").encode()
    (run / "trials.csv").write_bytes(b"".join(text))
    return line, "trials.csv:{line}: unreadable row: column calls: '2OO' is not an integer"


def extra_cells(run: Path) -> tuple[int, str]:
    line = omniorb_line(run, 0)
    text = lines(run)
    text[line - 1] = text[line - 1].rstrip(b"\r\n") + b",oops\r\n"
    (run / "trials.csv").write_bytes(b"".join(text))
    return line, "trials.csv:{line}: "


def unknown_status(run: Path) -> tuple[int, str]:
    line = omniorb_line(run, 2)
    text = lines(run)
    text[line - 1] = text[line - 1].replace(b",ok,", b",fine,", 1)
    (run / "trials.csv").write_bytes(b"".join(text))
    return line, "trials.csv:{line}: column status: 'fine'"


def lost_samples(run: Path) -> tuple[int, str]:
    line = omniorb_line(run, 1)
    path = samples_of(run, line)
    path.unlink()
    return line, f"{path.relative_to(run)}: missing (trials.csv:{{line}}"


def cut_samples(run: Path) -> tuple[int, str]:
    line = omniorb_line(run, 0)
    path = samples_of(run, line)
    path.write_bytes(path.read_bytes()[:-812])
    return line, f"{path.relative_to(run)}: cut short: 788 bytes, its row records 1600 (trials.csv:{{line}}"


def empty_samples(run: Path) -> tuple[int, str]:
    line = omniorb_line(run, 2)
    path = samples_of(run, line)
    path.write_bytes(b"")
    return line, f"{path.relative_to(run)}: cut short: 0 bytes"


def negative_samples(run: Path) -> tuple[int, str]:
    line = omniorb_line(run, 1)
    path = samples_of(run, line)
    x = np.fromfile(path, dtype="<i8")
    x[7] = -5
    x.tofile(path)
    return line, f"{path.relative_to(run)}: SHA-256 differs from the one its row records: the file changed after " \
                 "it was written; 1 of 200 samples <= 0 ns (the first: call 7, -5 ns)"


def huge_samples(run: Path) -> tuple[int, str]:
    """A samples file written big-endian (another machine's tool): every latency absurd."""
    line = omniorb_line(run, 0)
    path = samples_of(run, line)
    np.fromfile(path, dtype="<i8").astype(">i8").tofile(path)
    return line, "samples longer than an hour"


def edited_sample(run: Path) -> tuple[int, str]:
    """One latency edited by a nanosecond: same size, a plausible value; only the checksum sees it."""
    line = omniorb_line(run, 2)
    path = samples_of(run, line)
    x = np.fromfile(path, dtype="<i8")
    x[0] += 1
    x.tofile(path)
    return line, f"{path.relative_to(run)}: SHA-256 differs from the one its row records"


def samples_elsewhere(run: Path) -> tuple[int, str]:
    line = omniorb_line(run, 1)
    text = lines(run)
    name = rows(run)[line - 2]["samples_file"].encode()
    text[line - 1] = text[line - 1].replace(name, b"../../" + name)
    (run / "trials.csv").write_bytes(b"".join(text))
    return line, "not a file inside the run directory"


def zero_filled_tail(run: Path) -> tuple[int, str]:
    """What a crash of the machine can leave at the end of a file being appended to: a block of NUL bytes."""
    line = len(lines(run)) + 1
    with open(run / "trials.csv", "ab") as f:
        f.write(b"\0" * 4096)
    return line, "trials.csv:{line}: cut short: 1 of"


def zero_filled_samples(run: Path) -> tuple[int, str]:
    line = omniorb_line(run, 0)
    path = samples_of(run, line)
    path.write_bytes(b"\0" * path.stat().st_size)
    return line, "200 of 200 samples <= 0 ns (the first: call 0, 0 ns)"


TRIAL_DAMAGE: list[Callable[[Path], tuple[int, str]]] = [
    cut_last_row, non_number, extra_cells, unknown_status, zero_filled_tail, lost_samples, cut_samples,
    empty_samples, negative_samples, huge_samples, edited_sample, zero_filled_samples, samples_elsewhere]


@pytest.mark.parametrize("damage", TRIAL_DAMAGE, ids=lambda f: f.__name__)
def test_a_damaged_trial_is_named_and_left_out_and_the_rest_is_unchanged(run, damage, tmp_path, capsys):
    line, message = damage(run)
    message = message.format(line=line)
    damaged = digests(run, OUTPUTS)
    code, err = summarize(run, capsys)
    assert code == 0 and "Traceback" not in err
    assert message in err and "trial left out" in err, err
    summary = summary_of(run)
    assert any(message in str(Damage(**d)) for d in summary["damaged"]), summary["damaged"]
    assert any(w["kind"] == "damaged trial" for w in summary["warnings_detail"])
    # The statistics are those of the run with the damaged trial's row taken out, to the last digit.
    clean = without_row(run, line, tmp_path / "clean")
    assert summarize(clean, capsys)[0] == 0
    assert summary["points"] == summary_of(clean)["points"]
    assert digests(run, OUTPUTS) == damaged, "a reader changed the run's own files"
    # verify names the same damage and fails.
    assert main(["verify", str(run)]) == 1
    out = capsys.readouterr().out
    assert "DAMAGED" in out and message in out, out


def test_an_older_run_without_checksums_still_reads_and_its_impossible_samples_are_found(run, capsys):
    """A run of results schema 13 recorded no checksum: its files are checked against their calls and values."""
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["schema_version"] = 13
    (run / "manifest.json").write_text(json.dumps(manifest))
    old = rows(run)
    columns = [c for c in old[0] if c not in ("samples_bytes", "samples_sha256")]
    with open(run / "trials.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        w.writerows(old)
    assert main(["verify", str(run)]) == 0
    capsys.readouterr()
    line = omniorb_line(run, 1)
    path = samples_of(run, line)
    x = np.fromfile(path, dtype="<i8")
    x[3] = 0
    x.tofile(path)
    code, err = summarize(run, capsys)
    assert code == 0
    assert f"{path.relative_to(run)}: 1 of 200 samples <= 0 ns (the first: call 3, 0 ns)" in err
    assert f"trials.csv:{line}" in err


# --- damage that leaves nothing to compute on ----------------------------------------------------------------

def broken_manifest(run: Path) -> str:
    text = (run / "manifest.json").read_text().splitlines(keepends=True)
    text[3] = text[3].rstrip().rstrip(",") + "\n"
    (run / "manifest.json").write_text("".join(text))
    return "manifest.json: line 5 column 3: not JSON"


def manifest_without_hosts(run: Path) -> str:
    manifest = json.loads((run / "manifest.json").read_text())
    del manifest["hosts"]
    (run / "manifest.json").write_text(json.dumps(manifest))
    return "manifest.json: no key 'hosts', which a campaign run has"


def manifest_wrong_type(run: Path) -> str:
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["stopping"] = "done"
    (run / "manifest.json").write_text(json.dumps(manifest))
    return "manifest.json: key stopping: value 'done'"


def manifest_lost(run: Path) -> str:
    (run / "manifest.json").unlink()
    return "manifest.json: missing"


def trials_lost(run: Path) -> str:
    (run / "trials.csv").unlink()
    return "trials.csv: missing"


def trials_empty(run: Path) -> str:
    (run / "trials.csv").write_bytes(b"")
    return "trials.csv: no header line"


def header_only(run: Path) -> str:
    (run / "trials.csv").write_bytes(lines(run)[0])
    return "trials.csv: no trials, only its header"


def every_row_cut(run: Path) -> str:
    text = lines(run)
    (run / "trials.csv").write_bytes(text[0] + b"".join(t[:40] + b"\r\n" for t in text[1:]))
    return "trials.csv: none of its 6 trials can be read (nothing to compute on); the first: trials.csv:2: cut short"


def binary_trials(run: Path) -> str:
    (run / "trials.csv").write_bytes(b"\xff\xfe" + (run / "trials.csv").read_bytes())
    return "trials.csv: not UTF-8 text"


FATAL_DAMAGE: list[Callable[[Path], str]] = [
    broken_manifest, manifest_without_hosts, manifest_wrong_type, manifest_lost, trials_lost, trials_empty,
    header_only, every_row_cut, binary_trials]


@pytest.mark.parametrize("damage", FATAL_DAMAGE, ids=lambda f: f.__name__)
@pytest.mark.parametrize("reader", ["summarize", "report", "export", "compare", "agreement", "verify", "run"])
def test_nothing_to_compute_on_is_one_line_naming_the_file_and_nothing_is_written(run, damage, reader, capsys):
    message = damage(run)
    before = digests(run)
    args = {"compare": [str(run), str(run)], "agreement": [str(run), str(run)],
            "run": ["--resume", str(run), "--no-report"]}.get(reader, [str(run)])
    code = main([reader, *args])
    out, err = capsys.readouterr()
    assert code != 0
    said = out if reader == "verify" else err
    assert f"{run}/{message}" in said or (reader == "verify" and message in said), said
    if reader != "verify":
        assert err.count("\n") == 1 and err.startswith("orbench: error: "), err
    assert digests(run) == before, "a reader that failed wrote or changed a file"


# --- the writers of derived files ----------------------------------------------------------------------------

def test_a_summary_with_fewer_points_than_the_one_it_replaces_says_so(run, capsys):
    for r in rows(run):
        if r["target"] == "c-socket":
            (run / r["samples_file"]).unlink()
    code, err = summarize(run, capsys)
    assert code == 0
    assert "fewer points: this summary measures 1 point(s); the summary.json it replaces measured 2 " \
           "(3 damaged trial(s) left out)" in err
    assert any(w["kind"] == "fewer points" for w in summary_of(run)["warnings_detail"])


def test_a_damaged_summary_json_is_named_by_verify_and_recomputed_by_its_readers(run, capsys):
    (run / "summary.json").write_text('{"schema_version": ')
    assert main(["verify", str(run)]) == 1
    assert "summary.json: line 1 column 20: not JSON" in capsys.readouterr().out
    assert main(["export", str(run)]) == 0
    assert summary_of(run)["schema_version"] == SCHEMA_VERSION
    assert main(["verify", str(run)]) == 0


def test_damage_appearing_after_the_summary_is_found_by_readers_that_use_it(run, capsys):
    """export, report, agreement and history take summary.json as it is when current; a samples file lost
    since is still found (the quick check: every row, every samples file's size) and the summary recomputed."""
    from orbench.summary.summary import current_summary

    line = omniorb_line(run, 0)
    samples_of(run, line).unlink()
    summary = current_summary(RunStore(run))
    assert len(summary.damaged) == 1 and summary.damaged[0].line == line
    assert "missing" in capsys.readouterr().err
    assert summary_of(run)["damaged"][0]["line"] == line


def test_the_report_of_a_damaged_run_is_made_and_a_failed_one_replaces_nothing(run, capsys):
    lost = samples_of(run, omniorb_line(run, 2))
    lost.unlink()
    assert main(["report", str(run)]) == 0
    assert f"{lost.relative_to(run)}: missing" in capsys.readouterr().err
    made = digests(run)
    assert "report.html" in made and any(k.startswith("figures/") for k in made)
    (run / "trials.csv").unlink()
    assert main(["report", str(run)]) == 2
    assert "trials.csv: missing" in capsys.readouterr().err
    assert digests(run) == {k: v for k, v in made.items() if k != "trials.csv"}
    assert not [p for p in run.iterdir() if p.name.startswith(".")], "a temporary file was left"


def test_compare_and_history_skip_damaged_trials_with_a_word(run, original, tmp_path, capsys):
    lost = samples_of(run, omniorb_line(run, 1))
    lost.unlink()
    assert main(["compare", str(original), str(run)]) == 0
    out, err = capsys.readouterr()
    assert f"{lost.relative_to(run)}: missing" in err
    assert "run B has 1 damaged trial(s), left out of its figures" in out
    # history over a results store holding the damaged run and one whose manifest is broken
    results = tmp_path / "results"
    shutil.copytree(run, results / "damage" / "a")
    shutil.copytree(original, results / "damage" / "b")
    (results / "damage" / "b" / "manifest.json").write_text("{")
    (results / "damage" / "a" / "summary.json").unlink()
    assert main(["history", "--results", str(results)]) == 0
    err = capsys.readouterr().err
    assert f"{results}/damage/b/manifest.json: line 1 column 2: not JSON" in err and "run left out" in err
    assert f"{lost.relative_to(run)}: missing" in err


def test_verify_passes_an_undamaged_run_and_an_old_one_and_checks_a_whole_store(original, tmp_path, capsys):
    assert main(["verify", str(original)]) == 0
    assert "ok (6 trials, 6 samples files read in full)" in capsys.readouterr().out
    shutil.copytree(FIXTURES / "run-small", tmp_path / "store" / "small" / "old")  # results schema 1
    shutil.copytree(original, tmp_path / "store" / "damage" / "good")
    shutil.copytree(original, tmp_path / "store" / "damage" / "bad")
    (tmp_path / "store" / "damage" / "bad" / "trials.csv").unlink()
    kept = tmp_path / "store" / "reference"  # a summary kept without its samples (the guide's reference set)
    kept.mkdir()
    for name in ("manifest.json", "summary.json"):
        shutil.copy(original / name, kept / name)
    (kept / "reference.json").write_text("{}")
    assert main(["verify", str(tmp_path / "store")]) == 1
    out = capsys.readouterr().out
    assert "3 runs checked, 1 damaged" in out
    assert f"{tmp_path}/store/damage/bad: DAMAGED: trials.csv: missing" in out
    assert f"{tmp_path}/store/small/old: ok" in out


def test_each_row_records_its_samples_file_as_written(original):
    for r in rows(original):
        data = (original / r["samples_file"]).read_bytes()
        assert int(r["samples_bytes"]) == len(data) == 8 * int(r["calls"])
        assert r["samples_sha256"] == hashlib.sha256(data).hexdigest()


def test_a_row_appended_after_a_cut_one_starts_a_line_of_its_own(run, capsys):
    """A resumed run appends to a trials.csv whose last row a crash cut: the cut row stays one damaged row."""
    store = RunStore(run)
    _manifest, trials = store.read()
    cut_last_row(run)
    store.append_trial(trials[0].replace(seq=99, trial=7))
    _manifest, table = store.check()
    assert [d.line for d in table.damage] == [7]
    assert table.trials[-1].trial == 7 and table.trials[-1].samples_sha256 == trials[0].samples_sha256


@pytest.mark.slow
def test_a_resumed_run_names_its_damaged_trials(run, capsys):
    """A resume reads the run as every reader does: a trial whose samples were lost is named, left out."""
    lost = samples_of(run, omniorb_line(run, 1))
    lost.unlink()
    assert main(["run", "--resume", str(run), "--no-report"]) == 0
    assert f"{lost.relative_to(run)}: missing (trials.csv:{omniorb_line(run, 1)}" in capsys.readouterr().err
    assert len(summary_of(run)["damaged"]) == 1


def test_a_damaged_row_that_a_resume_ran_again_is_no_damage(run, original, capsys):
    """A crash cut the last row; the resume ran that trial again and appended its row: the run is whole."""
    last = lines(run)[-1]
    cut_last_row(run)
    with open(run / "trials.csv", "ab") as f:
        f.write(b"\r\n" + last)
    _manifest, table = RunStore(run).check()
    assert table.damage == [] and len(table.trials) == 6
    assert summarize(run, capsys)[0] == 0
    assert summary_of(run)["points"] == summary_of(original)["points"]
    assert main(["verify", str(run)]) == 0


def test_a_table_read_again_in_one_process_is_the_same_and_sees_every_change(run):
    """read_table keeps what it found while no file it read changed: the second read gives the same trials
    and a manifest of its own (a caller may change its copy), and a row appended or a samples file damaged
    since is read again."""
    from orbench.results import integrity

    manifest, first = integrity.read_table(run, integrity.TRIALS)
    manifest["status"] = "changed by a caller"
    again_manifest, again = integrity.read_table(run, integrity.TRIALS)
    assert again_manifest["status"] != "changed by a caller" and again.trials == first.trials
    assert integrity.read_table(run, integrity.TRIALS, full=False)[1].trials == first.trials
    path = samples_of(run, omniorb_line(run, 0))
    x = np.fromfile(path, dtype="<i8")
    x[0] += 1
    x.tofile(path)
    _, damaged = integrity.read_table(run, integrity.TRIALS)
    assert [d.file for d in damaged.damage] == [str(path.relative_to(run))]
    with open(run / "trials.csv", "a") as f:
        f.write(lines(run)[-1].decode())
    assert len(integrity.read_table(run, integrity.TRIALS)[1].trials) == len(damaged.trials) + 1
