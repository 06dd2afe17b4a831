"""A JVM worker's class archive (targets/jvm_share.py): made once per command, named by every start after, and
never a word on the worker's stdout, even when the JVM refuses it."""

import json
import subprocess

import pytest
from orbench.targets import jvm_share
from orbench.targets.descriptor import read_targets

from tests.conftest import require_targets


@pytest.fixture
def archives(tmp_path, monkeypatch):
    monkeypatch.delenv(jvm_share.SHARE_ENV, raising=False)
    monkeypatch.setattr(jvm_share, "archive_dir", lambda: tmp_path / "cds")
    jvm_share._failed.clear()
    return tmp_path / "cds"


def first_line(argv: list[str]) -> dict:
    """The server's first stdout line, which the contract says is its ready (or error) line."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = proc.stdout.readline()
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    return json.loads(line)


def test_a_jvm_server_starts_from_its_archive_made_once(archives, tmp_path):
    require_targets("java-socket")
    target = read_targets()["java-socket"]
    argv = target.server_command("127.0.0.1", 0, gc_log=str(tmp_path / "a-gc.log"))
    made = list(archives.glob("*.jsa"))
    assert len(made) == 1 and made[0].stat().st_size > 0
    assert argv[1:4] == [*jvm_share.WARNINGS_TO_STDERR, f"-XX:SharedArchiveFile={made[0]}"]
    # Another start of the same command (its GC log elsewhere) names the same archive; the client its own.
    again = target.server_command("127.0.0.1", 0, gc_log=str(tmp_path / "b-gc.log"))
    assert again[3] == argv[3] and str(tmp_path / "b-gc.log") in " ".join(again)
    target.client_command()
    assert len(list(archives.glob("*.jsa"))) == 2
    assert first_line(argv)["event"] == "ready"
    assert (tmp_path / "a-gc.log").stat().st_size > 0   # the GC log is still the target's own


def test_an_archive_the_jvm_refuses_warns_on_stderr_only(archives):
    require_targets("java-socket", "jacorb")
    argv = read_targets()["java-socket"].server_command("127.0.0.1", 0)
    server_archive = next(archives.glob("*.jsa"))
    read_targets()["jacorb"].server_command("127.0.0.1", 0)
    other = next(a for a in archives.glob("*.jsa") if a != server_archive)
    # JacORB's archive in java-socket's place: made for another class path, which the JVM checks.
    server_archive.chmod(0o644)
    server_archive.write_bytes(other.read_bytes())
    proc = subprocess.run(argv, input=b"", capture_output=True, timeout=30)
    assert json.loads(proc.stdout.splitlines()[0])["event"] == "ready"
    assert b"[warning][cds" in proc.stderr


def test_no_archive_when_off_or_when_the_jvm_cannot_make_one(archives, monkeypatch):
    argv = ["/bin/false", "-cp", "/nowhere", "Main"]
    assert jvm_share.shared(argv) == argv            # it exits without writing one
    assert not list(archives.glob("*"))
    monkeypatch.setenv(jvm_share.SHARE_ENV, "off")
    require_targets("java-socket")
    target = read_targets()["java-socket"]
    assert target.server_command("127.0.0.1", 0) == target.expand(target.server_argv, host="127.0.0.1", port="0")
    assert not archives.exists() or not list(archives.glob("*.jsa"))
