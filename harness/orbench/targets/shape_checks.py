"""check-target's steps for invocation shapes (PROTOCOL.md, "Invocation shapes"): every shape a descriptor claims
is tried with every mode and payload type it takes, and must deliver its payload and get its reply right (the
worker checks each reply: out, return and inout carry elements 1.., an exception shape gets orbench::Refused with
the request's count, an AMI run gets every reply); the server counts each call; an AMI run with N outstanding has
had N calls in flight, and through a relay that holds every reply its calls overlap.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import numpy as np

from orbench.results import shapes
from orbench.stats.stats import read_samples
from orbench.targets import relay_steps, sample_checks
from orbench.targets.descriptor import Target, counted_payload_bytes
from orbench.targets.workers import ClientWorker, ServerWorker

SHAPE_BYTES = 1000
SHAPE_CALLS = 100
SHAPE_WARMUP = 10
# The AMI shapes tried for a claim of "ami": one and several replies outstanding.
AMI_TRIED = ("ami-1", "ami-8")
# Through the relay: AMI_RELAY_CALLS calls with 8 outstanding (relay_steps.py says how far they must overlap).
AMI_RELAY_CALLS = 16


class Conformance(relay_steps.PlainRuns, Protocol):
    target: Target
    host: str
    log_dir: Path

    def _validate(self, value: dict, definition: str) -> None: ...


def tried_shapes(target: Target) -> list[str]:
    """The shape names check-target runs for the target's claims, `in` aside (the plain run steps try it)."""
    out: list[str] = []
    for kind in target.shapes:
        if kind == shapes.IN:
            continue
        out += list(AMI_TRIED) if kind == "ami" else [kind]
    return out


def shape_points(target: Target, shape: str) -> list[tuple[str, str]]:
    """(mode, payload type) of each run of a shape: every mode and payload type it takes that the target has."""
    return [(mode, ptype) for mode in target.modes for ptype in target.payload_types
            if shapes.combines(shape, mode, ptype)]


def shape_run(conformance: Conformance, client: ClientWorker, server: ServerWorker, shape: str, mode: str,
              ptype: str, size: int = SHAPE_BYTES, calls: int = SHAPE_CALLS) -> str:
    path = conformance.log_dir / f"shape-{shape}-{mode}-{ptype}.i64"
    answer = client.call({"cmd": "run", "mode": mode, "shape": shape, "payload_type": ptype, "payload_bytes": size,
                          "calls": calls, "warmup": SHAPE_WARMUP, "samples_file": str(path),
                          "sync_timeout_ms": 10000}, timeout=120, watch=[server])
    if not answer["ok"]:
        raise AssertionError(f"error answer: {answer.get('error_kind')}: {answer.get('error')}")
    conformance._validate(answer, "run_answer")
    assert answer.get("shape") == shape, f"the answer says shape {answer.get('shape')!r}, not {shape!r}"
    samples = read_samples(path)
    assert samples.size == calls, f"samples file has {samples.size} values, expected {calls}"
    assert (samples > 0).all(), "samples file has non-positive latencies"
    rx = answer["received"]
    assert rx["messages"] == calls, f"the server counted {rx['messages']} calls, expected {calls}"
    want_bytes = calls * counted_payload_bytes(ptype, size)
    assert rx["bytes"] == want_bytes, f"the server counted {rx['bytes']} bytes, expected {want_bytes}"
    outstanding = shapes.outstanding(shape)
    if shapes.kind_of(shape).name == "ami":
        assert answer.get("replies") == calls, f"{answer.get('replies')} of {calls} AMI replies arrived"
        # How many were in flight at once depends on how fast replies come; never more than asked (the relay
        # step shows that they do overlap).
        most = answer.get("outstanding_max")
        assert isinstance(most, int) and 1 <= most <= outstanding, \
            f"{most} calls were outstanding at most, the shape asks for {outstanding}"
    total, elapsed = int(samples.sum()), int(answer["elapsed_ns"])
    assert total <= sample_checks.SUM_OVER_ELAPSED_MAX * outstanding * elapsed, \
        f"the samples add up to {total} ns, more than {outstanding} x the run's elapsed_ns {elapsed}"
    return f"p50 {float(np.median(samples)) / 1000:.1f} us"


def ami_overlap(conformance: Conformance, client: ClientWorker, server: ServerWorker, delay_ns: int) -> str:
    """ami-8 through a relay that holds every reply `delay_ns`: each sample is at least the delay, and the run
    takes far less than its calls one at a time would."""
    with relay_steps.through_relay(conformance.host, conformance.target.family, client, server, delay_ns):
        one_ns = relay_steps.one_call_ns(conformance, client, server)
        path = conformance.log_dir / "shape-ami-relay.i64"
        answer = client.call({"cmd": "run", "mode": "twoway", "shape": "ami-8", "payload_type": "octets",
                              "payload_bytes": 100, "calls": AMI_RELAY_CALLS, "warmup": 0, "samples_file": str(path),
                              "sync_timeout_ms": 10000}, timeout=120, watch=[server])
        assert answer["ok"], f"error answer: {answer.get('error_kind')}: {answer.get('error')}"
        return relay_steps.check_overlap(read_samples(path), answer, AMI_RELAY_CALLS, delay_ns, "with 8 outstanding",
                                           one_ns)


# Promise pipelining through the relay that holds every reply: a pipelined call is one round trip (its median
# below PIPELINED_MAX_DELAYS x the delay), a chained one two (its median at least CHAINED_MIN_DELAYS x).
PIPELINING_RELAY_CALLS = 6
PIPELINED_MAX_DELAYS = 1.5
CHAINED_MIN_DELAYS = 2.0


def pipelining_round_trips(conformance: Conformance, client: ClientWorker, server: ServerWorker,
                           delay_ns: int) -> str:
    """pipelined and chained through a relay that holds every reply `delay_ns`: the pipelined call waits one
    delay, the chained one two; a client that does not pipeline (it waits for peer()'s reply first) fails."""
    medians = {}
    with relay_steps.through_relay(conformance.host, conformance.target.family, client, server, delay_ns):
        for shape in ("pipelined", "chained"):
            path = conformance.log_dir / f"shape-{shape}-relay.i64"
            answer = client.call({"cmd": "run", "mode": "twoway", "shape": shape, "payload_type": "octets",
                                  "payload_bytes": 100, "calls": PIPELINING_RELAY_CALLS, "warmup": 1,
                                  "samples_file": str(path), "sync_timeout_ms": 10000}, timeout=120, watch=[server])
            assert answer["ok"], f"{shape}: error answer: {answer.get('error_kind')}: {answer.get('error')}"
            medians[shape] = float(np.median(read_samples(path))) / delay_ns
    shown = f"pipelined {medians['pipelined']:.2f}, chained {medians['chained']:.2f} x the delay"
    assert medians["pipelined"] < PIPELINED_MAX_DELAYS, f"{shown}: the pipelined call waited more than one round trip"
    assert medians["chained"] >= CHAINED_MIN_DELAYS, f"{shown}: the chained calls did not take two round trips"
    return shown


def unclaimed_refused(client: ClientWorker, server: ServerWorker, log_dir: Path) -> str:
    """A shape the client does not make (its hello's `shapes`) is refused (`unsupported`), not run as another."""
    hello = client.call({"cmd": "hello"}, watch=[server])
    made = hello.get("shapes", [shapes.IN])
    unmade = [k for k in shapes.KINDS if k not in made]
    if not unmade:
        return "it makes every shape"
    name = unmade[0] if unmade[0] != "ami" else "ami-2"
    mode = shapes.kind_of(name).modes[0]
    ptype = "strings" if name == "wstring" else "octets"
    answer = client.call({"cmd": "run", "mode": mode, "shape": name, "payload_type": ptype, "payload_bytes": 16,
                          "calls": 5, "warmup": 0, "samples_file": str(log_dir / "shape-unmade.i64"),
                          "sync_timeout_ms": 5000}, watch=[server])
    assert not answer["ok"] and answer.get("error_kind") == "unsupported", \
        f"shape {name}, which the client does not make, was answered {answer}"
    return f"{name}: {answer['error'][:60]}"
