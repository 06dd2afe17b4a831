"""A campaign's settings as one typed, frozen value: every key of campaign.schema.json, its default taken from
the schema and nowhere else, its value converted once. The load dimensions are the typed LoadPlan (load.py);
every other key is a field of its own name.

`Settings.from_json` reads a campaign's data (a file's keys, or the manifest's `campaign` as a run recorded it)
and `to_json` writes it back with the schema's keys, so a manifest written by one reads back as the same value.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from orbench.campaign.duration import format_duration, parse_duration
from orbench.campaign.load import LOAD_KEYS, LoadPlan
from orbench.schemas import schema


def campaign_schema() -> dict:
    return schema("orbench.campaign", "campaign")


def schema_defaults() -> dict[str, Any]:
    """Every key's default, as campaign.schema.json says (the one home of the defaults)."""
    return {k: v["default"] for k, v in campaign_schema()["properties"].items() if "default" in v}


def _opt_float(value: Any) -> float | None:
    return None if value is None else float(value)


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True)
class Settings:
    """What a campaign runs, typed; the schema's descriptions say what each key means."""

    name: str
    description: str
    targets: tuple[str, ...]
    modes: tuple[str, ...]
    payload_types: tuple[str, ...]
    shapes: tuple[str, ...]             # invocation shapes (results/shapes.py)
    payload_bytes: tuple[int, ...]
    placements: tuple[str, ...]
    # repetitions and the stopping rule
    launches: int
    launches_for: dict[str, int]                  # by target name, descriptor or language
    trials: int
    max_trials: int
    target_ci_pct: float | None
    target_added_ci_ns: float | None
    target_added_ci_pct: float | None
    time_cap_s: float | None
    # planned repetitions and the time budget (running/planning.py)
    repetitions: str
    budget_s: float | None
    plan_from: str
    max_launches: int
    # the calls of a trial, and the warm-ups
    calls: int
    warmup: int
    jvm_warmup: int
    rewarm: int | None
    jvm_rewarm: int | None
    rewarm_modes: tuple[str, ...]   # the modes whose later trials get the rewarm; the others none
    steady_cv_pct: float | None
    steady_chunk_calls: int | None
    steady_window: int
    steady_max_calls: int | None
    steady_max_s: float | None
    steady_at: str                  # every-point or first-point: where the steady-state chunks run
    # the measurement design (running/slices.py): calls per slice, 0 = sequential; untimed calls per later slice
    slice_calls: int
    slice_rewarm: int
    slice_turns: bool                # slices as turns inside one run per client, where both clients can
    interleave_groups: bool          # one round of every group per pass, instead of group after group
    # order, pauses, timeouts, what is read around a trial
    order_seed: int | None
    pause_idle_workers: bool
    awake_cpus: bool
    sync_timeout_ms: int
    stall_timeout_s: float
    anatomy: str
    anatomy_trials: str
    anatomy_payload_bytes: tuple[int, ...]   # empty: every size
    # the profile mode (running/profiled.py)
    profile: bool
    profile_s: float
    profile_payload_bytes: tuple[int, ...]   # empty: every size
    profile_period_us: float
    # the counting mode (running/counted.py)
    count: bool
    count_calls: tuple[int, int]
    count_calls_for: dict[str, tuple[int, int]]   # by target name, descriptor or language
    count_warmup: int
    count_repeats: int
    count_rate_hz: float
    count_rate_hz_for: dict[str, float]           # by target name, descriptor or language
    # soak points
    duration_s: float | None
    interval_s: float
    arrivals_seed: int | None
    # where the workers run
    jdk: str | None
    host: str
    hosts: dict[str, Any]
    host_pairs: tuple[tuple[str, str], ...]
    concurrent_pairs: bool
    spread_clients: bool      # a pair's client side is several hosts, client k on host k mod H
    inventory: str | None
    ssh: dict[str, Any]
    # the load dimensions (clients, clients_as, rates_hz, arrivals, threading, objects, object_order, sweep)
    load: LoadPlan
    interop: tuple[tuple[str, str], ...]
    options: dict[str, Any]
    option_sets: tuple[dict[str, Any], ...]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Settings:
        """The settings of a campaign's data (checked against the schema before), the schema's defaults filled
        in."""
        d = {**schema_defaults(), **data}
        return cls(
            name=str(d["name"]), description=str(d.get("description", "")), targets=tuple(d["targets"]),
            modes=tuple(d["modes"]), payload_types=tuple(d["payload_types"]), shapes=tuple(d["shapes"]),
            payload_bytes=tuple(int(b) for b in d["payload_bytes"]), placements=tuple(d["placements"]),
            launches=int(d["launches"]),
            launches_for={str(k): int(v) for k, v in (d.get("launches_for") or {}).items()},
            trials=int(d["trials"]), max_trials=int(d["max_trials"]),
            target_ci_pct=_opt_float(d.get("target_ci_pct")),
            target_added_ci_ns=_opt_float(d.get("target_added_ci_ns")),
            target_added_ci_pct=_opt_float(d.get("target_added_ci_pct")), time_cap_s=_opt_float(d.get("time_cap_s")),
            repetitions=str(d["repetitions"]), budget_s=_budget_s(d.get("budget")), plan_from=str(d["plan_from"]),
            max_launches=int(d["max_launches"]),
            calls=int(d["calls"]), warmup=int(d["warmup"]), jvm_warmup=int(d["jvm_warmup"]),
            rewarm=_opt_int(d.get("rewarm")), jvm_rewarm=_opt_int(d.get("jvm_rewarm")),
            rewarm_modes=tuple(d["modes"] if d.get("rewarm_modes") is None else d["rewarm_modes"]),
            steady_cv_pct=_opt_float(d.get("steady_cv_pct")), steady_chunk_calls=_opt_int(d.get("steady_chunk_calls")),
            steady_window=int(d["steady_window"]), steady_max_calls=_opt_int(d.get("steady_max_calls")),
            steady_max_s=_opt_float(d.get("steady_max_s")), steady_at=str(d["steady_at"]),
            slice_calls=int(d["slice_calls"]), slice_rewarm=int(d["slice_rewarm"]),
            slice_turns=bool(d["slice_turns"]),
            interleave_groups=bool(d["interleave_groups"]),
            order_seed=_opt_int(d.get("order_seed")), pause_idle_workers=bool(d["pause_idle_workers"]),
            awake_cpus=bool(d["awake_cpus"]),
            sync_timeout_ms=int(d["sync_timeout_ms"]), stall_timeout_s=float(d["stall_timeout_s"]),
            anatomy=str(d["anatomy"]), anatomy_trials=str(d["anatomy_trials"]),
            anatomy_payload_bytes=tuple(int(b) for b in d.get("anatomy_payload_bytes") or ()),
            profile=bool(d["profile"]), profile_s=float(d["profile_s"]),
            profile_payload_bytes=tuple(int(b) for b in d.get("profile_payload_bytes") or ()),
            profile_period_us=float(d["profile_period_us"]),
            count=bool(d["count"]), count_calls=(int(d["count_calls"][0]), int(d["count_calls"][1])),
            count_calls_for={str(k): (int(v[0]), int(v[1]))
                                     for k, v in (d.get("count_calls_for") or {}).items()},
            count_warmup=int(d["count_warmup"]), count_repeats=int(d["count_repeats"]),
            count_rate_hz=float(d["count_rate_hz"]),
            count_rate_hz_for={str(k): float(v) for k, v in (d.get("count_rate_hz_for") or {}).items()},
            duration_s=_opt_float(d.get("duration_s")), interval_s=float(d["interval_s"]),
            arrivals_seed=_opt_int(d.get("arrivals_seed")),
            jdk=d.get("jdk"), host=str(d["host"]), hosts=dict(d["hosts"]),
            host_pairs=tuple((str(p[0]), str(p[1])) for p in d["host_pairs"]),
            concurrent_pairs=bool(d["concurrent_pairs"]), spread_clients=bool(d.get("spread_clients", False)),
            inventory=d.get("inventory"), ssh=dict(d["ssh"]),
            load=LoadPlan.from_settings(d), interop=tuple((str(p[0]), str(p[1])) for p in d["interop"]),
            options=dict(d["options"]), option_sets=tuple(dict(s) for s in d["option_sets"]))

    def reads_anatomy(self, payload_bytes: int, trial: int, launch: int) -> bool:
        """Whether a latency trial reads the anatomy counters: at the sizes of anatomy_payload_bytes (all if none),
        every trial, the first round of each group in each launch ("first-round"), or in the first launch only
        ("first-launch"). Such a trial runs sequentially (its counters are its target's alone), not in slices."""
        if self.anatomy == "off" or (self.anatomy_payload_bytes and payload_bytes not in self.anatomy_payload_bytes):
            return False
        if self.anatomy_trials == "first-round":
            return trial == 0
        if self.anatomy_trials == "first-launch":
            return trial == 0 and launch == 0
        return True

    def to_json(self) -> dict[str, Any]:
        """The schema's keys and values (None left out, as a file leaves a key out), for the manifest."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "load":
                out.update(value.to_settings())
            elif f.name == "budget_s":
                if value is not None:
                    out["budget"] = format_duration(value)
            elif value is not None:
                out[f.name] = _plain(value)
        return out

    def replace(self, **changes: Any) -> Settings:
        return replace(self, **changes)

    # -- what several layers derive from the keys --------------------------------------------------------------
    @property
    def is_soak(self) -> bool:
        return self.duration_s is not None

    @property
    def has_precision_target(self) -> bool:
        return any(t is not None for t in (self.target_ci_pct, self.target_added_ci_ns, self.target_added_ci_pct))

    @property
    def is_planned(self) -> bool:
        """Repetitions chosen from the variance and cost of each level (running/planning.py): asked for, or
        implied by a time budget."""
        return self.repetitions == "planned" or self.budget_s is not None


def setting_keys() -> set[str]:
    """The schema keys Settings holds: what tests check against campaign.schema.json."""
    names = {f.name for f in fields(Settings)} - {"load", "budget_s"}
    return names | set(LOAD_KEYS) | {"budget"}


def _budget_s(value: Any) -> float | None:
    return None if value is None else parse_duration(value)


def _plain(value: Any) -> Any:
    """Tuples as JSON lists, all the way down."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
