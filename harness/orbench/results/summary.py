"""summary.json: per target x mode x payload x placement statistics of a run, from its raw samples only.

It can always be recomputed (`orbench summarize RUN`) since it reads nothing but the run directory.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np

from orbench.results import equivalence, stats
from orbench.results.point import Point, PointGroup
from orbench.results.sections import add_interop_comparison, load_section
from orbench.results.store import SCHEMA_VERSION, RunStore, write_json_atomic
from orbench.results.trial import Trial

# Trials of one point whose p50s differ by more than this (max-min over median) are flagged: the machine was
# not steady enough for small differences between targets to mean anything.
SPREAD_WARNING_PCT = 25.0
# One p99 from fewer samples than this rests on fewer than ten observations beyond it.
MIN_SAMPLES_FOR_P99 = 1000
# A 1-minute load average above this share of the CPUs means other work competed with the benchmark.
BUSY_LOAD_PER_CPU = 0.5
# During the run the benchmark itself keeps about one task runnable; more runnable tasks than CPUs, on any
# trial, means something else waited for (or took) a CPU.
BUSY_LOAD_DURING_RUN_PER_CPU = 1.0
# Other work on the CPUs no worker was pinned to, as a median over trials: above this the machine was shared.
BUSY_OTHER_CPUS_PCT = 30.0
# Steal above this share (median over trials): the hypervisor ran someone else on our vCPUs.
BUSY_STEAL_PCT = 5.0

def summarize(store: RunStore) -> dict[str, Any]:
    manifest, all_trials = store.read()
    targets_info = manifest.get("targets", {})
    by_point: dict[Point, list[Trial]] = defaultdict(list)
    for t in latest_trials(all_trials):
        by_point[t.point].append(t)

    entries: dict[Point, dict[str, Any]] = {}
    trial_p50: dict[Point, dict[int, float]] = {}
    warnings: list[str] = []
    few_samples: list[int] = []
    few_for_p999: list[int] = []
    for point, trials in by_point.items():
        ok = [t for t in trials if t.ok]
        entry: dict[str, Any] = {
            **point.as_record(), "kind": targets_info.get(point.target, {}).get("kind"),
            "language": targets_info.get(point.target, {}).get("language"),
            "trials_ok": len(ok), "trials_failed": len(trials) - len(ok),
            "errors": sorted({t.error for t in trials if not t.ok and t.error}),
            "status": "ok" if ok and len(ok) == len(trials) else ("partial" if ok else trials[0].status),
        }
        entries[point] = entry
        if not ok:
            continue
        samples = np.concatenate([stats.read_samples(store.path / str(t.samples_file)) for t in ok])
        entry["latency_ns"] = stats.latency_summary(samples)
        entry["latency_ns"].update(stats.tail_percentiles(samples))
        p50s = {t.trial: float(t.p50_ns or 0) for t in ok}
        entry["p50_ci95_ns"] = stats.trial_ci95([p50s[k] for k in sorted(p50s)])
        entry["p99_ci95_ns"] = stats.trial_ci95([float(t.p99_ns or 0) for t in ok])
        timed = [t for t in ok if t.elapsed_ns and t.calls]
        if timed:
            # Client-side payload throughput: payload bytes of the timed calls over their elapsed time.
            entry["client_throughput_mb_per_s"] = float(np.mean(
                [(t.calls or 0) * point.payload_bytes / (t.elapsed_ns or 1) * 1e3 for t in timed]))
        entry.update(load_section(ok, point.clients, point.rate_hz))
        trial_p50[point] = p50s
        entry["trial_p50_ns"] = {"values": [p50s[k] for k in sorted(p50s)],
                                 "spread_pct": stats.spread_pct(list(p50s.values()))}
        spread = entry["trial_p50_ns"]["spread_pct"]
        if spread is not None and spread > SPREAD_WARNING_PCT:
            warnings.append(f"{point.label}: trial p50s spread {spread:.0f}% (> {SPREAD_WARNING_PCT:.0f}%); "
                            "differences below that are noise")
        if samples.size < MIN_SAMPLES_FOR_P99:
            few_samples.append(int(samples.size))
        if samples.size < stats.samples_needed(99.9):
            few_for_p999.append(int(samples.size))
        if point.mode == "oneway":
            entry["oneway"] = _oneway_section(ok, entry["latency_ns"])
            lost, calls = entry["oneway"]["lost_messages"], entry["oneway"]["calls"]
            if entry["oneway"]["warmup_sync_incomplete_trials"]:
                warnings.append(f"{point.label}: the warm-up barrier timed out in "
                                f"{entry['oneway']['warmup_sync_incomplete_trials']} trial(s): late warm-up messages "
                                "counted as timed ones may hide loss")
            if lost:
                warnings.append(f"{point.label}: {lost} of {calls} messages lost")

    if few_samples:
        warnings.append(f"{len(few_samples)} point(s) have fewer than {MIN_SAMPLES_FOR_P99} samples (as few as "
                        f"{min(few_samples)}): their p99 rests on fewer than 10 values; raise calls or trials")

    # ORB-added latency: pair each ORB point with its baseline in the same point group (same host pair, so the
    # same link; same placement, mode, payload, load and option set).
    for point, entry in entries.items():
        base_name = targets_info.get(point.target, {}).get("baseline")
        if entry.get("kind") != "orb" or not base_name:
            continue
        base = point.group.with_target(base_name)
        added = None
        if point in trial_p50 and base in trial_p50:
            added = stats.orb_added_latency(trial_p50[point], trial_p50[base])
        if added is None:
            entry["orb_added_latency_ns"] = {"baseline": base_name, "estimate": None,
                                             "why_missing": "no paired trial of the ORB and its baseline"}
        else:
            entry["orb_added_latency_ns"] = {"baseline": base_name, **added}
            if added["ci95_low"] is None:
                warnings.append(f"{point.label}: one paired trial only, no confidence interval (use trials >= 3)")

    if few_for_p999:
        warnings.append(f"{len(few_for_p999)} point(s) have fewer than {stats.samples_needed(99.9)} samples (as few as "
                        f"{min(few_for_p999)}): their p99.9 rests on fewer than {stats.VALUES_BEYOND_PERCENTILE} "
                        "values; the percentile spectrum draws such tails hollow and summary.json leaves them null")
    stopping = {PointGroup.from_record(s): s for s in manifest["stopping"]}
    add_interop_comparison(entries)
    for point, entry in entries.items():
        rule = stopping.get(point.group)
        if rule:
            entry["stopping"] = {"reason": rule["reason"], "trials": rule["trials"],
                                 "target_ci_pct": rule.get("target_ci_pct"),
                                 "p50_ci_width_pct": (rule.get("p50_ci_width_pct") or {}).get(point.target)}
    not_reached = [s for s in stopping.values() if s.get("target_ci_pct") is not None and s["reason"] != "ci"]
    if not_reached:
        warnings.append(f"{len(not_reached)} point(s) ended by {', '.join(sorted({s['reason'] for s in not_reached}))} "
                        f"before every p50 interval was narrower than {not_reached[0]['target_ci_pct']}%")
    warnings += _load_warnings(manifest, list(by_point.values()))
    # Each trial records its hosts' load (_load_warnings); the load at the start is judged only for remote
    # hosts, since a build just before a run raises this machine's 1-minute average for a minute.
    for name, host in manifest["hosts"].items():
        env = host.get("environment") or {}
        usage, host_cpus = env.get("loadavg"), env.get("logical_cpus") or 1
        if name != "local" and isinstance(usage, list) and usage[0] > BUSY_LOAD_PER_CPU * host_cpus:
            warnings.append(f"busy host {name}: 1-minute load average {usage[0]:.2f} on {host_cpus} CPUs "
                            "at the start")
    for pl in manifest.get("placements", []):
        if not pl.get("pinned"):
            warnings.append(f"placement {pl['name']}: not pinned; latency depends on where the scheduler put "
                            "the workers")
    warnings += _pinning_warnings(manifest)

    ordered = sorted(entries, key=point_order(targets_info))
    return {
        "schema_version": SCHEMA_VERSION,
        "campaign": manifest.get("campaign", {}).get("name"),
        "run_id": store.run_id,
        "status": manifest.get("status"),
        "units": "nanoseconds; throughput in messages/s and MB/s (10^6 bytes)",
        "points": [entries[p] for p in ordered],
        "equivalence": _equivalence(store, by_point, targets_info),
        "warnings": warnings + manifest.get("warnings", []),
    }


MODE_ORDER = {"twoway": 0, "oneway": 1, "echo": 2}
KIND_ORDER = {"orb": 0, "socket": 1}


def point_order(targets_info: dict[str, Any]) -> Callable[[Point], tuple]:
    """How summary.json and its tables list points: local pair first, then the group's dimensions (modes in
    their usual order), ORBs before sockets, then by name."""
    def key(p: Point) -> tuple:
        group = p.group.replace(mode=str(MODE_ORDER.get(p.mode, 9)))
        return (p.host_pair != "local", group, KIND_ORDER.get(targets_info.get(p.target, {}).get("kind"), 9),
                p.target)
    return key


def _oneway_section(ok: list[Trial], latency: dict[str, Any]) -> dict[str, Any]:
    tput = [t.throughput_msgs_per_s for t in ok if t.throughput_msgs_per_s]
    mbps = [t.throughput_mb_per_s for t in ok if t.throughput_mb_per_s]
    return {
        "client_time_per_call_ns": latency,
        "calls": sum(t.calls or 0 for t in ok), "received_messages": sum(t.received_messages or 0 for t in ok),
        "lost_messages": sum(t.lost_messages or 0 for t in ok),
        "receiver_throughput_msgs_per_s": float(np.mean(tput)) if tput else None,
        "receiver_throughput_mb_per_s": float(np.mean(mbps)) if mbps else None,
        "sync_incomplete_trials": sum(1 for t in ok if t.sync_complete is False),
        "warmup_sync_incomplete_trials": sum(1 for t in ok if t.warmup_sync_complete is False),
    }


def current_summary(store: RunStore) -> dict[str, Any]:
    """summary.json as this orbench writes it: read when it is of the current schema, else recomputed from the
    raw samples (it is derived data) and written back."""
    if store.summary_path.exists():
        summary = json.loads(store.summary_path.read_text())
        if summary.get("schema_version") == SCHEMA_VERSION:
            return summary
    return write_summary(store)


def latest_trials(trials: list[Trial]) -> list[Trial]:
    """One per trial: a resumed run may have run a failed trial again; its last row is the one that counts
    (an ok trial is never followed by another, since --resume skips finished trials)."""
    return list({(t.point, t.trial): t for t in trials}.values())


def write_summary(store: RunStore) -> dict[str, Any]:
    summary = summarize(store)
    write_json_atomic(store.summary_path, summary)
    return summary


def _median(values: list[float]) -> float | None:
    return float(np.median(values)) if values else None


def _load_warnings(manifest: dict[str, Any], trials: list[list[Trial]]) -> list[str]:
    """Busy hosts during the run, from the load each trial recorded on the hosts it ran on (`usage_hosts`)."""
    out = []
    by_hosts: dict[str, list[Trial]] = defaultdict(list)
    for t in (t for point_trials in trials for t in point_trials if t.ok):
        by_hosts[t.usage_hosts or "local"].append(t)
    for names, ok in sorted(by_hosts.items()):
        cpus = min(_logical_cpus(manifest, name) for name in names.split())
        what = "machine" if names == "local" else f"host(s) {names}"
        loads = [t.loadavg_1m for t in ok if t.loadavg_1m is not None]
        if loads and max(loads) > BUSY_LOAD_DURING_RUN_PER_CPU * cpus:
            busy = sum(1 for x in loads if x > BUSY_LOAD_DURING_RUN_PER_CPU * cpus)
            out.append(f"busy {what} during the run: 1-minute load average up to {max(loads):.2f} on {cpus} CPUs "
                       f"({busy} of {len(loads)} trials above {BUSY_LOAD_DURING_RUN_PER_CPU * cpus:.1f}; the "
                       "benchmark itself accounts for about 1)")
        other = _median([t.other_cpus_busy_pct for t in ok if t.other_cpus_busy_pct is not None])
        if other is not None and other > BUSY_OTHER_CPUS_PCT:
            out.append(f"busy {what} during the run: the CPUs no worker was pinned to were {other:.0f}% busy "
                       f"(median over trials, > {BUSY_OTHER_CPUS_PCT:.0f}%): other work shared the machine")
        steal = _median([t.steal_pct for t in ok if t.steal_pct is not None])
        if steal is not None and steal > BUSY_STEAL_PCT:
            out.append(f"busy {what}: {steal:.1f}% steal time (median over trials): the hypervisor ran other "
                       "guests on its CPUs")
    return out


def _logical_cpus(manifest: dict[str, Any], host: str) -> int:
    env = manifest["environment"]["host"] if host == "local" else \
        (manifest["hosts"].get(host) or {}).get("environment") or {}
    return int(env.get("logical_cpus") or 1)


def _pinning_warnings(manifest: dict[str, Any]) -> list[str]:
    """Pinning asked for but not in force: the worker's Cpus_allowed_list differs from the placement's CPU."""
    out = []
    placements = {p["name"]: p for p in manifest.get("placements", [])}
    for target, info in manifest.get("targets", {}).items():
        for pl_name, workers in (info.get("workers") or {}).items():
            pl = placements.get(pl_name) or {}
            if not pl.get("pinned"):
                continue
            allowed = (workers or {}).get("cpus_allowed") or {}
            for role in ("server", "client"):
                want = str(pl.get(f"{role}_cpus"))
                got = allowed.get(role)
                if got is not None and got != want:
                    out.append(f"placement {pl_name}: {target} {role} may run on CPUs {got}, not only on {want} "
                               "as the placement asks: pinning is missing")
    return out


def _equivalence(store: RunStore, by_point: dict[Point, list[Trial]], targets_info: dict) -> list[dict]:
    """The equivalence tests of Krintz and Wolski (equivalence.py) between every two socket baselines
    measured in the same point group."""
    sockets = sorted({p.target for p in by_point if targets_info.get(p.target, {}).get("kind") == "socket"})
    out = []
    for point in sorted(p for p in by_point if sockets and p.target == sockets[0]):
        for other in sockets[1:]:
            other_point = point.group.with_target(other)
            if other_point not in by_point:
                continue
            a = {t.trial: t for t in by_point[point] if t.ok}
            b = {t.trial: t for t in by_point[other_point] if t.ok}
            paired = sorted(set(a) & set(b))
            try:
                result = equivalence.compare_traces(
                    [stats.read_samples(store.path / str(a[k].samples_file)) for k in paired],
                    [stats.read_samples(store.path / str(b[k].samples_file)) for k in paired], point.target, other)
            except ValueError as exc:
                result = {"a": point.target, "b": other, "why_missing": str(exc)}
            out.append({**point.group.as_record(), **result})
    return out
