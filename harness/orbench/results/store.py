"""The results store: results/<campaign>/<run-id>/, created once and never overwritten.

A run directory holds
  manifest.json   the campaign as run, every host's environment, worker versions, placement, git commit, status
  trials.csv      one row per trial, appended (and flushed) as each trial ends, so an interrupted or crashed
                  campaign keeps everything that finished
  traced.csv      the anatomy mode's traced trials (strace attached: their system calls; their latency is not
                  a result), one per point and target, same columns as trials.csv
  profiled.csv    the profile mode's profiled trials (sampling profilers attached: their latency is not a
                  result), same columns as trials.csv; profiles/ holds their folded stacks (results/profile.py)
  samples/        raw per-call latencies, little-endian int64 ns, one file per trial
  logs/           each worker's stderr
  summary.json    per target x mode x payload statistics and ORB-added latency, computed from the above
  report.html, figures/   made by the plotting stage from the files above only

SCHEMA_VERSION changes whenever a file's meaning changes; the changelog is here so old runs can be upgraded.
  1: first version.
  2: trials.csv gains trial_end_unix, other_cpus_busy_pct, steal_pct, and host_pair ("local" when absent);
     samples of a non-local host pair live under samples/<host_pair>/; the manifest gains `stopping` (which
     rule ended each point), workers' cpus_allowed, "hosts" (every host's environment) and "host_pairs";
     summary points gain p50_ci95_ns, tail percentiles, stopping, host_pair. Version 1 runs read as before
     (the new fields are empty).
  3: trials.csv gains clients, rate_hz (a point's load; empty = 1 client, closed loop), deadline_misses,
     achieved_rate_hz, client_p50s_ns, aggregate_calls_per_s, start_barrier_complete; a point with N clients
     has one samples file of N x calls samples (client 0's first) and `calls` = N x calls per client; an
     interop target is named "client->server" ("_to_" in file names); summary points gain clients, rate_hz,
     and `load` / `interop` sections. Version 2 runs read as 1 client, closed loop.
  4: trials.csv gains `options` (the option set's label, "" for none; options.option_label); samples of a point
     with options live under samples/[<host_pair>/]<placement>/<target>/<options>/; summary points gain
     `options`; manifest targets gain `option_sets` (per set: client options and server arguments, or why the
     target cannot run it). Older runs read as option set "".
  5: manifest `environment.host` holds the machine's facts in the keys of the host script (hosts/facts.py, the
     same for every host: kernel, cpu_model, logical_cpus, loadavg, TCP sysctls, java_version ...) instead of
     the separate host/kernel/os/cpu/governor/memory/load/java entries.
  6: one point type (point.py) keys everything: trials.csv columns are seq, the point's dimensions, trial, the
     measurement (trial.py); samples live at samples/<point slug>-t<trial>.i64; a trial's load figures
     (loadavg_1m, other_cpus_busy_pct, steal_pct) are those of the pair's hosts, the busiest of them, read on
     the hosts named in the new column `usage_hosts` (before: always the harness machine); oneway trials record
     `warmup_sync_complete` (whether the barrier after the warm-up calls completed); every stopping record
     carries the whole point group; samples.csv of `orbench export` has a column per point dimension.
  7: trials.csv gains foreign_cpu_pct (the share of all CPUs' time used by processes outside orbench's own
     process tree during the trial; this machine only); summary points' p50_ci95_ns is the mean of per-trial
     p50s with a Student-t interval (before: a percentile bootstrap, t_low/t_high beside it), trial_p50_ns has
     robust_cv_pct instead of spread_pct, orb_added_latency_ns has `unpaired` and no bootstrap_ci95, points may
     have `stalls` and `known_answer`; summary.json gains known_answers, machine, warnings_detail, and
     `warnings` is one line per kind; the manifest's campaign gains order_seed, its targets kind "known-answer",
     known_added_ns and parameter.
  8: trials gain the anatomy of a call (orbench.anatomy, trial.py): each worker's CPU time, context switches and
     read/write calls per call, the client connection's bytes and segments per call each way, retransmits and
     the namespace's TCP events, heap allocations and GC; the anatomy mode's traced trials (strace attached,
     their system calls per call) go to traced.csv, same columns, never mixed with the latency trials. Older
     runs read with those fields empty.
  9: process launches (campaign key `launches`): trials.csv gains `launch` (trial numbers count within a launch;
     trial k of an ORB pairs with trial k of its baseline in the same launch); samples live at
     samples/<point slug>-l<launch>-t<trial>.i64; stopping records carry their launch; the manifest gains
     `launches` (each launch's order seed and group order) and `steady_state` (warm-up calls per point, target
     and launch); summary points' p50_ci95_ns and orb_added_latency_ns are over launches when there are two or
     more, with `launches` (per-launch values) and `variance` (between- and within-launch parts). Older runs read
     as one launch, number 0.
  10: the manifest has one type (manifest.py) and always says its `kind` (campaign, soak, jmh); a soak is a
     campaign whose points have a duration (campaign key duration_s): the manifest's `soaks` holds one record
     per point, target and launch (soak.py), its files in soak/<point slug>-l<launch>/, the workers' memory and
     CPU read on their own hosts. A version-9 soak reads as one such record whose files are in soak/.
  11: a trial not run because its point's trials failed or stalled in a row has status `given_up` (it was
     `skipped` with an error beginning "skipped after"; `skipped` now means only that the target cannot run the
     point).
  12: points gain the load-at-scale dimensions (point.py: threading, objects, object_order, clients_as,
     arrivals, offered_load; each at its default in an older run) and trials the load fields (trial.py:
     offered_rate_hz, client_calls, fairness, server and client CPU utilisation, server threads, bottleneck,
     settle_ratio, a serial server's service moments); the manifest's worker records say each target's server
     setting in its own words. trials.csv also gains client_recvs, client_sends, server_recvs, server_sends:
     each worker's recv- and send-family calls per call (recv, recvfrom, recvmsg, recvmmsg; send, sendto,
     sendmsg, sendmmsg), counted inside it by the library the harness preloads (anatomy/syscount.py), which
     /proc/PID/io's syscr and syscw (client_reads, client_writes) do not count. Older runs read with them empty
     (not counted), their reads and writes as before.
  13: points gain the invocation shape (point.py: `shape`: in, out, inout, return, exception, wstring, dii, dsi,
     collocated, ami-N); an older run's points are all `in`, the static stub's call of the earlier versions.
  14: trials.csv gains samples_bytes and samples_sha256: the trial's samples file as the store appended its row,
     checked on every read (integrity.py: a trial whose file is missing, of another size or checksum, or holds
     latencies no clock gives is left out and named). Older runs read with them empty: their files are checked
     against their calls and for their values only.
  15: the sliced design (campaign key slice_calls; running/slices.py): a trial's timed calls may run in slices
     alternating with the other targets of its unit (a baseline and its middleware); its samples file holds the
     slices one after the other, and trials.csv gains slice_calls (calls per slice, empty for a sequential
     trial), slice_p50s_ns and slice_means_ns (each slice's p50 and mean, in order); slice k of a middleware
     pairs with slice k of its baseline. Older runs' trials are sequential.
  16: points gain `load_of` (point.py): a baseline's sweep step run at a middleware's offered rate.
  17: trials.csv gains out_segs_per_call: the TCP data segments the client sent per call, read around every
     trial with a local client (running/wire_reading.py); empty in older runs.
  18: trials.csv gains client_jit_ms: the JIT compile time a JVM client finished during the timed calls
     (PROTOCOL.md, memory.jit_ms); empty in older runs and for workers without a JIT.
  19: trials.csv gains slice_sizes: the calls of each slice, in the order they ran, so the summary cuts the
     samples file into its slices as they were (a threads point's slice holds every thread's calls of it); an
     older run's are the even split its runner made.
  20: trials.csv gains slice_turns: how many turns a sliced trial's client took inside its one `run` (the
     clients handing the turn to each other: PROTOCOL.md, "Turns"); empty where each slice was a `run`.
Older runs are upgraded when read (upgrade.py, one function per version); nothing else knows their layout.
Every read goes through integrity.py: a damaged trial is left out and named on stderr, a run with nothing to
compute on is a UserError naming the file.
"""

from __future__ import annotations

import csv
import json
import os
import socket
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from orbench.errors import UserError
from orbench.paths import results_dir
from orbench.results import integrity
from orbench.results.integrity import CheckedTable, Damage, samples_digest
from orbench.results.manifest import Manifest
from orbench.results.point import Point
from orbench.results.trial import COLUMNS, Trial, to_row
from orbench.results.upgrade import SCHEMA_VERSION

# trials.csv is fsynced at most this often (seconds); every row reaches the kernel at once.
FSYNC_INTERVAL_S = 10.0
# A manifest written `lazily` (a point group's stopping record, 108 of them in quick) waits until this long after
# the last write: a 280 KB manifest took 6-7 ms to write, 1 s of a quick run on a 2-vCPU VM. A crash loses at
# most this much of the records, and a resume then runs those groups' rules again over their kept trials.
MANIFEST_INTERVAL_S = 5.0
_WARNED: set[tuple[Path, Damage]] = set()


def write_json_atomic(path: Path, value: Any) -> None:
    write_text_atomic(path, json.dumps(value, indent=2, sort_keys=False, default=str) + "\n")


def write_text_atomic(path: Path, text: str) -> None:
    """The file replaced only once the new one is whole: a failure leaves the old one and no temporary file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


class RunStore:
    """One run's directory. Creating it picks a fresh run id; an existing directory is never reused."""

    def __init__(self, path: Path):
        self.path = path
        self._synced = float("-inf")  # when trials.csv was last fsynced (monotonic clock)
        self._manifest_written = float("-inf")  # when manifest.json was last written (monotonic clock)
        self.samples_dir = path / "samples"
        self.logs_dir = path / "logs"

    @classmethod
    def create(cls, campaign: str, root: Path | None = None) -> RunStore:
        base = (root or results_dir()) / campaign
        base.mkdir(parents=True, exist_ok=True)
        stem = time.strftime("%Y%m%d-%H%M%S") + "-" + socket.gethostname().split(".")[0]
        for n in range(1, 1000):
            run_id = stem if n == 1 else f"{stem}-{n}"
            try:
                (base / run_id).mkdir()
            except FileExistsError:
                continue
            store = cls(base / run_id)
            store.samples_dir.mkdir()
            store.logs_dir.mkdir()
            return store
        raise UserError(f"{base}: cannot find a free run id for {stem}")

    @property
    def run_id(self) -> str:
        return self.path.name

    def other_runs(self) -> list[Path]:
        """The other runs beside this one in its campaign's directory (each with a manifest; not `latest`),
        oldest first: run ids begin with the time they started."""
        return sorted(p for p in self.path.parent.iterdir() if p.is_dir() and not p.is_symlink()
                      and p != self.path and (p / "manifest.json").is_file())

    @property
    def manifest_path(self) -> Path:
        return self.path / "manifest.json"

    @property
    def trials_path(self) -> Path:
        return self.path / "trials.csv"

    @property
    def traced_path(self) -> Path:
        return self.path / "traced.csv"

    @property
    def profiled_path(self) -> Path:
        return self.path / "profiled.csv"

    @property
    def summary_path(self) -> Path:
        return self.path / "summary.json"

    def write_manifest(self, manifest: Manifest, lazily: bool = False) -> None:
        """The one writer of manifest.json, with the schema version this orbench writes. `lazily`: only when the
        last write is MANIFEST_INTERVAL_S old (a later write, lazy or not, carries what this one skipped)."""
        if not isinstance(manifest, Manifest):
            raise TypeError(f"write_manifest takes a Manifest, not {type(manifest).__name__}")
        if lazily and time.monotonic() - self._manifest_written < MANIFEST_INTERVAL_S:
            return
        write_json_atomic(self.manifest_path, {"schema_version": SCHEMA_VERSION, **manifest.to_json()})
        self._manifest_written = time.monotonic()

    def read_manifest(self) -> dict:
        """The manifest in the current layout, whatever version wrote it, checked (integrity.py)."""
        return integrity.read_manifest(self.path)

    def manifest(self) -> Manifest:
        """The manifest as its type, in the current layout (for a writer that goes on with it: a resume)."""
        return Manifest.from_json(self.read_manifest())

    def read_trials(self) -> list[Trial]:
        """Every trial, in the order run, in the current layout, whatever version wrote it."""
        return self.read()[1]

    def read(self) -> tuple[dict, list[Trial]]:
        """The manifest and the undamaged trials; each damaged one is named on stderr (warn) and left out."""
        manifest, table = self.check()
        self.warn(table.damage)
        return manifest, table.trials

    def check(self, full: bool = True) -> tuple[dict, CheckedTable]:
        """The manifest, trials.csv's undamaged trials and what was left out (integrity.py; `full` reads every
        samples file, else only their sizes). A run with nothing to compute on raises UserError."""
        return integrity.read_table(self.path, integrity.TRIALS, full)

    def warn(self, damage: Iterable[Damage]) -> None:
        """Each damaged trial named once: the run's file, the row, and that it is left out."""
        for d in damage:
            if (self.path, d) not in _WARNED:  # once per process: a command may read a run through several stores
                _WARNED.add((self.path, d))
                print(f"orbench: warning: {self.path}/{d}: trial left out", file=sys.stderr)

    def read_traced(self) -> list[Trial]:
        """The anatomy mode's traced trials (traced.csv), in the current layout; none when the run has none."""
        _manifest, table = integrity.read_table(self.path, integrity.TRACED, full=False)
        self.warn(table.damage)
        return table.trials

    def read_profiled(self) -> list[Trial]:
        """The profile mode's profiled trials (profiled.csv); none when the run has none."""
        _manifest, table = integrity.read_table(self.path, integrity.PROFILED, full=False)
        self.warn(table.damage)
        return table.trials

    def written_schema(self) -> int:
        """The schema version this run was written with."""
        return int(integrity.load_manifest(self.path).get("schema_version", 1))

    def samples_path(self, point: Point, trial: int, launch: int = 0) -> Path:
        self.samples_dir.mkdir(parents=True, exist_ok=True)
        return self.samples_dir / f"{point.slug}-l{launch}-t{trial:03d}.i64"

    def warmup_samples_path(self, point: Point, launch: int, chunk: int) -> Path:
        """A steady-state chunk's samples (untimed for the results; kept to show how the warm-up went)."""
        folder = self.path / "warmup"
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{point.slug}-l{launch}-c{chunk:03d}.i64"

    def traced_samples_path(self, point: Point) -> Path:
        self.samples_dir.mkdir(parents=True, exist_ok=True)
        return self.samples_dir / f"{point.slug}-traced.i64"

    def profiled_samples_path(self, point: Point) -> Path:
        self.samples_dir.mkdir(parents=True, exist_ok=True)
        return self.samples_dir / f"{point.slug}-profiled.i64"

    def append_trial(self, trial: Trial, traced: bool = False, profiled: bool = False) -> None:
        """Appends one row to trials.csv, or (`traced`) to traced.csv, (`profiled`) to profiled.csv; closing the file hands it to the kernel, so
        a harness that crashes or is killed keeps it. fsync (surviving a crash of the machine itself) runs at most every FSYNC_INTERVAL_S: at tens
        of milliseconds each on a VM's disk, one per trial would cost more than a short trial's calls.
        The row records the trial's samples file as it is now, complete: its size and SHA-256 (integrity.py checks them on every read)."""
        path = self.traced_path if traced else self.profiled_path if profiled else self.trials_path
        trial = self._with_digest(trial)
        new = not path.exists()
        if not new:
            with open(path, newline="") as f:
                header = next(csv.reader(f), None)
            if header != COLUMNS:
                raise UserError(f"{path}: written by another results schema "
                                f"({self.written_schema()}, this orbench writes {SCHEMA_VERSION}): cannot append")
            _end_last_line(path)
        with open(path, "a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="raise")
            if new:
                writer.writeheader()
            writer.writerow(to_row(trial))
            f.flush()
            if time.monotonic() - self._synced >= FSYNC_INTERVAL_S:
                os.fsync(f.fileno())
                self._synced = time.monotonic()

    def _with_digest(self, trial: Trial) -> Trial:
        if not trial.samples_file or trial.samples_sha256 is not None:
            return trial
        path = self.path / trial.samples_file
        if not path.is_file():
            return trial
        size, sha256 = samples_digest(path)
        return trial.replace(samples_bytes=size, samples_sha256=sha256)

    def remove_if_empty(self) -> None:
        """Undo create() when nothing ran (e.g. the hosts were not ready): no empty run directories."""
        if any(self.samples_dir.rglob("*.i64")) or self.trials_path.exists() or (self.path / "soak").exists():
            return
        import shutil

        shutil.rmtree(self.path, ignore_errors=True)

    def mark_latest(self) -> None:
        link = self.path.parent / "latest"
        tmp = self.path.parent / f".latest-{os.getpid()}"
        if tmp.is_symlink() or tmp.exists():
            tmp.unlink()
        tmp.symlink_to(self.run_id)
        os.replace(tmp, link)


def _end_last_line(path: Path) -> None:
    """A row cut short by a crash mid-write stays one damaged row: the next one starts on a line of its own."""
    with open(path, "rb+") as f:
        if f.seek(0, os.SEEK_END) == 0:
            return
        f.seek(-1, os.SEEK_END)
        if f.read(1) != b"\n":
            f.write(b"\r\n")


def open_run(spec: str | Path) -> RunStore:
    """A run from a path (a run directory, or a campaign directory meaning its latest run) or a campaign name."""
    candidates = [Path(spec), results_dir() / str(spec)]
    for c in candidates:
        if (c / "manifest.json").is_file():
            return RunStore(c.resolve())
        if (c / "latest" / "manifest.json").is_file():
            return RunStore((c / "latest").resolve())
        if (c / "trials.csv").exists() or (c / "samples").is_dir():
            integrity.load_manifest(c)  # a run that lost its manifest: the error names it
    raise UserError(f"no run found at {spec!r} (give a run directory, results/<campaign>, or a campaign name)")
