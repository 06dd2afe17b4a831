"""check-target against deliberately wrong workers: a real, passing worker (the C socket baseline) behind a
wrapper that changes one thing it does or says (tests/fixtures/mutant_worker.py). Each mutation must fail the
check that is there to catch it; the unchanged wrapper, and one that only refuses soak runs, must pass.

Each mutant is tried twice: in `make test` by the step groups of check-target that hold the checks meant to catch
it (Conformance's `only`: the main pair and those steps), in `make test-slow` by the whole of check-target, where
the checks that must stay passing are all the others."""

from __future__ import annotations

import re
import sys

import pytest
from orbench.paths import targets_dir
from orbench.targets import scale_checks, timing_checks
from orbench.targets.conformance import Conformance, format_checks
from orbench.targets.descriptor import read_descriptor

from tests.conftest import FIXTURES, require_targets

MUTANT = FIXTURES / "mutant_worker.py"

# Octets only and one option: every check runs, in seconds rather than the minute of all payload types.
DESCRIPTOR = """name = "c-socket"
description = "the C socket baseline behind a mutation wrapper ({mutation})"
language = "c++"
kind = "socket"
build = "cpp"

[requires]
files = ["cpp/build/orbench-csocket-server", "cpp/build/orbench-csocket-client"]

[server]
argv = ["{python}", "{mutant}", "{mutation}", "server", "--",
        "{{root}}/cpp/build/orbench-csocket-server", "--host", "{{host}}", "--port", "{{port}}"]

[client]
argv = ["{python}", "{mutant}", "{mutation}", "client", "--", "{{root}}/cpp/build/orbench-csocket-client"]

[supports]
modes = ["twoway", "oneway", "echo"]
payload_types = ["octets"]
options = ["tcp_nodelay"]
client_threads = {threads}
"""

# omniORB's workers behind the wrapper, for the mutations of objects (the C baseline has none).
OMNIORB_DESCRIPTOR = """name = "omniorb"
description = "omniORB behind a mutation wrapper ({mutation})"
language = "c++"
kind = "orb"
family = "corba"
baseline = "c-socket"
build = "cpp"

[requires]
files = ["cpp/build/orbench-omniorb-server", "cpp/build/orbench-omniorb-client"]

[server]
argv = ["{python}", "{mutant}", "{mutation}", "server", "--",
        "{{root}}/cpp/build/orbench-omniorb-server", "--host", "{{host}}", "--port", "{{port}}"]

[client]
argv = ["{python}", "{mutant}", "{mutation}", "client", "--", "{{root}}/cpp/build/orbench-omniorb-client"]

[supports]
modes = ["twoway", "oneway"]
payload_types = ["octets"]
objects = true
fixed_options = {{ tcp_nodelay = true }}
"""

# omniORB's workers behind the wrapper with shapes claimed, for the mutations of shapes (faults in the real
# workers, ORBENCH_FAULT).
SHAPES_DESCRIPTOR = OMNIORB_DESCRIPTOR.replace("objects = true", 'shapes = ["in", "inout", "exception", "ami"]')
# The same with Ice's C++ workers, whose shapes come from the translated Slice (the same faults).
ICE_SHAPES_DESCRIPTOR = (SHAPES_DESCRIPTOR.replace("omniorb", "ice").replace('"omniORB ', '"Ice C++ ')
                         .replace('family = "corba"', 'family = "ice"').replace('name = "ice"', 'name = "ice-cpp"'))
# And with gRPC's C++ workers, whose shapes come from the translated proto (the exception is a status).
GRPC_SHAPES_DESCRIPTOR = (SHAPES_DESCRIPTOR.replace("omniorb", "grpc").replace('"omniORB ', '"gRPC C++ ')
                          .replace('family = "corba"', 'family = "grpc"').replace('name = "grpc"', 'name = "grpc-cpp"'))
# Its server on the callback API (--api callback), whose Shapes service is a second implementation.
GRPC_CALLBACK_SHAPES_DESCRIPTOR = GRPC_SHAPES_DESCRIPTOR.replace('"--port", "{{port}}"]',
                                                                 '"--port", "{{port}}", "--api", "callback"]')
assert GRPC_CALLBACK_SHAPES_DESCRIPTOR != GRPC_SHAPES_DESCRIPTOR

THREADS_RUN = (f"threads: {{}} run of {scale_checks.THREADS} threads x {scale_checks.THREAD_CALLS} calls, "
               "every call made and counted")
THREADS_OVERLAP = "threads: the threads' calls overlap (replies held a known time)"
OBJECTS_CHECK = "objects: every object called, in the order asked (objects_called)"


def check_mutant(mutation: str, tmp_path, target: str = "c-socket",
                 only: frozenset[str] | None = None) -> tuple[dict[str, bool], str]:
    """check-target on the mutant: every step, or the step groups `only` (and the main pair's steps)."""
    real = target.removesuffix("-shapes").removesuffix("-callback")
    require_targets(real)
    template = {"c-socket": DESCRIPTOR, "omniorb": OMNIORB_DESCRIPTOR, "omniorb-shapes": SHAPES_DESCRIPTOR,
                "ice-cpp-shapes": ICE_SHAPES_DESCRIPTOR, "grpc-cpp-shapes": GRPC_SHAPES_DESCRIPTOR,
                "grpc-cpp-callback-shapes": GRPC_CALLBACK_SHAPES_DESCRIPTOR}[target]
    path = tmp_path / f"{real}.toml"
    # The threads steps only where a mutation is about threads: test_contract runs them for the real c-socket.
    threads = "true" if mutation.startswith("threads") else "false"
    path.write_text(template.format(python=sys.executable, mutant=MUTANT, mutation=mutation, threads=threads))
    target = read_descriptor(path)
    conformance = Conformance(target, log_dir=tmp_path / "logs", only=only)
    checks = conformance.run()
    # However the worker failed, check-target leaves none of the processes it started running.
    assert all(w.proc.poll() is not None for w in conformance.workers), mutation
    return {c.name: c.passed for c in checks}, format_checks(target, checks)


# The whole check-target through the wrapper: the control of the whole runs of the mutants (make test-slow).
@pytest.mark.slow
@pytest.mark.parametrize("mutation", ["none", "no_soak"])
def test_the_wrapper_alone_passes(mutation, tmp_path):
    results, report = check_mutant(mutation, tmp_path)
    assert all(results.values()), report
    assert len(results) > 20, report


def test_refusing_soak_runs_passes_the_soak_step(tmp_path):
    results, report = check_mutant("no_soak", tmp_path, only=frozenset({"soak"}))
    assert all(results.values()), report
    assert "soak run sends its intervals before the answer (or is unsupported)" in results, report
    assert "(unsupported: " in report, report


# The mutation, and the checks that must fail for it (each name must be among the failures).
REJECTED = {
    "constant": ["run twoway octets 1000 B", "samples are ns: twoway against replies held a known time"],
    "micros": ["run twoway octets 1000 B", "samples are ns: twoway against replies held a known time"],
    "nodelay": ["option tcp_nodelay = false: seen on the wire"],
    "oneway_twoway": ["oneway returns before the server replies"],
    "language": ["server prints a valid ready line"],
    "unsupported_mode": ["unknown mode is a usage error"],
    # A client that claims threads but makes its calls on one thread.
    "threads_ignored": [THREADS_RUN.format("twoway"), THREADS_RUN.format("oneway"), THREADS_OVERLAP],
}


# The step groups (conformance.STEP_GROUPS) that hold the checks each mutation must fail.
CATCHING_STEPS = {"constant": {"runs", "delays"}, "micros": {"runs", "delays"}, "nodelay": {"options"},
                  "oneway_twoway": {"delays"}, "language": set(), "unsupported_mode": {"errors"},
                  "threads_ignored": {"threads"}}
assert set(CATCHING_STEPS) == set(REJECTED)


def test_the_wrapper_alone_passes_the_steps_the_mutants_are_caught_by(tmp_path):
    """The control of the step groups that the mutants of the C baseline run in make test (the threads steps run
    only where a mutation is about threads: test_contract runs them for the real c-socket)."""
    groups = frozenset(set().union(*CATCHING_STEPS.values()))
    results, report = check_mutant("none", tmp_path, only=groups)
    assert all(results.values()), report
    assert {name.split()[0] for name in results} >= {"run", "samples", "oneway", "option", "unknown"}, report


@pytest.mark.parametrize("mutation", sorted(REJECTED))
def test_the_steps_meant_to_catch_the_mutant_reject_it(mutation, tmp_path):
    results, report = check_mutant(mutation, tmp_path, only=frozenset(CATCHING_STEPS[mutation]))
    failed = {name for name, passed in results.items() if not passed}
    assert set(REJECTED[mutation]) <= failed, report


# The language mutant fails check-target's first step, after which nothing runs: its whole run is quick.
@pytest.mark.parametrize("mutation", [m if m == "language" else pytest.param(m, marks=pytest.mark.slow)
                                      for m in sorted(REJECTED)])
def test_check_target_rejects_the_mutant(mutation, tmp_path):
    results, report = check_mutant(mutation, tmp_path)
    failed = {name for name, passed in results.items() if not passed}
    assert set(REJECTED[mutation]) <= failed, report


@pytest.mark.parametrize("only", [frozenset({"threads"}), pytest.param(None, marks=pytest.mark.slow)],
                         ids=["threads", "all"])
def test_a_client_that_makes_its_threads_calls_one_at_a_time_is_rejected(only, tmp_path):
    """It makes all threads x calls calls, one after another, and says threads made them: its made-up answer
    passes every count, and the relay's known delay is what shows that the calls did not overlap."""
    results, report = check_mutant("threads_serial", tmp_path, only=only)
    assert {name for name, passed in results.items() if not passed} == {THREADS_OVERLAP}, report


@pytest.mark.parametrize("only", [frozenset({"objects"}), pytest.param(None, marks=pytest.mark.slow)],
                         ids=["objects", "all"])
def test_a_client_that_calls_object_0_only_is_rejected(only, tmp_path):
    """omniORB's client told to drop `objects` (its answer made up as if not): everything passes but the
    objects step, where the server saw one object called. (test_contract runs the real omniorb through it.)"""
    results, report = check_mutant("objects_zero", tmp_path, "omniorb", only=only)
    assert {name for name, passed in results.items() if not passed} == {OBJECTS_CHECK}, report
    assert "the server saw 1 objects called, expected 50" in report, report


def test_a_failed_option_step_shows_its_own_workers_stderr(tmp_path):
    results, report = check_mutant("refuse_nodelay", tmp_path, only=frozenset({"options"}))
    step = "option tcp_nodelay = false: accepted, every message delivered"
    assert not results[step], report
    detail = re.split(r"\n  (PASS|FAIL)", report[report.index(step):], maxsplit=1)[0]
    # Its own server was started with the option; the main pair's stderr (no option) is not shown.
    assert "option-tcp_nodelay-False-server.log" in detail and "tcp_nodelay=false" in detail, detail
    assert "main-server.log" not in detail, detail


# strace (11 s) in the slow layer: the counter the workers preload catches the same mutant in 6 s.
@pytest.mark.parametrize("counter", ["counted", pytest.param("strace", marks=pytest.mark.slow)])
def test_a_baseline_writing_header_and_body_apart_is_rejected(counter, tmp_path, monkeypatch):
    """The C baseline's client with tcp_nodelay = false writes each request as header then body (PROTOCOL.md):
    two writes and two segments per call, which a baseline must not do. Its calls are counted by the send/recv
    counter preloaded into the workers, as check-target starts them, or without it by strace."""
    from orbench.targets import conformance
    from orbench.targets.descriptor import read_targets
    from orbench.targets.workers import ClientWorker, ServerWorker

    require_targets("c-socket")
    monkeypatch.setattr(conformance, "BASELINE_CALLS", 60)  # each call waits for a delayed ACK (~40 ms)
    env = conformance.worker_env() if counter == "counted" else None
    if counter == "counted" and env is None:
        pytest.skip("the send/recv counter is not built (make cpp)")
    target = read_targets()["c-socket"]
    check = Conformance(target, log_dir=tmp_path)
    server = ServerWorker(target.name, target.server_command("127.0.0.1"), tmp_path / "server.log", env=env)
    client = ClientWorker(target.name, target.client_command(), tmp_path / "client.log", env=env)
    try:
        assert client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {"tcp_nodelay": False}})["ok"]
        with pytest.raises(AssertionError, match=r"the client made (1\.[89]|2\.0)\d (segments|writes) per call"):
            check._baseline_io(client, server)
        limit = conformance.BASELINE_PER_CALL_MAX
        monkeypatch.setattr(conformance, "BASELINE_PER_CALL_MAX", 10)  # what it counted, past the segments
        seen = check._baseline_io(client, server)
        monkeypatch.setattr(conformance, "BASELINE_PER_CALL_MAX", limit)
        if "not counted" in seen:
            pytest.skip(f"strace cannot attach here: {seen}")
        assert re.match(r"client (1\.[89]|2\.0)\d segments (1\.[89]|2\.0)\d writes (0\.9|1\.0)\d reads "
                        rf"\({counter}\)", seen), seen
        assert client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {"tcp_nodelay": True}})["ok"]
        assert re.match(rf"client (0\.9|1\.0)\d segments (0\.9|1\.0)\d writes (0\.9|1\.0)\d reads \({counter}\)",
                        check._baseline_io(client, server))
    finally:
        client.stop()
        server.stop()


@pytest.mark.parametrize("mutation, known, outcome", [
    ("close_after", False, "failed"),   # a transport that gives up after 100 MiB fails the long haul
    ("close_after", True, "known"),     # ... and is a known failure where its descriptor says so, with why
    ("none", True, "passed"),           # listed, but passed this time: a pass, with the entry's words
])
def test_the_long_haul_fails_a_connection_that_ends_after_100_mib(tmp_path, mutation, known, outcome):
    """The long haul alone (its own pair of workers), on the C socket baseline behind the mutant wrapper."""
    require_targets("c-socket")
    path = tmp_path / "c-socket.toml"
    path.write_text(DESCRIPTOR.format(python=sys.executable, mutant=MUTANT, mutation=mutation, threads="false")
                    + ('\n[known_failures]\nlong_haul = "gives up after 100 MiB"\n' if known else ""))
    target = read_descriptor(path)
    conformance = Conformance(target, log_dir=tmp_path / "logs")
    conformance.check("long haul", conformance._long_haul, step="long_haul")
    check = conformance.checks[-1]
    assert {"failed": not check.passed, "known": check.passed and check.known,
            "passed": check.passed and not check.known}[outcome], format_checks(target, [check])
    if outcome == "failed":
        assert check.detail.startswith("twoway (0 MiB through the connection before it), 4096 calls of 65536 B: "
                                       "error answer: transport"), check.detail
    if known:
        assert "gives up after 100 MiB" in check.detail
    assert all(w.proc.poll() is not None for w in conformance.workers)


# The shape mutations: each fails exactly the steps of its shape (and nothing else).
SHAPE_REJECTED = {
    "inout_unchanged": {"shape inout: twoway octets 1000 B, reply right, every call counted"},
    "no_raise": {"shape exception: twoway octets 1000 B, reply right, every call counted"},
    "ami_lost": {"shape ami-1: twoway octets 1000 B, reply right, every call counted",
                 "shape ami-8: twoway octets 1000 B, reply right, every call counted",
                 "shape ami-8: calls overlap (replies held a known time)"},
}


SHAPES_TARGETS = ("omniorb-shapes", "ice-cpp-shapes", "grpc-cpp-shapes", "grpc-cpp-callback-shapes")
SHAPES = frozenset({"shapes"})


@pytest.mark.parametrize("only", [SHAPES, pytest.param(None, marks=pytest.mark.slow)], ids=["shapes", "all"])
@pytest.mark.parametrize("target", SHAPES_TARGETS)
def test_the_shapes_wrapper_alone_passes(target, only, tmp_path):
    results, report = check_mutant("none", tmp_path, target, only=only)
    assert all(results.values()), report
    assert any(name.startswith("shape ami-8") for name in results), report


# A client that loses AMI replies waits out the reply wait (1 s) at each AMI step (about 10 s a target): omniORB's runs
# in the fast suite (its shape steps), the other targets' in the slow one. In the fast suite each mutant runs the
# shape steps only (exactly its shape's must fail), in the slow one the whole of check-target (exactly its shape's
# steps of all must fail).
WRONG_SHAPES = [pytest.param(mutation, target, only, id=f"{mutation}-{target}-{'shapes' if only else 'all'}",
                             marks=[pytest.mark.slow] if only is None or (mutation == "ami_lost"
                                                                          and target != "omniorb-shapes") else [])
                for only in (SHAPES, None)
                for target in ("omniorb-shapes", "ice-cpp-shapes", "grpc-cpp-shapes")
                for mutation in sorted(SHAPE_REJECTED)]


@pytest.mark.parametrize("mutation, target, only", WRONG_SHAPES)
def test_check_target_rejects_a_wrong_shape(mutation, target, only, tmp_path):
    """A server whose inout returns the input unchanged, one that never raises, a client that loses AMI
    replies: each claims the shape and gets it wrong, and check-target says where."""
    results, report = check_mutant(mutation, tmp_path, target, only=only)
    failed = {name for name, passed in results.items() if not passed}
    assert failed == SHAPE_REJECTED[mutation], report


@pytest.mark.parametrize("only", [SHAPES, pytest.param(None, marks=pytest.mark.slow)], ids=["shapes", "all"])
@pytest.mark.parametrize("mutation", ["inout_unchanged", "no_raise"])
def test_check_target_rejects_a_wrong_shape_of_the_grpc_callback_server(mutation, only, tmp_path):
    """The server's faults in gRPC's callback Shapes service (--api callback), its second implementation."""
    results, report = check_mutant(mutation, tmp_path, "grpc-cpp-callback-shapes", only=only)
    failed = {name for name, passed in results.items() if not passed}
    assert failed == SHAPE_REJECTED[mutation], report


# JacORB's own workers (harness/targets/jacorb.toml) behind the wrapper, claiming ami alone at octets: its AMI
# goes through JacORB's own stubs (JacorbAmi), a code path of its own, so its lost replies get a test of their own.
# Twoway only: each failing step waits out the reply wait (1 s under the fault; check-target jacorb runs echo too).
AMI_STEPS = {"shape ami-1: twoway octets 1000 B, reply right, every call counted",
             "shape ami-8: twoway octets 1000 B, reply right, every call counted",
             "shape ami-8: calls overlap (replies held a known time)"}


def jacorb_ami_descriptor(mutation: str) -> str:
    text = (targets_dir() / "jacorb.toml").read_text()
    wrapped = f'"{sys.executable}", "{MUTANT}", "{mutation}", '
    for role in ("server", "client"):
        text = text.replace(f"[{role}]\nargv = [", f'[{role}]\nargv = [{wrapped}"{role}", "--", ', 1)
    text = re.sub(r"(?m)^modes = .*$", 'modes = ["twoway"]', text)
    text = re.sub(r"(?m)^payload_types = .*$", 'payload_types = ["octets"]', text)
    return re.sub(r"(?m)^shapes = .*$", 'shapes = ["in", "ami"]', text)


@pytest.mark.parametrize("mutation", ["none", pytest.param("ami_lost", marks=pytest.mark.slow)])  # 5 s
def test_check_target_rejects_a_jacorb_client_that_loses_ami_replies(mutation, tmp_path):
    """JacORB's real client with its AMI handlers dropping every eighth reply fails every AMI step, saying how
    many replies arrived; unchanged, it passes them (the main pair and the AMI steps of check-target only)."""
    require_targets("jacorb")
    path = tmp_path / "jacorb.toml"
    path.write_text(jacorb_ami_descriptor(mutation))
    target = read_descriptor(path)
    conformance = Conformance(target, log_dir=tmp_path / "logs", only=SHAPES)
    checks = conformance.run()
    assert all(w.proc.poll() is not None for w in conformance.workers), mutation
    results = {c.name: c.passed for c in checks}
    report = format_checks(target, checks)
    assert {name for name in results if name.startswith("shape ami")} == AMI_STEPS, report
    failed = {name for name, passed in results.items() if not passed}
    if mutation == "none":
        assert not failed, report
    else:
        assert failed == AMI_STEPS, report
        assert "replies arrived" in report, report


def run_steps(mutation: str, tmp_path, steps) -> tuple[list, str]:
    """Only the steps `steps(conformance, client, server)` adds, on the main pair of the C socket baseline behind
    the wrapper: seconds, where the whole check-target takes tens of them."""
    require_targets("c-socket")
    path = tmp_path / "c-socket.toml"
    path.write_text(DESCRIPTOR.format(python=sys.executable, mutant=MUTANT, mutation=mutation, threads="false"))
    target = read_descriptor(path)
    conformance = Conformance(target, log_dir=tmp_path / "logs")
    try:
        server = conformance._server("main")
        client = conformance._client("main")
        assert client.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}}, watch=[server])["ok"]
        steps(conformance, client, server)
    finally:
        for w in reversed(conformance.workers):
            w.stop()
    assert all(w.proc.poll() is not None for w in conformance.workers), mutation
    return conformance.checks, format_checks(target, conformance.checks)


@pytest.mark.parametrize("mutation, mode, words", [
    ("none", "twoway", None),
    ("none", "oneway", None),
    # Calls held back until the closing sync: every one is delivered and counted, but only at the end.
    ("oneway_held", "oneway", "the calls reached it only at the end"),
    # N / 10 real round trips, an answer made up for N with their samples repeated: the server's own count.
    ("twoway_cached", "twoway", "calls answered without reaching the server"),
])
def test_calls_must_reach_the_server_while_they_run(mutation, mode, words, tmp_path):
    checks, report = run_steps(mutation, tmp_path, lambda c, client, server: c.check(
        "in time", lambda: timing_checks.arrivals_in_time(c, client, server, mode)))
    assert checks[-1].passed == (words is None), report
    if words:
        assert words in checks[-1].detail, report


def test_the_held_oneways_pass_every_older_check_of_a_run(tmp_path):
    """What check-target could not see before: a run of oneways held until the sync passes the run checks and
    the relay's (every message delivered, the samples the calls' own, a oneway that does not wait)."""
    checks, report = run_steps("oneway_held", tmp_path, lambda c, client, server: (
        c.check("run", lambda: c._run_point(client, server, "oneway", "octets", 1000)),
        c.check("relay", lambda: c._delayed(client, server, "oneway"))))
    assert all(check.passed for check in checks), report


@pytest.mark.parametrize("mutation, passes", [("none", True), ("one_client", False)])
def test_a_server_that_serves_one_client_at_a_time_is_rejected(mutation, passes, tmp_path, monkeypatch):
    monkeypatch.setattr(timing_checks, "CLIENTS_TIMEOUT_S", 3.0)  # the second client's connect never answers
    checks, report = run_steps(mutation, tmp_path, lambda c, client, server: c.check(
        "clients", lambda: timing_checks.several_clients(c)))
    assert checks[-1].passed == passes, report
    if not passes:
        assert "client 2 of 3, connecting while 1 are connected" in checks[-1].detail, report


@pytest.mark.parametrize("mutation, passes", [("none", True), ("shutdown_ignored", False)])
def test_a_server_that_ignores_shutdown_is_rejected(mutation, passes, tmp_path, monkeypatch):
    monkeypatch.setattr(timing_checks, "SHUTDOWN_SECONDS", 2.0)
    checks, report = run_steps(mutation, tmp_path, lambda c, client, server: c.check(
        "shutdown", lambda: timing_checks.shutdown_request(c)))
    assert checks[-1].passed == passes, report
    if not passes:
        assert "the server still runs 2 s after it answered shutdown()" in checks[-1].detail, report
