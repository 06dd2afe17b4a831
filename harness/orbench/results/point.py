"""A point: one measured combination of a campaign's dimensions and one target. Its trials are what the harness
runs, stores, pairs and summarises; every reader of results keys by it.

`PointGroup` is a point without its target: the targets of one group run interleaved, and an ORB pairs with its
baseline within one group. `Point` is a group and a target.

A dimension is declared once, as a field below; everything else derives from the fields: the trials.csv and
samples.csv columns, the file-name slug, the label in tables and figures, reading a point back from a record
(a trials.csv row, a summary.json point, a stopping record), and what an older run that lacks a column means
(the field's default: that dimension was not varied). Adding a dimension is adding a field here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# An interop target (a client of one target against the server of another) is named "client->server".
INTEROP_SEPARATOR = "->"


def interop_label(client: str, server: str) -> str:
    """The target name of a client of one target against the server of another: "jacorb->omniorb"."""
    return f"{client}{INTEROP_SEPARATOR}{server}"


def interop_sides(name: str) -> tuple[str, str] | None:
    """(client target, server target) of an interop target name, None for a plain target name."""
    if INTEROP_SEPARATOR not in name:
        return None
    client, server = name.split(INTEROP_SEPARATOR, 1)
    return client, server


def path_safe(name: str) -> str:
    """A target name fit for a file or directory name ("jacorb->omniorb" -> "jacorb_to_omniorb")."""
    return name.replace(INTEROP_SEPARATOR, "_to_")


def _number(value: float) -> str:
    return f"{value:g}"


def dim(default: Any = dataclasses.MISSING, *, text: Callable[[Any], str] = str,
        slug: Callable[[Any], str] | None = None, shown: Callable[[Any], bool] | None = None) -> Any:
    """A dimension of a point. `default`: the value of a run that did not vary it (and of an older run that did
    not record it); a dimension at its default is left out of labels and slugs. `text`: how its value reads in
    a label; `slug`: in a file name (default: like text); `shown`: whether a label shows it (default: unless it
    is the default)."""
    return field(default=default, metadata={"text": text, "slug": slug or text, "shown": shown})


@dataclass(frozen=True, order=True, kw_only=True)
class PointGroup:
    """Everything that identifies a point but the target. Field order is the order of labels, slugs, CSV
    columns and sorting."""

    host_pair: str = dim("local")      # the HostPair label: "local", or "<server host>--<client host>"
    placement: str = dim()             # CPU placement of the two workers (hosts/placement.py)
    options: str = dim("")             # the option set's label (targets/options.option_label); "" for none
    # The server's concurrency setting (a descriptor's [threading] name, "pool-16"; "default": as shipped) and
    # how many objects it serves: both server arguments, so each value gets workers of its own.
    threading: str = dim("default")
    objects: int = dim(1, text=lambda v: f"{v} objects", slug=lambda v: f"o{v}")
    object_order: str = dim("round-robin")                         # or "random" (PROTOCOL.md, "Load at scale")
    mode: str = dim()                  # twoway, oneway, echo
    # How the call is made or what it carries besides the `in` argument (PROTOCOL.md, "Invocation shapes"): in,
    # out, inout, return, exception, wstring, dii, dsi, collocated, ami-N (N replies outstanding).
    shape: str = dim("in")
    payload_type: str = dim(shown=lambda v: v != "octets")
    payload_bytes: int = dim(text=lambda v: f"{v} B", slug=lambda v: f"{v}B")
    clients: int = dim(1, text=lambda v: f"c{v}")                  # clients against the one server
    clients_as: str = dim("processes")                             # "threads": N threads of one client process
    rate_hz: float = dim(0.0, text=lambda v: f"r{_number(v)}")    # calls/s per client; 0 = closed loop
    arrivals: str = dim("fixed")                                   # at a rate: "fixed" or "poisson" spacing
    # A step of a load sweep: the offered load as a fraction of the target's closed-loop capacity measured in
    # the same launch (running/sweep.py); 0: not a sweep step.
    offered_load: float = dim(0.0, text=lambda v: f"offered {_number(v)}x", slug=lambda v: f"l{_number(v)}")

    @classmethod
    def dimensions(cls) -> list[str]:
        """The group's field names, in order."""
        return [f.name for f in dataclasses.fields(PointGroup)]

    @classmethod
    def columns(cls) -> list[str]:
        """The record keys (trials.csv and samples.csv columns) of this type's fields, in order."""
        return [f.name for f in dataclasses.fields(cls)]

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Any:
        """The point (or group) a record describes: a trials.csv row, a summary.json point, a stopping record.
        A key the record lacks is that dimension's default; a required one missing raises KeyError."""
        values = {}
        for f in dataclasses.fields(cls):
            if f.name in record and record[f.name] not in ("", None):
                try:
                    values[f.name] = _typed(f, record[f.name])
                except ValueError:
                    raise ValueError(f"column {f.name}: {record[f.name]!r} is not {_TYPE_WORDS[str(f.type)]}") from None
            elif f.default is dataclasses.MISSING:
                raise KeyError(f"no value for {f.name!r}")
        return cls(**values)

    def as_record(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def _parts(self, how: str, only: tuple[str, ...] = ()) -> list[str]:
        out = []
        for f in dataclasses.fields(self):
            if only and f.name not in only:
                continue
            value = getattr(self, f.name)
            shown = f.metadata["shown"]
            default_shown = f.default is dataclasses.MISSING or value != f.default
            if (shown(value) if shown and how == "text" else default_shown):
                out.append(f.metadata[how](value))
        return out

    @property
    def slug(self) -> str:
        """A file-name-safe name, unique per point: "same-core-twoway-octets-1000B-omniorb",
        "alpha--beta-same-core-tcp_nodelay=false-twoway-octets-64B-c4-r1000-jacorb_to_omniorb"."""
        return "-".join(self._parts("slug"))

    @property
    def label(self) -> str:
        """How tables and figures name it: "same-core twoway 1000 B omniorb"."""
        return " ".join(self._parts("text"))

    def label_of(self, *names: str) -> str:
        """The label of some dimensions only, e.g. label_of("host_pair", "placement", "options") for a table's
        first column."""
        return " ".join(self._parts("text", names))

    def slug_of(self, *names: str) -> str:
        return "-".join(self._parts("slug", names))

    def replace(self, **changes: Any) -> Any:
        return dataclasses.replace(self, **changes)

    def with_target(self, target: str) -> Point:
        return Point(**self.as_record(), target=target)

    @property
    def load_label(self) -> str:
        """"" for one closed-loop client, else e.g. "c4", "r1000", "c16 threads poisson offered 0.8x"."""
        return self.label_of("clients", "clients_as", "rate_hz", "arrivals", "offered_load")

    def without_load(self) -> Any:
        """The point without its load shape (one closed-loop client, no rate, no sweep step): what a sweep's
        probe, reference and steps share, and what a target's capacities are reported per."""
        return self.replace(clients=1, clients_as="processes", rate_hz=0.0, arrivals="fixed", offered_load=0.0)

    @property
    def is_base_load(self) -> bool:
        return self.clients == 1 and not self.rate_hz and not self.offered_load

    @property
    def is_sweep_step(self) -> bool:
        return self.offered_load > 0

    @property
    def on_one_cpu(self) -> bool:
        """Client and server pinned to one CPU of this host (hosts/placement.py's same-core, host pair local):
        a call hands over without waking an idle CPU, so a slow stretch of calls is the host's speed."""
        return self.placement == "same-core" and self.host_pair == "local"

    @property
    def server_setting(self) -> tuple[str, int]:
        """What its server is started with beyond the option set: (threading, objects)."""
        return self.threading, self.objects


@dataclass(frozen=True, order=True, kw_only=True)
class Point(PointGroup):
    """One group and one target: what one trial measures."""

    target: str = dim(slug=path_safe)
    # A baseline's sweep step run at a middleware's offered rate (that middleware's share of its own capacity, in
    # the same launch and step) so the two pair at the same offered load (running/sweep.py); "": its own rate.
    load_of: str = dim("", text=lambda v: f"at {v}'s rate", slug=lambda v: f"at-{path_safe(v)}")

    @property
    def workers_slug(self) -> str:
        """Names the log files of the workers that measured this point: one set of workers serves one host
        pair, placement, option set and target ("same-core-omniorb", "alpha--beta-same-core-jacorb")."""
        return self.slug_of("host_pair", "placement", "options", "target")

    @property
    def group(self) -> PointGroup:
        return PointGroup(**{name: getattr(self, name) for name in PointGroup.dimensions()})

    @property
    def own_load(self) -> bool:
        """Whether the point ran at its own load, not at a middleware's rate beside it (load_of)."""
        return not self.load_of

    def without(self, *names: str) -> PointSlice:
        """The point with some dimensions left open: what one figure or table section shows, e.g.
        point.without("payload_bytes", "target") is one latency-vs-payload figure."""
        return PointSlice(tuple((f.name, getattr(self, f.name)) for f in dataclasses.fields(self)
                                if f.name not in names), self)


@dataclass(frozen=True, order=True)
class PointSlice:
    """Some dimensions of a point (the others left open). Labels and slugs as a Point's, over these only."""

    values: tuple[tuple[str, Any], ...]
    of: Point = field(compare=False, repr=False)

    def __getitem__(self, name: str) -> Any:
        return dict(self.values)[name]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.values)

    @property
    def label(self) -> str:
        return self.of.label_of(*self.names)

    @property
    def slug(self) -> str:
        return self.of.slug_of(*self.names)


_TYPE_WORDS = {"str": "text", "int": "an integer", "float": "a number"}


def _typed(f: dataclasses.Field, value: Any) -> Any:
    kind = {"str": str, "int": int, "float": float}[str(f.type)]
    if kind is int:
        return int(float(value)) if isinstance(value, str) else int(value)
    return kind(value)
