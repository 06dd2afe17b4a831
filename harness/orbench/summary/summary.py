"""summary.json: per target x mode x payload x placement statistics of a run, from its raw samples only.

It can always be recomputed (`orbench summarize RUN`) since it reads nothing but the run directory.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import numpy as np

from orbench.results.point import Point, PointGroup
from orbench.results.run_warnings import RunWarning, grouped_lines
from orbench.results.store import SCHEMA_VERSION, RunStore, write_json_atomic
from orbench.results.trial import GIVEN_UP, Trial
from orbench.results.units import fmt_ns
from orbench.running.anatomy.summary import anatomy_section, orb_added_cpu
from orbench.stats import equivalence, stats
from orbench.stats.intervals import robust_cv_pct
from orbench.stats.known_fit import fit_text, known_answer_fits
from orbench.stats.launches import LAUNCH_METHOD, by_launch, over_launches, paired_by_launch
from orbench.stats.stalls import find_stall
from orbench.summary.invariants import invariant_warnings
from orbench.summary.sections import add_interop_comparison, load_section
from orbench.targets.descriptor import MEASURED_AGAINST_BASELINE

# Trial p50s of one point whose robust spread (1.4826 MAD / median, stats/intervals.py) exceeds this are
# flagged: the trials disagree (often two modes), and the point's interval is wide for that reason.
UNSTEADY_CV_PCT = 10.0
# One p99 from fewer samples than this rests on fewer than ten observations beyond it.
MIN_SAMPLES_FOR_P99 = 1000
# A remote host's 1-minute load average above this share of its CPUs at the start means other work there.
BUSY_LOAD_PER_CPU = 0.5
# Processes outside orbench's own process tree used more than this share of all CPUs' time, as a median over
# trials (machine_load.py): other work shared the machine. orbench's own workers and harness never count.
BUSY_FOREIGN_CPU_PCT = 10.0
# Other work on the CPUs no worker was pinned to, as a median over trials, on a host where orbench's own
# processes cannot be told apart (a remote one): above this the host was shared.
BUSY_OTHER_CPUS_PCT = 30.0
# Steal above this share (median over trials): the hypervisor ran someone else on our vCPUs.
BUSY_STEAL_PCT = 5.0
# A known-answer point is recovered when |X - N| <= max(the interval's half-width, this share of N).
KNOWN_ANSWER_TOLERANCE = 0.05

def summarize(store: RunStore) -> dict[str, Any]:
    manifest, all_trials = store.read()
    targets_info = manifest.get("targets", {})
    by_point: dict[Point, list[Trial]] = defaultdict(list)
    for t in latest_trials(all_trials):
        by_point[t.point].append(t)
    traced: dict[Point, list[Trial]] = defaultdict(list)
    for t in store.read_traced():
        traced[t.point].append(t)

    entries: dict[Point, dict[str, Any]] = {}
    # Per point: each ok trial's p50 by (launch, trial number); trials pair across targets by that key.
    trial_p50: dict[Point, dict[tuple[int, int], float]] = {}
    warnings: list[RunWarning] = []
    few_samples: list[int] = []
    few_for_p999: list[int] = []
    for point, trials in by_point.items():
        ok = [t for t in trials if t.ok]
        entry: dict[str, Any] = {
            **point.as_record(), "kind": targets_info.get(point.target, {}).get("kind"),
            "language": targets_info.get(point.target, {}).get("language"),
            "family": targets_info.get(point.target, {}).get("family"),  # corba, grpc, ice; None: a baseline
            "trials_ok": len(ok), "trials_failed": len(trials) - len(ok),
            "errors": sorted({t.error for t in trials if not t.ok and t.error}),
            "status": "ok" if ok and len(ok) == len(trials) else ("partial" if ok else trials[0].status),
        }
        given_up = [t.error for t in trials if t.status == GIVEN_UP]
        if given_up:
            # The point's remaining trials were skipped after failures in a row (running/skips.py): say why.
            entry["skipped"] = given_up[0]
        entries[point] = entry
        if not ok:
            continue
        per_trial = {(t.launch, t.trial): stats.read_samples(store.path / str(t.samples_file)) for t in ok}
        samples = np.concatenate(list(per_trial.values()))
        # Over all calls of the point; the point's p50 (p50_ci95_ns) is the mean of the per-trial p50s.
        entry["latency_ns"] = stats.latency_summary(samples)
        entry["latency_ns"].update(stats.tail_percentiles(samples))
        p50s = {(t.launch, t.trial): float(t.p50_ns or 0) for t in ok}
        if len({t.launch for t in ok}) >= 2:
            entry["p50_ci95_ns"], entry["launches"] = _over_launches_ci(by_launch(p50s))
        else:
            entry["p50_ci95_ns"] = stats.trial_ci95([p50s[k] for k in sorted(p50s)])
        fewest = min(s.size for s in per_trial.values())
        # The p99 interval is over per-trial p99s: each must rest on ten values beyond it.
        entry["p99_ci95_ns"] = (stats.trial_ci95([float(t.p99_ns or 0) for t in ok]) if fewest >= MIN_SAMPLES_FOR_P99
                                else {"why_missing": f"trials of {fewest} calls: a per-trial p99 rests on fewer than "
                                                     "10 values"})
        stalls = {k: st for k, s in per_trial.items() if (st := find_stall(s)) is not None}
        if stalls:
            entry["stalls"] = [{"launch": k[0], "trial": k[1], **asdict(st)} for k, st in sorted(stalls.items())]
            (worst_launch, k), worst = max(stalls.items(), key=lambda kv: kv[1].share)
            warnings.append(RunWarning(
                "stalls", point.label, f"{len(stalls)} trial(s) where a few calls took most of the time; worst: launch "
                f"{worst_launch + 1} trial "
                f"{k}, {worst.calls} of {worst.of_calls} calls (up to {worst.longest_ns / 1e6:.1f} ms) took "
                f"{worst.share:.0%} of it", worst.share))
        timed = [t for t in ok if t.elapsed_ns and t.calls]
        if timed:
            # Client-side payload throughput: payload bytes of the timed calls over their elapsed time.
            entry["client_throughput_mb_per_s"] = float(np.mean(
                [(t.calls or 0) * point.payload_bytes / (t.elapsed_ns or 1) * 1e3 for t in timed]))
        entry.update(load_section(ok, point.clients, point.rate_hz))
        anatomy = anatomy_section(ok, traced.get(point, []))
        if anatomy:
            entry["anatomy"] = anatomy
        trial_p50[point] = p50s
        cv = robust_cv_pct(list(p50s.values()))
        entry["trial_p50_ns"] = {"values": [p50s[k] for k in sorted(p50s)], "robust_cv_pct": cv}
        if cv is not None and cv > UNSTEADY_CV_PCT:
            warnings.append(RunWarning("trial p50s unsteady", point.label, f"robust spread {cv:.0f}% (> "
                                       f"{UNSTEADY_CV_PCT:.0f}%) between trials: the interval is wide for it", cv))
        if samples.size < MIN_SAMPLES_FOR_P99:
            few_samples.append(int(samples.size))
        if samples.size < stats.samples_needed(99.9):
            few_for_p999.append(int(samples.size))
        if point.mode == "oneway":
            entry["oneway"] = _oneway_section(ok, entry["latency_ns"])
            lost, calls = entry["oneway"]["lost_messages"], entry["oneway"]["calls"]
            late = entry["oneway"]["warmup_sync_incomplete_trials"]
            if late:
                warnings.append(RunWarning("warm-up barrier timed out", point.label, f"in {late} trial(s): late warm-up "
                                           "messages counted as timed ones may hide loss", late))
            if lost:
                warnings.append(RunWarning("messages lost", point.label, f"{lost} of {calls} messages lost",
                                           lost / calls))

    if few_samples:
        warnings.append(RunWarning(
            "few samples", "", f"{len(few_samples)} point(s) have fewer than {MIN_SAMPLES_FOR_P99} samples (as few as "
            f"{min(few_samples)}): their p99 rests on fewer than 10 values; raise calls or trials"))

    # ORB-added latency: pair each ORB point with its baseline in the same point group (same host pair, so the
    # same link; same placement, mode, payload, load and option set).
    for point, entry in entries.items():
        base_name = targets_info.get(point.target, {}).get("baseline")
        if entry.get("kind") not in MEASURED_AGAINST_BASELINE or not base_name:
            continue
        base = point.group.with_target(base_name)
        added = None
        if point in trial_p50 and base in trial_p50:
            added = _orb_added(trial_p50[point], trial_p50[base])
        if added is None:
            entry["orb_added_latency_ns"] = {"baseline": base_name, "estimate": None,
                                             "why_missing": "no paired trial of the ORB and its baseline"}
        else:
            entry["orb_added_latency_ns"] = {"baseline": base_name, **added}
            if added["unpaired"]:
                # Its p50 (the mean of all its trials) minus the baseline's then differs from the estimate.
                entry["orb_added_latency_ns"]["why_not_p50_difference"] = (
                    f"{added['unpaired']} trial(s) without a partner are left out of the paired estimate")
            known = targets_info.get(point.target, {}).get("known_added_ns")
            if known is not None:
                entry["known_answer"] = known_answer(known, added, entry)
                if not entry["known_answer"]["covered"]:
                    warnings.append(RunWarning(
                        "known answer missed", point.label, f"known {known} ns, recovered "
                        f"{entry['known_answer']['text']}: the interval misses the truth", abs(added["estimate"] - known)))
            if added["ci95_low"] is None:
                warnings.append(RunWarning("no interval", point.label,
                                           "one paired trial only, no confidence interval (use trials >= 3)"))
            if (added.get("disagreement") or {}).get("text"):
                warnings.append(RunWarning("launches disagree", point.label, added["disagreement"]["text"] +
                                           ": the interval is around a mixture; read the launches' values"))
        added_cpu = orb_added_cpu(by_point.get(point, []), by_point.get(base, []))
        if added_cpu is not None:
            entry["orb_added_cpu_us"] = {"baseline": base_name, **added_cpu}

    if few_for_p999:
        warnings.append(RunWarning(
            "few samples", "", f"{len(few_for_p999)} point(s) have fewer than {stats.samples_needed(99.9)} samples (as "
            f"few as {min(few_for_p999)}): their p99.9 rests on fewer than {stats.VALUES_BEYOND_PERCENTILE} values; "
            "the percentile spectrum draws such tails hollow and summary.json leaves them null"))
    stopping = {PointGroup.from_record(s): s for s in manifest["stopping"]}
    add_interop_comparison(entries)
    for point, entry in entries.items():
        rule = stopping.get(point.group)
        if rule:
            entry["stopping"] = {"reason": rule["reason"], "trials": rule["trials"],
                                 "target_ci_pct": rule.get("target_ci_pct"),
                                 "p50_ci_width_pct": (rule.get("p50_ci_width_pct") or {}).get(point.target)}
            if point.target in (rule.get("orb_added_ci_half_width_ns") or {}):
                entry["stopping"].update(
                    target_added_ci_ns=rule.get("target_added_ci_ns"), target_added_ci_pct=rule.get("target_added_ci_pct"),
                    orb_added_ci_half_width_ns=rule["orb_added_ci_half_width_ns"][point.target])
    targets_set = ("target_ci_pct", "target_added_ci_ns", "target_added_ci_pct")
    not_reached = [s for s in stopping.values() if any(s.get(k) is not None for k in targets_set) and s["reason"] != "ci"]
    if not_reached:
        wanted = ", ".join(f"{k} {not_reached[0][k]}" for k in targets_set if not_reached[0].get(k) is not None)
        warnings.append(RunWarning(
            "stopping target not reached", "", f"{len(not_reached)} point(s) ended by "
            f"{', '.join(sorted({s['reason'] for s in not_reached}))} before their intervals met {wanted}"))
    warnings += _launch_warnings(manifest, entries)
    warnings += invariant_warnings(entries)
    warnings += _load_warnings(manifest, list(by_point.values()))
    # Each trial records its hosts' load (_load_warnings); the load at the start is judged only for remote
    # hosts, since a build just before a run raises this machine's 1-minute average for a minute.
    for name, host in manifest["hosts"].items():
        env = host.get("environment") or {}
        usage, host_cpus = env.get("loadavg"), env.get("logical_cpus") or 1
        if name != "local" and isinstance(usage, list) and usage[0] > BUSY_LOAD_PER_CPU * host_cpus:
            warnings.append(RunWarning("busy host", name, f"1-minute load average {usage[0]:.2f} on {host_cpus} "
                                       "CPUs at the start", usage[0] / host_cpus))
    for pl in manifest.get("placements", []):
        if not pl.get("pinned"):
            warnings.append(RunWarning("not pinned", f"placement {pl['name']}", "latency depends on where the "
                                       "scheduler put the workers"))
    warnings += _pinning_warnings(manifest)
    warnings += [RunWarning("run", "", w) for w in manifest.get("warnings", [])]

    ordered = sorted(entries, key=point_order(targets_info))
    fits = known_answer_fits(entries)
    for fit in fits:
        if not (fit["slope_ok"] and fit["intercept_ok"]):
            warnings.append(RunWarning(
                "known answers off the line", PointGroup.from_record(fit).label,
                f"{fit_text(fit)} against {fit['baseline']}: "
                + ("slope off 1 by more than 1%" if not fit["slope_ok"] else "")
                + (" and " if not fit["slope_ok"] and not fit["intercept_ok"] else "")
                + ("intercept interval misses 0" if not fit["intercept_ok"] else ""), abs(fit["slope"] - 1)))
    return {
        "schema_version": SCHEMA_VERSION,
        "campaign": manifest.get("campaign", {}).get("name"),
        "run_id": store.run_id,
        "status": manifest.get("status"),
        "units": "nanoseconds; throughput in messages/s and MB/s (10^6 bytes)",
        "points": [entries[p] for p in ordered],
        "equivalence": _equivalence(store, by_point, targets_info),
        "machine": _machine_load(list(by_point.values())),
        # Known-answer targets: known N, recovered ORB-added latency X [95% CI] (one row per point).
        "known_answers": [{**p.as_record(), **entries[p]["known_answer"]} for p in ordered
                          if "known_answer" in entries[p]],
        # Across N per point group: X = slope N + intercept; slope within 1% of 1 and an intercept interval that
        # covers 0 (known_fit.py).
        "known_answer_fits": fits,
        # One line per kind (the worst case and how many more); every warning in warnings_detail.
        "warnings": grouped_lines(warnings),
        "warnings_detail": [w.as_dict() for w in warnings],
    }


def _over_launches_ci(per_launch: dict[int, list[float]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A point's p50 over launches (p50_ci95_ns, the shape trial_ci95 gives) and its `launches` section."""
    lv = over_launches(per_launch)
    assert lv is not None
    mean, low, high = lv["estimate"], lv["ci95_low"], lv["ci95_high"]
    ci = {"estimate": mean, "low": low, "high": high,
          "width_pct": None if low is None or mean <= 0 else (high - low) / mean * 100.0,
          "half_width": None if low is None else (high - low) / 2.0, "method": LAUNCH_METHOD,
          "trials": sum(len(v) for v in per_launch.values()), "launches": lv["n_launches"]}
    return ci, {"n": lv["n_launches"], "values": lv["launches"], "variance": lv["variance"],
                "disagreement": lv["disagreement"]}


def _orb_added(orb: dict[tuple[int, int], float], base: dict[tuple[int, int], float]) -> dict[str, Any] | None:
    """ORB-added latency from the paired trials: over launches when the pairs span two or more (the mean of
    each launch's median paired difference, t over launches), else within the one launch (stats.py: the median
    of paired differences with its sign-test interval, or below 6 pairs the mean with t, which ci_method says)."""
    per_launch = paired_by_launch(orb, base)
    if len(per_launch) < 2:
        return stats.orb_added_latency(orb, base)
    lv = over_launches(per_launch)
    if lv is None:
        return None
    diffs = [d for k in sorted(per_launch) for d in per_launch[k]]
    pairs = len(diffs)
    return {"estimate": lv["estimate"], "ci95_low": lv["ci95_low"], "ci95_high": lv["ci95_high"],
            "ci_method": lv["ci_method"], "pairs": pairs, "unpaired": len(orb) + len(base) - 2 * pairs,
            "per_pair": diffs, "mean": float(np.mean(diffs)), "n_launches": lv["n_launches"],
            "launches": lv["launches"], "variance": lv["variance"], "disagreement": lv["disagreement"]}


def _launch_warnings(manifest: dict[str, Any], entries: dict[Point, dict[str, Any]]) -> list[RunWarning]:
    """One launch only (its intervals cannot see the next launch), and workers that never reached a steady
    state before their first timed trial."""
    out = []
    launches = int((manifest.get("campaign") or {}).get("launches") or 1)
    if launches == 1 and any("orb_added_latency_ns" in e for e in entries.values()):
        out.append(RunWarning("one launch", "", "every worker ran in one process launch: the intervals are over "
                              "trials of that one process and do not cover what differs from launch to launch "
                              "(JIT, heap, page placement); set the campaign key launches to 3 or more"))
    for record in manifest.get("steady_state") or []:
        if not record.get("reached"):
            point = Point.from_record(record)
            cv = record.get("cv_pct")
            why = record.get("error") or (f"the last {record.get('window')} chunk p50s still varied "
                                          f"{cv:.1f}%" if cv is not None else "too few chunks")
            out.append(RunWarning("not steady", f"{point.label} L{int(record.get('launch', 0)) + 1}",
                                  f"warmed {record.get('steady_calls')} calls after {record.get('warmup_calls')} "
                                  f"without a steady state ({why}): timed anyway", cv or 0.0))
    return out


def known_answer(known_ns: int, added: dict, entry: dict) -> dict[str, Any]:
    """A known-answer point: known N against the recovered ORB-added latency X and its interval. The goal: the
    interval covers N, and |X - N| <= max(half-width, 5% of N). The median's interval is not symmetric about
    X: its half-width on N's side (from X to the end towards N) is the one compared."""
    x, lo, hi = added["estimate"], added["ci95_low"], added["ci95_high"]
    half = None if lo is None else (x - lo if known_ns < x else hi - x)
    text = fmt_ns(x) + ("" if lo is None else f" [{fmt_ns(lo)}, {fmt_ns(hi)}]")
    return {"known_ns": known_ns, "recovered_ns": x, "ci95_low": lo, "ci95_high": hi, "text": text,
            "covered": lo is not None and lo <= known_ns <= hi, "error_ns": x - known_ns,
            "within_tolerance": half is not None and abs(x - known_ns) <= max(half, KNOWN_ANSWER_TOLERANCE * known_ns),
            "trials": added["pairs"], "mean_p50_ns": (entry.get("p50_ci95_ns") or {}).get("estimate")}


MODE_ORDER = {"twoway": 0, "oneway": 1, "echo": 2}
KIND_ORDER = {"orb": 0, "known-answer": 1, "socket": 2}


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
    return list({t.key: t for t in trials}.values())


def write_summary(store: RunStore) -> dict[str, Any]:
    summary = summarize(store)
    write_json_atomic(store.summary_path, summary)
    return summary


def _median(values: list[float]) -> float | None:
    return float(np.median(values)) if values else None


def foreign_share(trials: list[Trial]) -> float | None:
    """Other processes' share of the CPUs over trials: the mean of the trials' signed foreign_cpu_pct weighted by
    their durations, clipped at zero only here. One trial's figure is a few jiffies' worth of noise around the
    truth (running/cpu_usage.py); a median of them, or of figures clipped one by one, reads a quiet machine as
    busy."""
    pairs = [(t.foreign_cpu_pct, t.duration_s if t.duration_s and t.duration_s > 0 else 0.0)
             for t in trials if t.foreign_cpu_pct is not None]
    if not pairs:
        return None
    weight = sum(d for _f, d in pairs)
    mean = sum(f * d for f, d in pairs) / weight if weight > 0 else sum(f for f, _d in pairs) / len(pairs)
    return round(max(0.0, mean), 1)


def _machine_load(trials: list[list[Trial]]) -> dict[str, float | None]:
    """How shared the machine was over the run: CPU time of processes outside orbench (foreign_share), and the
    median steal over trials."""
    ok = [t for point_trials in trials for t in point_trials if t.ok]
    return {"foreign_cpu_pct": foreign_share(ok),
            "steal_pct": _median([t.steal_pct for t in ok if t.steal_pct is not None])}


def _load_warnings(manifest: dict[str, Any], trials: list[list[Trial]]) -> list[RunWarning]:
    """Other work on the hosts during the run, from what each trial recorded on the hosts it ran on
    (`usage_hosts`): on this machine the CPU time of processes outside orbench's own process tree (its workers
    and harness never count, so the benchmark's own load never makes a machine "busy"); on a remote host, where
    orbench's processes are not told apart, the busy share of the CPUs no worker was pinned to; and steal."""
    out = []
    by_hosts: dict[str, list[Trial]] = defaultdict(list)
    for t in (t for point_trials in trials for t in point_trials if t.ok):
        by_hosts[t.usage_hosts or "local"].append(t)
    for names, ok in sorted(by_hosts.items()):
        what = "" if names == "local" else f"host(s) {names}"
        typical = foreign_share(ok)
        if typical is not None and typical > BUSY_FOREIGN_CPU_PCT:
            by_point: dict[Any, list[Trial]] = defaultdict(list)
            for t in ok:
                by_point[t.point].append(t)
            shares = [(s, p) for p, ts in by_point.items() if (s := foreign_share(ts)) is not None]
            worst, where = max(shares, key=lambda sp: sp[0])
            busy = sum(1 for s, _p in shares if s > BUSY_FOREIGN_CPU_PCT)
            out.append(RunWarning(
                "busy machine", what, f"processes outside orbench used {typical:.0f}% of the CPUs' time over the "
                f"trials ({busy} of {len(shares)} points above {BUSY_FOREIGN_CPU_PCT:.0f}%, worst {worst:.0f}% at "
                f"{where.label}): other work shared the machine", typical))
        elif names != "local":
            other = _median([t.other_cpus_busy_pct for t in ok if t.other_cpus_busy_pct is not None])
            if other is not None and other > BUSY_OTHER_CPUS_PCT:
                out.append(RunWarning(
                    "busy machine", what, f"the CPUs no worker was pinned to were {other:.0f}% busy (median over "
                    f"trials, > {BUSY_OTHER_CPUS_PCT:.0f}%): other work shared it", other))
        steal = _median([t.steal_pct for t in ok if t.steal_pct is not None])
        if steal is not None and steal > BUSY_STEAL_PCT:
            out.append(RunWarning("busy host", what, f"{steal:.1f}% steal time (median over trials): the hypervisor "
                                  "ran other guests on its CPUs", steal))
    return out


def _pinning_warnings(manifest: dict[str, Any]) -> list[RunWarning]:
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
                    out.append(RunWarning("pinning missing", f"placement {pl_name}", f"{target} {role} may run on CPUs "
                                          f"{got}, not only on {want} as the placement asks"))
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
            a = {(t.launch, t.trial): t for t in by_point[point] if t.ok}
            b = {(t.launch, t.trial): t for t in by_point[other_point] if t.ok}
            paired = sorted(set(a) & set(b))
            try:
                result = equivalence.compare_traces(
                    [stats.read_samples(store.path / str(a[k].samples_file)) for k in paired],
                    [stats.read_samples(store.path / str(b[k].samples_file)) for k in paired], point.target, other)
            except ValueError as exc:
                result = {"a": point.target, "b": other, "why_missing": str(exc)}
            out.append({**point.group.as_record(), **result})
    return out
