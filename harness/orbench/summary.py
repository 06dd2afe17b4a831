"""summary.json: per target x mode x payload x placement statistics of a run, from its raw samples only.

It can always be recomputed (`orbench summarize RUN`) since it reads nothing but the run directory.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from orbench import equivalence, stats
from orbench.campaign import load_label
from orbench.environment import host_facts
from orbench.load_summary import add_interop_comparison, load_section
from orbench.results import SCHEMA_VERSION, RunStore, write_json_atomic

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

# host_pair, placement, mode, payload_type, payload_bytes, clients, rate_hz, options (the option set's label),
# target (always last)
PointKey = tuple[str, str, str, str, int, int, float, str, str]


def _load_of(row: dict) -> tuple[int, float]:
    """A row's (clients, rate_hz); rows of schema 2 and older are one closed-loop client."""
    return int(row.get("clients") or 1), float(row.get("rate_hz") or 0)


def _num(value: str) -> float | None:
    return float(value) if value not in ("", None) else None


def summarize(store: RunStore) -> dict[str, Any]:
    manifest = store.read_manifest()
    targets_info = manifest.get("targets", {})
    rows = latest_rows(store.read_trials())
    by_point: dict[PointKey, list[dict]] = defaultdict(list)
    for row in rows:
        key = (row.get("host_pair") or "local", row["placement"], row["mode"], row["payload_type"],
               int(row["payload_bytes"]), *_load_of(row), row.get("options") or "", row["target"])
        by_point[key].append(row)

    points: list[dict] = []
    trial_p50: dict[PointKey, dict[int, float]] = {}
    warnings: list[str] = []
    few_samples: list[int] = []
    few_for_p999: list[int] = []
    for key, trials in by_point.items():
        host_pair, placement, mode, payload_type, payload_bytes, clients, rate_hz, options, target = key
        ok = [t for t in trials if t["status"] == "ok"]
        where_load = f" {load_label(clients, rate_hz)}" if load_label(clients, rate_hz) else ""
        entry: dict[str, Any] = {
            "host_pair": host_pair, "options": options,
            "target": target, "kind": targets_info.get(target, {}).get("kind"),
            "language": targets_info.get(target, {}).get("language"),
            "mode": mode, "payload_type": payload_type, "payload_bytes": payload_bytes,
            "clients": clients, "rate_hz": rate_hz,
            "placement": placement, "trials_ok": len(ok), "trials_failed": len(trials) - len(ok),
            "errors": sorted({t["error"] for t in trials if t["status"] != "ok" and t["error"]}),
            "status": "ok" if ok and len(ok) == len(trials) else ("partial" if ok else trials[0]["status"]),
        }
        if ok:
            samples = np.concatenate([stats.read_samples(store.path / t["samples_file"]) for t in ok])
            entry["latency_ns"] = stats.latency_summary(samples)
            entry["latency_ns"].update(stats.tail_percentiles(samples))
            p50s = {int(t["trial"]): float(t["p50_ns"]) for t in ok}
            entry["p50_ci95_ns"] = stats.trial_ci95([p50s[k] for k in sorted(p50s)])
            entry["p99_ci95_ns"] = stats.trial_ci95([float(t["p99_ns"]) for t in ok])
            elapsed = [int(t["elapsed_ns"]) for t in ok if t.get("elapsed_ns")]
            if elapsed:
                # Client-side payload throughput: payload bytes of the timed calls over their elapsed time.
                entry["client_throughput_mb_per_s"] = float(np.mean(
                    [int(t["calls"]) * payload_bytes / int(t["elapsed_ns"]) * 1e3 for t in ok if t.get("elapsed_ns")]))
            entry.update(load_section(ok, clients, rate_hz))
            trial_p50[key] = p50s
            entry["trial_p50_ns"] = {"values": [p50s[k] for k in sorted(p50s)],
                                     "spread_pct": stats.spread_pct(list(p50s.values()))}
            spread = entry["trial_p50_ns"]["spread_pct"]
            if spread is not None and spread > SPREAD_WARNING_PCT:
                warnings.append(f"{placement} {mode} {payload_type} {payload_bytes} B {target}{where_load}: trial p50s spread "
                                f"{spread:.0f}% (> {SPREAD_WARNING_PCT:.0f}%); differences below that are noise")
            if samples.size < MIN_SAMPLES_FOR_P99:
                few_samples.append(int(samples.size))
            if samples.size < stats.samples_needed(99.9):
                few_for_p999.append(int(samples.size))
            if mode == "oneway":
                calls = sum(int(t["calls"]) for t in ok)
                received = sum(int(t["received_messages"]) for t in ok)
                lost = sum(int(t["lost_messages"] or 0) for t in ok)
                tput = [float(t["throughput_msgs_per_s"]) for t in ok if t["throughput_msgs_per_s"]]
                mbps = [float(t["throughput_mb_per_s"]) for t in ok if t["throughput_mb_per_s"]]
                entry["oneway"] = {
                    "client_time_per_call_ns": entry["latency_ns"],
                    "calls": calls, "received_messages": received, "lost_messages": lost,
                    "receiver_throughput_msgs_per_s": float(np.mean(tput)) if tput else None,
                    "receiver_throughput_mb_per_s": float(np.mean(mbps)) if mbps else None,
                    "sync_incomplete_trials": sum(1 for t in ok if t["sync_complete"] == "False"),
                    "warmup_sync_incomplete_trials": sum(1 for t in ok if t.get("warmup_sync_complete") == "False"),
                }
                if entry["oneway"]["warmup_sync_incomplete_trials"]:
                    warnings.append(f"{placement} oneway {payload_bytes} B {target}{where_load}: the warm-up barrier "
                                    f"timed out in {entry['oneway']['warmup_sync_incomplete_trials']} trial(s): late "
                                    "warm-up messages counted as timed ones may hide loss")
                if lost:
                    warnings.append(f"{placement} oneway {payload_bytes} B {target}{where_load}: {lost} of {calls} "
                                    "messages lost")
        points.append(entry)

    if few_samples:
        warnings.append(f"{len(few_samples)} point(s) have fewer than {MIN_SAMPLES_FOR_P99} samples (as few as "
                        f"{min(few_samples)}): their p99 rests on fewer than 10 values; raise calls or trials")

    # ORB-added latency: pair each ORB point with its baseline on the same host pair (the same link), at the
    # same placement, mode, payload, load and option set.
    for entry in points:
        base_name = targets_info.get(entry["target"], {}).get("baseline")
        if entry.get("kind") != "orb" or not base_name:
            continue
        key = (entry["host_pair"], entry["placement"], entry["mode"], entry["payload_type"], entry["payload_bytes"],
               entry["clients"], entry["rate_hz"], entry["options"], entry["target"])
        base_key = key[:-1] + (base_name,)
        added = None
        if key in trial_p50 and base_key in trial_p50:
            added = stats.orb_added_latency(trial_p50[key], trial_p50[base_key])
        if added is None:
            entry["orb_added_latency_ns"] = {"baseline": base_name, "estimate": None,
                                             "why_missing": "no paired trial of the ORB and its baseline"}
        else:
            entry["orb_added_latency_ns"] = {"baseline": base_name, **added}
            if added["ci95_low"] is None:
                warnings.append(f"{entry['placement']} {entry['mode']} {entry['payload_bytes']} B {entry['target']}: "
                                "one paired trial only, no confidence interval (use trials >= 3)")

    if few_for_p999:
        warnings.append(f"{len(few_for_p999)} point(s) have fewer than {stats.samples_needed(99.9)} samples (as few as "
                        f"{min(few_for_p999)}): their p99.9 rests on fewer than {stats.VALUES_BEYOND_PERCENTILE} "
                        "values; the percentile spectrum draws such tails hollow and summary.json leaves them null")
    stopping = {(s["placement"], s["mode"], s["payload_type"], s["payload_bytes"], *_load_of(s), s.get("options", "")): s
                for s in manifest.get("stopping", [])}
    add_interop_comparison(points)
    for entry in points:
        rule = stopping.get((entry["placement"], entry["mode"], entry["payload_type"], entry["payload_bytes"],
                             entry["clients"], entry["rate_hz"], entry["options"]))
        if rule:
            entry["stopping"] = {"reason": rule["reason"], "trials": rule["trials"],
                                 "target_ci_pct": rule.get("target_ci_pct"),
                                 "p50_ci_width_pct": (rule.get("p50_ci_width_pct") or {}).get(entry["target"])}
    not_reached = [s for s in stopping.values() if s.get("target_ci_pct") is not None and s["reason"] != "ci"]
    if not_reached:
        warnings.append(f"{len(not_reached)} point(s) ended by {', '.join(sorted({s['reason'] for s in not_reached}))} "
                        f"before every p50 interval was narrower than {not_reached[0]['target_ci_pct']}%")
    warnings += _load_warnings(manifest, rows)
    # The local machine's load is judged per trial (_load_warnings: every trial records it); the load at the
    # start is not, since a build just before a run raises the 1-minute average for a minute.
    for name, host in (manifest.get("hosts") or {}).items():
        env = (host or {}).get("environment") or {}
        host_load, host_cpus = env.get("loadavg") or [0], env.get("logical_cpus") or 1
        if name != "local" and isinstance(host_load, list) and host_load[0] > BUSY_LOAD_PER_CPU * host_cpus:
            warnings.append(f"busy host {name}: 1-minute load average {host_load[0]:.2f} on {host_cpus} CPUs "
                            "at the start")
    for pl in manifest.get("placements", []):
        if not pl.get("pinned"):
            warnings.append(f"placement {pl['name']}: not pinned; latency depends on where the scheduler put "
                            "the workers")
    warnings += _pinning_warnings(manifest)

    mode_order = {"twoway": 0, "oneway": 1, "echo": 2}
    kind_order = {"orb": 0, "socket": 1}
    points.sort(key=lambda e: (e["host_pair"] != "local", e["host_pair"], e["placement"], e["options"],
                               mode_order.get(e["mode"], 9), e["payload_type"], e["payload_bytes"],
                               e["clients"], e["rate_hz"], kind_order.get(e.get("kind"), 9), e["target"]))
    return {
        "schema_version": SCHEMA_VERSION,
        "campaign": manifest.get("campaign", {}).get("name"),
        "run_id": store.run_id,
        "status": manifest.get("status"),
        "units": "nanoseconds; throughput in messages/s and MB/s (10^6 bytes)",
        "points": points,
        "equivalence": _equivalence(store, by_point, targets_info),
        "warnings": warnings + manifest.get("warnings", []),
    }


def latest_rows(rows: list[dict]) -> list[dict]:
    """One row per trial: a resumed run may have run a failed trial again; its last row is the one that
    counts (an ok row is never followed by another, since --resume skips finished trials)."""
    last: dict[tuple, dict] = {}
    for row in rows:
        last[(row.get("host_pair") or "local", row["placement"], row["mode"], row["payload_type"],
              row["payload_bytes"], *_load_of(row), row.get("options") or "", row["target"], row["trial"])] = row
    return list(last.values())


def write_summary(store: RunStore) -> dict[str, Any]:
    summary = summarize(store)
    write_json_atomic(store.summary_path, summary)
    return summary


def _median(values: list[float]) -> float | None:
    return float(np.median(values)) if values else None


def _load_warnings(manifest: dict[str, Any], rows: list[dict]) -> list[str]:
    """A busy machine during the run, from what each trial recorded (schema 2; older runs have none of it)."""
    out = []
    cpus = host_facts(manifest.get("environment", {})).get("logical_cpus") or 1
    ok = [r for r in rows if r.get("status") == "ok"]
    loads = [float(r["loadavg_1m"]) for r in ok if r.get("loadavg_1m")]
    if loads and max(loads) > BUSY_LOAD_DURING_RUN_PER_CPU * cpus:
        busy = sum(1 for x in loads if x > BUSY_LOAD_DURING_RUN_PER_CPU * cpus)
        out.append(f"busy machine during the run: 1-minute load average up to {max(loads):.2f} on {cpus} CPUs "
                   f"({busy} of {len(loads)} trials above {BUSY_LOAD_DURING_RUN_PER_CPU * cpus:.1f}; the benchmark "
                   "itself accounts for about 1)")
    other = _median([float(r["other_cpus_busy_pct"]) for r in ok if r.get("other_cpus_busy_pct")])
    if other is not None and other > BUSY_OTHER_CPUS_PCT:
        out.append(f"busy machine during the run: the CPUs no worker was pinned to were {other:.0f}% busy "
                   f"(median over trials, > {BUSY_OTHER_CPUS_PCT:.0f}%): other work shared the machine")
    steal = _median([float(r["steal_pct"]) for r in ok if r.get("steal_pct")])
    if steal is not None and steal > BUSY_STEAL_PCT:
        out.append(f"busy host: {steal:.1f}% steal time (median over trials): the hypervisor ran other guests "
                   "on this VM's CPUs")
    return out


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


def _equivalence(store: RunStore, by_point: dict[PointKey, list[dict]], targets_info: dict) -> list[dict]:
    """Seed 004's equivalence tests between every two socket baselines measured at the same point."""
    sockets = sorted({k[-1] for k in by_point if targets_info.get(k[-1], {}).get("kind") == "socket"})
    out = []
    for key in sorted(k for k in by_point if k[-1] == (sockets[0] if sockets else None)):
        for other in sockets[1:]:
            okey = key[:-1] + (other,)
            if okey not in by_point:
                continue
            a = {int(t["trial"]): t for t in by_point[key] if t["status"] == "ok"}
            b = {int(t["trial"]): t for t in by_point[okey] if t["status"] == "ok"}
            paired = sorted(set(a) & set(b))
            try:
                result = equivalence.compare_traces(
                    [stats.read_samples(store.path / a[k]["samples_file"]) for k in paired],
                    [stats.read_samples(store.path / b[k]["samples_file"]) for k in paired], key[-1], other)
            except ValueError as exc:
                result = {"a": key[-1], "b": other, "why_missing": str(exc)}
            out.append({"placement": key[1], "mode": key[2], "payload_type": key[3], "payload_bytes": key[4],
                        **({"host_pair": key[0]} if key[0] != "local" else {}),
                        **({"clients": key[5], "rate_hz": key[6]} if key[5] != 1 or key[6] else {}),
                        **({"options": key[7]} if key[7] else {}),
                        **result})
    return out
