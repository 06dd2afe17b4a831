"""Campaign files: TOML validated against campaign.schema.json before anything runs, then expanded into points.

Every mistake names the file, the key and the value, so a typo never starts a half-hour run.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from orbench.campaign.duration import parse_duration
from orbench.campaign.hosts import (
    check_ssh_files,
    resolve_host_pairs,
    resolve_inventory_path,
    resolve_ssh_paths,
    ssh_settings,
)
from orbench.campaign.interop import resolve_interop
from orbench.campaign.load import LoadPlan
from orbench.campaign.settings import Settings, campaign_schema, schema_defaults
from orbench.errors import UserError
from orbench.hosts.jdk import Jdk, resolve_jdk
from orbench.hosts.ssh import HostPair, SshSettings
from orbench.results import shapes
from orbench.results.point import PointGroup
from orbench.schemas import check, read_toml
from orbench.targets.descriptor import Target, parse_instance, read_targets
from orbench.targets.options import OptionPlan, option_label, plan_options

V = TypeVar("V")
# Settings that give some targets a value of their own, keyed by a target's name, its descriptor or its language.
BY_TARGET_KEYS = ("launches_for", "count_calls_for", "count_rate_hz_for")


@dataclass
class Campaign:
    path: Path
    settings: Settings
    targets: list[Target]
    added_baselines: list[str] = field(default_factory=list)
    jdk: Jdk | None = None   # the `jdk` key resolved; None: the default JVM (ORBENCH_JAVA, JAVA_HOME, PATH)

    @property
    def name(self) -> str:
        return self.settings.name

    @property
    def is_soak(self) -> bool:
        """Every point a soak point: one run of duration_s per target and launch, a histogram per interval_s."""
        return self.settings.is_soak

    def with_settings(self, **changes: Any) -> Campaign:
        """The same campaign with some settings changed (a drawn order seed, --anatomy, a plan's launches)."""
        return replace(self, settings=self.settings.replace(**changes))

    @staticmethod
    def for_target(by_target: Mapping[str, V], target: Target, default: V) -> V:
        """A BY_TARGET_KEYS setting's value for the target: for its name, its descriptor or its language, the
        first it names, else `default`."""
        return next((by_target[k] for k in (target.name, target.descriptor, target.language) if k in by_target),
                    default)

    def launches_of(self, target: Target, run_launches: int | None = None) -> int:
        """The launches a target's workers run in (the first ones): launches_for's, else `launches`. Under planned
        repetitions every launch of the run (`run_launches`, which the plan sets; `launches` before it is known)."""
        s = self.settings
        if s.is_planned:
            return s.launches if run_launches is None else run_launches
        return self.for_target(s.launches_for, target, s.launches)

    @property
    def most_launches(self) -> int:
        """The run's launches: the most any target runs in."""
        return max([self.settings.launches, *(self.launches_of(t) for t in self.targets)])

    def warmup_for(self, target: Target, first: bool = True, mode: str | None = None) -> int:
        """Warm-up calls before a trial: the full warm-up before the first trial a worker runs at a point,
        `rewarm` (`jvm_rewarm`) before the later ones of a mode in `rewarm_modes`, none before the others'."""
        s = self.settings
        full = s.jvm_warmup if target.is_jvm else s.warmup
        if first:
            return full
        if mode is not None and mode not in s.rewarm_modes:
            return 0
        later = s.jvm_rewarm if target.is_jvm else s.rewarm
        return full if later is None else later

    @property
    def load_plan(self) -> LoadPlan:
        """The load dimensions (clients, rates, threading, objects, the sweep) as one typed value."""
        return self.settings.load

    def point_groups(self, host_pair: str = "local", options: str = "") -> list[PointGroup]:
        """Every point group of one host pair and option set, in run order: per placement, per server setting
        (threading, objects: each gets its own server), per load shape (clients outermost, so extra client
        workers start once; a sweep's steps last), then mode, invocation shape, payload type, payload size; a
        shape only with the modes and payload types it takes (results/shapes.py: wstring at strings)."""
        plan = self.load_plan
        return [
            PointGroup(host_pair=host_pair, placement=pl, options=options, threading=threading, objects=objects,
                       object_order=plan.object_order if objects > 1 else "round-robin", mode=mode,
                       shape=call_shape, payload_type=pt, payload_bytes=size, clients=shape.clients, clients_as=shape.clients_as,
                       rate_hz=shape.rate_hz, arrivals=shape.arrivals, offered_load=shape.offered_load)
            for pl in self.settings.placements
            for (threading, objects) in plan.server_settings()
            for mode in self.settings.modes
            for call_shape in self.settings.shapes
            for shape in plan.shapes(mode, threading, objects)
            for pt in shapes.payload_types_of(call_shape, self.settings.payload_types, self.settings.shapes)
            if shapes.combines(call_shape, mode, pt)
            for size in self.settings.payload_bytes
        ]

    def option_labels(self) -> list[str]:
        return [option_label(s) for s in self.option_sets()]

    def unsupported(self, target: Target, mode: str, payload_type: str) -> str | None:
        if mode not in target.modes:
            return f"{target.name} does not support mode {mode}"
        if payload_type not in target.payload_types:
            return f"{target.name} does not support payload type {payload_type}"
        return None

    def unsupported_load(self, target: Target, point: PointGroup) -> str | None:
        """Why the target cannot make the point's invocation shape or its clients (N threads of one process), or
        None."""
        if point.shape != shapes.IN:
            if why := target.shape_unsupported(point.shape):
                return why
            if point.clients > 1 or point.rate_hz or point.objects > 1:
                return f"shape {point.shape} is measured with one closed-loop client on one object"
        if point.clients > 1 and point.clients_as == "threads" and not target.client_threads:
            if target.language == "python":
                return (f"{target.name} makes no calls on threads: CPython's threads take turns at the interpreter "
                        "lock, so they would measure the lock, not the middleware")
            return f"{target.name} does not make its calls on threads (its descriptor claims no client_threads)"
        return None

    def connect_options(self, target: Target) -> dict[str, Any]:
        """The [options] a target takes at connect (those it lists); option_sets are planned by option_plan."""
        return {k: v for k, v in self.settings.options.items() if k in target.options}

    def option_sets(self) -> list[dict[str, Any]]:
        """Every option set, merged over [options], in run order."""
        return [{**self.settings.options, **s} for s in self.settings.option_sets]

    def option_plan(self, target: Target, option_set: dict[str, Any]) -> OptionPlan:
        return plan_options(target, option_set)

    def host_pairs(self) -> list[HostPair]:
        return resolve_host_pairs(self.path, self.settings.to_json())

    def ssh_settings(self) -> SshSettings:
        return ssh_settings(self.settings.ssh)

    def as_run(self) -> dict[str, Any]:
        """The campaign exactly as run (defaults filled in), for the manifest."""
        run = {**self.settings.to_json(), "source_file": str(self.path), "added_baselines": self.added_baselines}
        if self.jdk is not None:
            run["jdk_resolved"] = self.jdk.as_dict()
        return run


def read_campaign(path: Path | str, targets: dict[str, Target] | None = None, jdk: str | None = None) -> Campaign:
    """`jdk` (from `orbench run --jdk`) overrides the file's `jdk` key."""
    path = Path(path)
    return campaign_from_data(path, read_toml(path, "campaign file"), targets, jdk)


def campaign_from_manifest(manifest: dict, run_dir: Path) -> Campaign:
    """The campaign exactly as a run recorded it (for --resume: the file may have changed since)."""
    data = dict(manifest.get("campaign") or {})
    source = Path(data.pop("source_file", run_dir / "manifest.json"))
    data.pop("added_baselines", None)
    data.pop("jdk_resolved", None)  # recorded by as_run(); the `jdk` key is resolved again
    campaign = campaign_from_data(source, data)
    campaign.added_baselines = list((manifest.get("campaign") or {}).get("added_baselines", []))
    return campaign


def campaign_from_data(path: Path, data: dict, targets: dict[str, Target] | None = None,
                       jdk: str | None = None) -> Campaign:
    """`jdk` (from `orbench run --jdk`) overrides the data's `jdk` key."""
    rules = campaign_schema()
    check(path, data, rules)
    settings = {**schema_defaults(), **data}
    settings.setdefault("description", "")
    settings["ssh"] = resolve_ssh_paths(path, settings["ssh"])
    resolve_inventory_path(path, settings)
    check_ssh_files(path, settings["ssh"], resolve_host_pairs(path, settings))

    stops = ("target_ci_pct", "target_added_ci_ns", "target_added_ci_pct")
    if any(settings.get(k) is not None for k in stops) and settings["max_trials"] < settings["trials"]:
        raise UserError(f"{path}: key max_trials: value {settings['max_trials']} is below trials "
                        f"({settings['trials']}), the minimum the stopping rule runs")
    for key in ("profile_payload_bytes", "anatomy_payload_bytes"):
        outside = [b for b in settings.get(key) or [] if b not in settings["payload_bytes"]]
        if outside:
            raise UserError(f"{path}: key {key}: value {outside[0]} is not one of payload_bytes "
                            f"({settings['payload_bytes']})")
    for key, runs in [("count_calls", settings["count_calls"]),
                      *((f"count_calls_for.{k}", v) for k, v in settings["count_calls_for"].items())]:
        if runs[1] <= runs[0]:
            raise UserError(f"{path}: key {key}: value {runs}: the second run must have more calls than the first")
    resolved_jdk = None
    if jdk is not None:
        settings["jdk"] = jdk
        resolved_jdk = resolve_jdk(jdk, "--jdk")
    elif "jdk" in settings:
        resolved_jdk = resolve_jdk(settings["jdk"], f"{path}: key jdk")

    targets = targets if targets is not None else read_targets()
    chosen: list[Target] = []
    for i, name in enumerate(settings["targets"]):
        try:
            descriptor, value = parse_instance(name)
        except ValueError as exc:
            raise UserError(f"{path}: key targets[{i}]: {exc}") from None
        if descriptor not in targets:
            close = difflib.get_close_matches(descriptor, list(targets), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UserError(
                f"{path}: key targets[{i}]: unknown target {name!r}{hint}; known: {', '.join(sorted(targets))}"
            )
        if value is not None and targets[descriptor].parameter is None:
            raise UserError(f"{path}: key targets[{i}]: target {descriptor!r} takes no parameter, so {name!r} "
                            "means nothing")
        target = targets[descriptor] if value is None else targets[descriptor].with_parameter(value)
        if target.name in [c.name for c in chosen]:
            raise UserError(f"{path}: key targets[{i}]: {name!r} is named twice")
        chosen.append(target)
    if settings.get("duration_s") is not None:
        _check_soak(path, settings)
    added = []
    for t in list(chosen):
        if settings.get("duration_s") is not None:
            break  # a soak compares nothing with a baseline
        if t.baseline and t.baseline not in [c.name for c in chosen]:
            chosen.append(targets[t.baseline])
            added.append(t.baseline)
    if resolved_jdk is not None:
        chosen = [t.with_java(resolved_jdk.java) for t in chosen]
    settings["targets"] = [t.name for t in chosen]
    labels: dict[str, int] = {}
    for i, option_set in enumerate(settings["option_sets"]):
        label = option_label({**settings["options"], **option_set})
        if label in labels:
            raise UserError(f"{path}: key option_sets[{i}]: value {option_set!r} is the same set as "
                            f"option_sets[{labels[label]}] ({label or 'no options'}) once merged over [options]")
        labels[label] = i
    if settings["interop"]:
        by_name = {**targets, **{t.name: t for t in chosen}}
        if resolved_jdk is not None:
            by_name = {n: t.with_java(resolved_jdk.java) for n, t in by_name.items()}
        chosen += resolve_interop(path, settings["interop"], by_name)
    _check_by_target(path, settings, chosen)
    _check_threading(path, settings, chosen)
    _check_sweep_settings(path, settings)
    _check_shapes(path, settings)
    for t in chosen:
        if not any(m in t.modes for m in settings["modes"]):
            raise UserError(
                f"{path}: key modes: target {t.name} supports none of {settings['modes']} (it does {list(t.modes)})"
            )
    if settings.get("budget") is not None:
        try:
            parse_duration(settings["budget"])
        except ValueError as exc:
            raise UserError(f"{path}: key budget: {exc}") from None
    return Campaign(path=path, settings=Settings.from_json(settings), targets=chosen, added_baselines=added,
                    jdk=resolved_jdk)


def _check_by_target(path: Path, settings: dict[str, Any], chosen: list[Target]) -> None:
    """Every key of a BY_TARGET_KEYS setting names a target of the campaign, its descriptor or its language (a
    misspelt one would otherwise be left unused without a word)."""
    names = {n for t in chosen for n in (t.name, t.descriptor, t.language)}
    for setting in BY_TARGET_KEYS:
        for key in settings[setting]:
            if key not in names:
                raise UserError(f"{path}: key {setting}.{key}: names no target of the campaign, no descriptor and "
                                f"no language of one (known: {', '.join(sorted(names))})")


def _check_shapes(path: Path, settings: dict[str, Any]) -> None:
    """Every shape must make a point with some mode and payload type of the campaign."""
    for i, name in enumerate(settings["shapes"]):
        try:
            shapes.check_shape(name)
        except ValueError as exc:
            raise UserError(f"{path}: key shapes[{i}]: {exc}") from None
        types = shapes.payload_types_of(name, settings["payload_types"], settings["shapes"])
        if not any(shapes.combines(name, m, pt) for m in settings["modes"] for pt in types):
            kind = shapes.kind_of(name)
            types = f" and payload types {list(kind.payload_types)}" if kind.payload_types else ""
            raise UserError(f"{path}: key shapes[{i}]: value {name!r} takes modes {list(kind.modes)}{types}; "
                            f"the campaign has modes {settings['modes']} and payload types "
                            f"{settings['payload_types']}")


def _check_threading(path: Path, settings: dict[str, Any], targets: list[Target]) -> None:
    """Every threading setting other than default must be one that some middleware of the campaign offers: a
    typo would otherwise skip every middleware at it, each with a reason, after the run started."""
    for i, name in enumerate(settings["threading"]):
        if name == "default":
            continue
        offering = []
        for t in targets:
            try:
                t.threading_choice(name)
                offering.append(t.name)
            except UserError:
                pass
        if not any(t.kind == "orb" and t.name in offering for t in targets):
            offered = sorted({n for t in targets if t.kind == "orb" for n in t.threading_names(0)})
            raise UserError(f"{path}: key threading[{i}]: value {name!r}: no middleware of the campaign has this "
                            f"setting (they offer: {', '.join(offered).replace('-0', '-SIZE') or 'none'})")


def _check_sweep_settings(path: Path, settings: dict[str, Any]) -> None:
    """The sweep's threading and objects must be among the campaign's: else the sweep would silently not run."""
    sweep = settings.get("sweep") or {}
    for key in ("threading", "objects"):
        for i, value in enumerate(sweep.get(key, [])):
            if value not in settings[key]:
                raise UserError(f"{path}: key sweep.{key}[{i}]: value {value!r} is not in the campaign's {key} "
                                f"{settings[key]}")


def _check_soak(path: Path, settings: dict[str, Any]) -> None:
    """What a soak point needs beyond the schema: an interval within the duration, a rate for Poisson arrivals,
    one client for oneway (harness/PROTOCOL.md, "Soak runs")."""
    if settings["interval_s"] > settings["duration_s"]:
        raise UserError(f"{path}: key interval_s: value {settings['interval_s']:g} is longer than duration_s "
                        f"({settings['duration_s']:g})")
    if settings["arrivals"] == "poisson" and not all(r > 0 for r in settings["rates_hz"]):
        raise UserError(f"{path}: key arrivals: value 'poisson' needs every rates_hz above 0")
    if "oneway" in settings["modes"] and max(settings["clients"]) > 1:
        raise UserError(f"{path}: key clients: a oneway soak takes one client (harness/PROTOCOL.md, \"Soak runs\")")
