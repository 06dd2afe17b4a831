"""check-target's steps for a client that says it can take turns (PROTOCOL.md, "Turns"; the sliced design runs
a round trip's slices this way, running/slices.py):

- two clients of the target, each on a server of its own, take turns through two named pipes in the ABBA order
  of a sliced trial, twoway and oneway: every timed call made, counted and in the samples file, each client
  waiting while the other had the turn, a oneway turn ending with its barrier, and the client whose last turn
  handed on answering only after the harness's end byte;
- a turn that never comes fails the run as a transport error after the turn's timeout, and the client goes on.
"""

from __future__ import annotations

import os
import time
from typing import Protocol

from orbench.stats.stats import read_samples
from orbench.targets.descriptor import Target
from orbench.targets.sample_checks import check_against_elapsed
from orbench.targets.turns import TurnPipes, turn_plan
from orbench.targets.workers import ClientWorker, ServerWorker

# Four slices of SLICE_CALLS calls in ABBA order: A takes three turns, B two.
SLICE_CALLS = 100
SLICES = 4
REWARM = 5
TIMEOUT_S = 30.0
# The lone client's turn timeout: the run must fail after it, and well before the command's own timeout.
LONE_TIMEOUT_MS = 300


class _Conformance(Protocol):
    target: Target
    log_dir: os.PathLike

    def _server(self, tag: str, args: tuple[str, ...] = ()) -> ServerWorker: ...
    def _client(self, tag: str) -> ClientWorker: ...
    def _validate(self, value: dict, definition: str) -> None: ...


def _run(conformance: _Conformance, tag: str, calls: int, turns: dict, mode: str = "twoway") -> dict:
    return {"cmd": "run", "mode": mode, "payload_type": "octets", "payload_bytes": 64, "calls": calls,
            "warmup": 50, "samples_file": str(conformance.log_dir / f"turns-{tag}.i64"), "sync_timeout_ms": 10000,
            "turns": turns}


def two_clients_take_turns(conformance: _Conformance, first: ClientWorker, first_server: ServerWorker,
                           mode: str = "twoway") -> str:
    """The first client (connected to its server) and a second one of the target, each with its own server; a
    oneway client's every turn ends with its barrier, none of its messages lost to the next turn."""
    server = conformance._server(f"turns-{mode}")
    second = conformance._client(f"turns-{mode}")
    answer = second.call({"cmd": "connect", "endpoint": server.endpoint, "options": {}}, watch=[server])
    assert answer["ok"], f"second client's connect: {answer.get('error_kind')}: {answer.get('error')}"
    clients, servers = [first, second], [first_server, server]
    sizes = [SLICE_CALLS] * SLICES
    plan = turn_plan(2, [[0, 1] if k % 2 == 0 else [1, 0] for k in range(SLICES)], sizes)  # A | B B | A A | B B | A
    with TurnPipes(2) as pipes:
        for i, client in enumerate(clients):
            client.send(_run(conformance, "ab"[i], SLICE_CALLS * SLICES,
                             pipes.turns_field(plan, i, sizes, REWARM, int(TIMEOUT_S * 1000)), mode))
        answers: dict[int, dict] = {0: clients[0].receive(TIMEOUT_S, watch=[servers[0]])}
        # A took the trial's last turn; B's last turn handed on, so it answers only after the end byte.
        time.sleep(0.05)
        assert not clients[1].has_line(), "the client whose last turn handed on answered before the end byte"
        pipes.give([1])
        answers[1] = clients[1].receive(TIMEOUT_S, watch=[servers[1]])
    out = []
    for i, want_turns in ((0, 3), (1, 2)):
        a = answers[i]
        who = "AB"[i]
        assert a["ok"], f"client {who}: error answer: {a.get('error_kind')}: {a.get('error')}"
        conformance._validate(a, "run_answer")
        samples = read_samples(conformance.log_dir / f"turns-{'ab'[i]}.i64")
        assert samples.size == SLICE_CALLS * SLICES, f"client {who}: {samples.size} samples, expected {SLICE_CALLS * SLICES}"
        assert a["received"]["messages"] == SLICE_CALLS * SLICES, \
            f"client {who}: received {a['received']['messages']}, expected the timed calls' {SLICE_CALLS * SLICES}"
        if mode == "oneway":
            assert (a.get("sync") or {}).get("complete"), f"client {who}: a turn's barrier did not complete: {a.get('sync')}"
        turns = a.get("turns") or {}
        assert turns.get("count") == want_turns, f"client {who}: turns {turns}, expected count {want_turns}"
        # A client that took its turns without waiting for them would read no wait at all.
        assert turns.get("waited_ns", 0) > 0, f"client {who} never waited for a turn: {turns}"
        out.append(f"{who}: {want_turns} turns, {check_against_elapsed(samples, a, mode)}")
    return "; ".join(out)


def a_lone_turn_times_out(conformance: _Conformance, client: ClientWorker, server: ServerWorker) -> str:
    """A client whose turn never comes: a transport error after the turn's timeout, and it answers again."""
    with TurnPipes(1) as pipes:
        started = time.monotonic()
        answer = client.call(_run(conformance, "lone", 50, {"wait": pipes.paths[0], "give": [""], "calls": [50],
                                                             "first": False, "timeout_ms": LONE_TIMEOUT_MS}),
                             timeout=TIMEOUT_S, watch=[server])
        took = time.monotonic() - started
    assert not answer["ok"] and answer.get("error_kind") == "transport", f"answer {answer}"
    assert took >= LONE_TIMEOUT_MS / 1000, f"failed after {took:.2f} s, before its {LONE_TIMEOUT_MS} ms"
    assert client.call({"cmd": "hello"}, watch=[server])["ok"], "client no longer answers after the timeout"
    return f"{answer.get('error')} after {took:.2f} s"
