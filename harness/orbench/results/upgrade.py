"""Results of older schema versions, brought to the current layout when read: one function per version step,
each doing what that version changed (the changelog is in store.py). Nothing else in orbench knows an old
layout: the store reads a run through `upgrade`, and every reader sees the current one.

A step takes the manifest and the trials.csv rows (dicts of strings, as read) of version N-1 and changes them
in place into version N. summary.json is not upgraded: it is derived data, recomputed from the raw samples
(summary.current_summary).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from orbench.results.trial import as_cell, measurement_cell, split_evenly

Rows = list[dict[str, str]]


def _add_columns(rows: Rows, **defaults: str) -> None:
    for row in rows:
        for column, value in defaults.items():
            row.setdefault(column, value)


def update_to_2(manifest: dict[str, Any], rows: Rows) -> None:
    """2: trials gain host_pair and the trial's timing and load; the manifest gains stopping records, hosts
    and host pairs (version 1 ran on this machine only)."""
    _add_columns(rows, host_pair="local", trial_end_unix="", other_cpus_busy_pct="", steal_pct="")
    manifest.setdefault("stopping", [])
    hosts = manifest.setdefault("hosts", {})
    hosts.setdefault("local", {}).setdefault("environment", manifest.get("environment"))
    manifest.setdefault("host_pairs", [{"label": "local", "server": "local", "client": "local",
                                         "placements": manifest.get("placements", [])}])


def update_to_3(manifest: dict[str, Any], rows: Rows) -> None:
    """3: the load dimensions; a version-2 point is one client, closed loop."""
    _add_columns(rows, clients="1", rate_hz="0", deadline_misses="", achieved_rate_hz="", client_p50s_ns="",
                 aggregate_calls_per_s="", start_barrier_complete="")


def update_to_4(manifest: dict[str, Any], rows: Rows) -> None:
    """4: option sets; a version-3 point ran without options (label "")."""
    _add_columns(rows, options="")
    for target in manifest.get("targets", {}).values():
        target.setdefault("option_sets", {"": {"client": target.get("options", {}), "server_args": []}})


def update_to_5(manifest: dict[str, Any], rows: Rows) -> None:
    """5: the manifest's environment.host holds the machine's facts in the host script's keys (hosts/facts.py)
    instead of separate host/kernel/cpu/load entries."""
    env = manifest.get("environment") or {}
    host = env.get("host") or {}
    if "kernel" not in host:
        env["host"] = {"hostname": host.get("hostname"), "kernel": (env.get("kernel") or {}).get("release"),
                       "cpu_model": (env.get("cpu") or {}).get("model"),
                       "logical_cpus": (env.get("cpu") or {}).get("logical_cpus"),
                       "loadavg": (env.get("load") or {}).get("loadavg")}
    manifest["environment"] = env


def update_to_6(manifest: dict[str, Any], rows: Rows) -> None:
    """6: a trial names the hosts its load figures were read on (before: always this machine's), and (oneway)
    whether the warm-up barrier completed (late version-5 files have it already); every
    stopping record carries the whole point group (before: host_pair, load and options only when not the
    default, which point.PointGroup.from_record reads the same)."""
    _add_columns(rows, usage_hosts="local", warmup_sync_complete="")


def update_to_7(manifest: dict[str, Any], rows: Rows) -> None:
    """7: a trial records the CPU share of processes outside orbench's own tree (unknown before)."""
    _add_columns(rows, foreign_cpu_pct="")


def update_to_8(manifest: dict[str, Any], rows: Rows) -> None:
    """8: trials gain the anatomy of a call (trial.py); a version-7 trial measured none of it."""
    _add_columns(rows, **dict.fromkeys(ANATOMY_COLUMNS_8, ""))


ANATOMY_COLUMNS_8 = (
    "anatomy_calls", "client_cpu_us", "client_user_us", "client_sys_us", "client_vcsw", "client_ivcsw",
    "client_reads", "client_writes", "client_threads_ended", "server_cpu_us", "server_user_us", "server_sys_us",
    "server_vcsw", "server_ivcsw", "server_reads", "server_writes", "server_threads_ended", "wire_out_bytes",
    "wire_in_bytes", "wire_out_segs", "wire_in_segs", "tcp_retrans", "tcp_timeouts", "tcp_events",
    "client_allocs", "client_alloc_bytes", "client_thread_alloc_bytes", "client_gc_count", "client_gc_ms",
    "server_allocs", "server_alloc_bytes", "server_gc_count", "server_gc_ms", "client_syscalls",
    "client_syscalls_total", "server_syscalls", "server_syscalls_total")

def update_to_9(manifest: dict[str, Any], rows: Rows) -> None:
    """9: process launches; a version-8 run is one launch (its stopping records and trials are launch 0)."""
    _add_columns(rows, launch="0")
    for record in manifest.get("stopping", []):
        record.setdefault("launch", 0)
    campaign = manifest.get("campaign")
    if isinstance(campaign, dict):
        campaign.setdefault("launches", 1)


def update_to_10(manifest: dict[str, Any], rows: Rows) -> None:
    """10: every manifest says its kind; a soak is a campaign of soak points, each with a record in `soaks`
    naming its directory. A version-9 soak (one target on this machine, its settings under `soak`, its files in
    soak/) becomes a campaign of that one point, its record pointing at soak/."""
    manifest.setdefault("kind", "campaign")
    old = manifest.get("soak")
    if manifest["kind"] != "soak" or not isinstance(old, dict) or "soaks" in manifest:
        return
    point = {"host_pair": "local", "placement": old.get("placement", "same-core"), "options": "",
             "mode": old.get("mode", "twoway"), "payload_type": old.get("payload_type", "octets"),
             "payload_bytes": old.get("payload_bytes", 64), "clients": old.get("clients", 1),
             "rate_hz": old.get("rate_hz", 0.0), "target": old["target"]}
    status = manifest.get("status")
    manifest["soaks"] = [{**point, "launch": 0, "dir": "soak", "duration_s": old["duration_s"],
                          "interval_s": old["interval_s"], "arrivals": old.get("arrivals", "fixed"),
                          "seed": old.get("seed"), "warmup": old.get("warmup") or 0,
                          "start_unix": manifest.get("soak_start_unix", 0.0), "status": status,
                          "answers": manifest.get("answers", {}), "failures": manifest.get("failures", {}),
                          "hosts": {"server": "local", "client": "local"}, "resumed": manifest.get("resumed", [])}]
    # A version-9 soak ended "finished" or "failed"; a run of soak points ends as a campaign does.
    manifest["status"] = {"finished": "complete", "failed": "complete-with-failures"}.get(status, status)
    manifest.setdefault("campaign", {
        "name": "soak", "targets": [old["target"]], "modes": [point["mode"]],
        "payload_types": [point["payload_type"]], "payload_bytes": [point["payload_bytes"]],
        "placements": [point["placement"]], "clients": [point["clients"]], "rates_hz": [point["rate_hz"]],
        "duration_s": old["duration_s"], "interval_s": old["interval_s"], "arrivals": old.get("arrivals", "fixed"),
        **({"arrivals_seed": old["seed"]} if old.get("seed") is not None else {}), "launches": 1})


def update_to_11(manifest: dict[str, Any], rows: Rows) -> None:
    """11: trials given up by the skip rule have a status of their own; before, only their error text said so."""
    for row in rows:
        if row.get("status") == "skipped" and (row.get("error") or "").startswith("skipped after"):
            row["status"] = "given_up"


def update_to_12(manifest: dict[str, Any], rows: Rows) -> None:
    """12: points gain the load-at-scale dimensions (threading, objects, object_order, clients_as, arrivals,
    offered_load) and trials their load fields; an older run varied none of them, so each row takes the
    dimension's default (point.py: reading a row without the column gives it) and measured none of the fields.
    The anatomy counts each worker's send- and recv-family calls (the preloaded counter); a version-11 trial did
    not count them: empty, never 0 (its reads and writes are the read- and write-family alone)."""
    _add_columns(rows, **dict.fromkeys(LOAD_COLUMNS_12, ""))
    _add_columns(rows, client_recvs="", client_sends="", server_recvs="", server_sends="")


LOAD_COLUMNS_12 = ("offered_rate_hz", "client_calls", "fairness", "server_cpu_util", "client_cpu_util",
                   "server_threads", "server_threads_max", "bottleneck", "settle_ratio", "server_service_ns",
                   "server_service_sq_ns2")


def update_to_13(manifest: dict[str, Any], rows: Rows) -> None:
    """13: points gain the invocation shape (point.py: `shape`); every call of an older run was the static
    stub's `in` call, the dimension's default, which reading a row without the column gives."""


def update_to_14(manifest: dict[str, Any], rows: Rows) -> None:
    """14: trials record their samples file's size and SHA-256 as the row is appended; an older trial recorded
    neither (empty: its file is checked for what its calls make and for its values only, integrity.py)."""
    _add_columns(rows, samples_bytes="", samples_sha256="")


def update_to_15(manifest: dict[str, Any], rows: Rows) -> None:
    """15: the sliced design (running/slices.py): a trial's calls may have run in slices alternating with its
    unit's other targets; trials gain slice_calls, slice_p50s_ns and slice_means_ns. An older run's trials ran
    in one `run` each: the columns are empty (a sequential trial)."""
    _add_columns(rows, slice_calls="", slice_p50s_ns="", slice_means_ns="")


def update_to_16(manifest: dict[str, Any], rows: Rows) -> None:
    """16: points gain `load_of` (point.py): a baseline's sweep step run at a middleware's offered rate, to pair
    the two at the same offered load. An older run ran every step at its target's own rate: the default, ""."""
    _add_columns(rows, load_of="")


def update_to_17(manifest: dict[str, Any], rows: Rows) -> None:
    """17: trials gain out_segs_per_call (running/wire_reading.py): the TCP data segments the client sent per
    call over the trial's warm-up and timed calls, read around every trial. An older run read the same figure only
    on the trials that read the anatomy (wire_out_segs, over the same calls): theirs is copied, the others empty."""
    for row in rows:
        row.setdefault("out_segs_per_call", row.get("wire_out_segs") or "")


def update_to_18(manifest: dict[str, Any], rows: Rows) -> None:
    """18: trials gain client_jit_ms, the JIT compile time a JVM client finished during its timed calls. An
    older run's workers did not say: empty."""
    _add_columns(rows, client_jit_ms="")


def update_to_19(manifest: dict[str, Any], rows: Rows) -> None:
    """19: trials gain slice_sizes, the calls of each slice in the samples file. An older run's runner cut a
    trial's calls evenly into its slices (trial.split_evenly), so that split is theirs: right for every point but
    a threads point with uneven slices, which the summary's check against the slice p50s then leaves whole."""
    for row in rows:
        p50s = measurement_cell("slice_p50s_ns", row.get("slice_p50s_ns") or "")
        calls = measurement_cell("calls", row.get("calls") or "")
        sizes = tuple(split_evenly(calls, len(p50s))) if p50s and calls else None
        row.setdefault("slice_sizes", as_cell(sizes))


def update_to_20(manifest: dict[str, Any], rows: Rows) -> None:
    """20: trials gain slice_turns, the turns a sliced trial's client took inside one `run`. An older run's
    sliced trials ran one `run` per slice: empty."""
    _add_columns(rows, slice_turns="")


UPDATES: dict[int, Callable[[dict[str, Any], Rows], None]] = {
    2: update_to_2, 3: update_to_3, 4: update_to_4, 5: update_to_5, 6: update_to_6, 7: update_to_7,
    8: update_to_8, 9: update_to_9, 10: update_to_10,
    11: update_to_11, 12: update_to_12, 13: update_to_13, 14: update_to_14, 15: update_to_15,
    16: update_to_16, 17: update_to_17, 18: update_to_18, 19: update_to_19, 20: update_to_20,
}
SCHEMA_VERSION = max(UPDATES)


def upgrade(manifest: dict[str, Any], rows: Rows) -> tuple[dict[str, Any], Rows]:
    """The manifest and rows of any schema version, in the current layout. The manifest keeps the version it
    was written with as `schema_version_read`."""
    version = int(manifest.get("schema_version", 1))
    if version > SCHEMA_VERSION:
        from orbench.errors import UserError

        raise UserError(f"run {manifest.get('run_id')} has results schema {version}; this orbench reads up to "
                        f"{SCHEMA_VERSION}: update orbench")
    for step in range(version + 1, SCHEMA_VERSION + 1):
        UPDATES[step](manifest, rows)
    manifest["schema_version_read"] = version
    manifest["schema_version"] = SCHEMA_VERSION
    return manifest, rows
