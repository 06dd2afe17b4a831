"""The load dimensions of a campaign as one typed value: how many clients and how they are made, fixed rates,
the server's threading settings and objects, and the load sweep (running/sweep.py runs it).

A load shape is what one point group's clients do: (clients, clients_as, rate_hz, arrivals, offered_load). The
sweep adds, per point, its probe (closed loop at the sweep's clients: the capacity the steps offer fractions
of), the unloaded reference (one client, closed loop: what an SLO of "10x" multiplies) and one shape per step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# The offered loads of a sweep, as fractions of the target's closed-loop capacity measured in the same launch:
# light load, then ever closer steps towards capacity and past it, where an open loop's queue grows without
# bound. A target's sweep stops early once its latency has run away (running/sweep.py), so the steps beyond
# cost nothing; the absolute rates come from each launch's own probe, never from the campaign file.
SWEEP_LOADS = (0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.87, 0.93, 1.0, 1.1, 1.25)
# The modes a sweep applies to: a oneway call's client-side time is not a latency a load could raise.
SWEEP_MODES = ("twoway", "echo")
_UNITS_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
# The campaign keys a LoadPlan holds (to_settings writes them back).
LOAD_KEYS = ("clients", "clients_as", "rates_hz", "arrivals", "threading", "objects", "object_order", "sweep")


@dataclass(frozen=True)
class Slo:
    """A p99 bound: absolute (ns) or a multiple of the unloaded p50."""

    text: str
    p99_ns: float | None = None
    p99_multiple: float | None = None

    @classmethod
    def parse(cls, text: str) -> Slo:
        match = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(x|ns|us|ms|s)", text)
        if match is None:
            raise ValueError(f"{text!r} is not a p99 bound (\"2ms\", \"500us\", \"10x\")")
        value, unit = float(match.group(1)), match.group(2)
        if value <= 0:
            raise ValueError(f"{text!r}: the bound must be above 0")
        return cls(text, p99_multiple=value) if unit == "x" else cls(text, p99_ns=value * _UNITS_NS[unit])

    def bound_ns(self, unloaded_p50_ns: float | None) -> float | None:
        """The bound in ns; None when it is relative and the unloaded p50 is unknown."""
        if self.p99_ns is not None:
            return self.p99_ns
        return None if unloaded_p50_ns is None else self.p99_multiple * unloaded_p50_ns


@dataclass(frozen=True)
class Sweep:
    """The campaign's [sweep] table."""

    clients: int
    clients_as: str
    arrivals: tuple[str, ...]
    slo: Slo
    step_calls: int      # timed calls of one step, all clients together
    step_min_s: float
    loads: tuple[float, ...] = SWEEP_LOADS
    # The server settings the sweep runs at (None: every one); a sweep per setting multiplies the run's length.
    threading: tuple[str, ...] | None = None
    objects: tuple[int, ...] | None = None
    # Each middleware's steps paired with its baseline's at the same offered rate (running/sweep.py).
    paired: bool = True

    def applies(self, threading: str, objects: int) -> bool:
        return ((self.threading is None or threading in self.threading)
                and (self.objects is None or objects in self.objects))

    def step_calls_per_client(self, rate_hz: float) -> int:
        """Each client's timed calls at one step whose clients offer `rate_hz` in all."""
        total = max(self.step_calls, rate_hz * self.step_min_s)
        return max(1, int(-(-total // self.clients)))


@dataclass(frozen=True)
class LoadShape:
    """What a point group's clients do."""

    clients: int
    clients_as: str
    rate_hz: float
    arrivals: str = "fixed"
    offered_load: float = 0.0


@dataclass(frozen=True)
class LoadPlan:
    clients: tuple[int, ...]
    clients_as: tuple[str, ...]
    rates_hz: tuple[float, ...]
    threading: tuple[str, ...]
    objects: tuple[int, ...]
    object_order: str
    sweep: Sweep | None
    arrivals: str = "fixed"   # the send times of rates_hz points (and soaks): "fixed" or "poisson"

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> LoadPlan:
        raw = settings.get("sweep")
        sweep = None
        if raw is not None:
            sweep = Sweep(clients=int(raw.get("clients", 16)), clients_as=raw.get("clients_as", "threads"),
                          arrivals=tuple(raw.get("arrivals", ["poisson"])),
                          slo=Slo.parse(raw.get("slo_p99", "10x")), step_calls=int(raw.get("step_calls", 3000)),
                          step_min_s=float(raw.get("step_min_s", 0.5)),
                          threading=tuple(raw["threading"]) if "threading" in raw else None,
                          objects=tuple(int(k) for k in raw["objects"]) if "objects" in raw else None,
                          paired=bool(raw.get("paired", True)))
        return cls(clients=tuple(sorted(settings["clients"])), clients_as=tuple(settings["clients_as"]),
                   rates_hz=tuple(float(r) for r in settings["rates_hz"]), threading=tuple(settings["threading"]),
                   objects=tuple(settings["objects"]), object_order=settings["object_order"], sweep=sweep,
                   arrivals=settings.get("arrivals", "fixed"))

    def to_settings(self) -> dict[str, Any]:
        """The campaign keys of this plan, as from_settings reads them (no sweep key without a sweep)."""
        out: dict[str, Any] = {"clients": list(self.clients), "clients_as": list(self.clients_as),
                               "rates_hz": list(self.rates_hz), "arrivals": self.arrivals,
                               "threading": list(self.threading), "objects": list(self.objects),
                               "object_order": self.object_order}
        if self.sweep is not None:
            s = self.sweep
            out["sweep"] = {"clients": s.clients, "clients_as": s.clients_as, "arrivals": list(s.arrivals),
                            "slo_p99": s.slo.text, "step_calls": s.step_calls, "step_min_s": s.step_min_s,
                            "paired": s.paired}
            if s.threading is not None:
                out["sweep"]["threading"] = list(s.threading)
            if s.objects is not None:
                out["sweep"]["objects"] = list(s.objects)
        return out

    def shapes(self, mode: str, threading: str = "default", objects: int = 1) -> list[LoadShape]:
        """Every load shape of a mode at one server setting, in run order: clients outermost (extra client
        workers start once), the sweep's steps last in rising order (running/sweep.py needs each step's
        predecessors first) where the sweep runs at that setting."""
        out: list[LoadShape] = []
        for n in self.clients:
            for how in (("processes",) if n == 1 else self.clients_as):
                out += [LoadShape(n, how, r, self.arrivals if r else "fixed") for r in self.rates_hz]
        if self.sweep is not None and mode in SWEEP_MODES and self.sweep.applies(threading, objects):
            s = self.sweep
            for extra in (LoadShape(1, "processes", 0.0), LoadShape(s.clients, s.clients_as if s.clients > 1
                                                                    else "processes", 0.0)):
                if extra not in out:
                    out.append(extra)
            how = s.clients_as if s.clients > 1 else "processes"
            out += [LoadShape(s.clients, how, 0.0, arrivals, load) for arrivals in s.arrivals for load in s.loads]
        return out

    def server_settings(self) -> list[tuple[str, int]]:
        """(threading, objects) in run order: each gets server workers of its own."""
        return [(t, k) for t in self.threading for k in self.objects]
