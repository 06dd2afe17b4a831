"""results/reference/: the reference result set the guide and README.md quote their figures from, and the
command that writes it from a finished run (`make reference`).

A reference set is a run's summary.json (gzip-compressed, as summary.json.gz), manifest.json, report.html and
figures/, and reference.json (run id, campaign, the machine named, when it was made, the command): no raw samples (no
.i64, .hlog or .csv), so it stays small enough to commit. It is written only from a run (make_reference.py), never edited by hand.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from orbench.errors import UserError
from orbench.paths import repo_root
from orbench.results.store import open_run
from orbench.summary.model import PointSummary, RunSummary
from orbench.summary.run_checks import BUSY_FOREIGN_CPU_PCT

# What a reference set holds; a raw sample never goes in. The middleware campaign's summary is some 2.6 MB of
# JSON (its anatomy half of it) and 0.3 MB compressed: each `make reference` adds that to the repository's history.
KEPT_FILES = ("summary.json", "manifest.json", "report.html")
SUMMARY_FILE = "summary.json.gz"

KEPT_FIGURES = ("*.png",)
RAW_SUFFIXES = (".i64", ".hlog", ".csv")
REGENERATE = "`make reference` (the middleware campaign, about 12 minutes: run it on a quiet machine)"


def reference_dir() -> Path:
    return repo_root() / "results" / "reference"


@dataclass(frozen=True)
class ReferenceSet:
    """A reference set as read back: where it is, what reference.json says, and its summary."""

    path: Path
    run_id: str
    campaign: str
    machine: str
    made: str
    command: str
    summary: RunSummary
    conditions: str = ""

    @property
    def source(self) -> str:
        """The run named as every quoting page names it, with the conditions it ran in."""
        conditions = f", {self.conditions}" if self.conditions else ""
        return f"run {self.run_id} of the {self.campaign} campaign on {self.machine}{conditions} ({self.made})"

    def point(self, target: str, mode: str, payload_bytes: int, placement: str) -> PointSummary:
        """The one-client `in` point of a target; UserError naming what is missing otherwise."""
        found = [p for p in self.summary.points
                 if p.point.target == target and p.point.mode == mode and p.point.payload_bytes == payload_bytes
                 and p.point.placement == placement and p.point.clients == 1 and p.point.shape == "in"
                 and p.point.host_pair == "local" and p.point.options == "" and p.point.payload_type == "octets"]
        if not found or not found[0].measured:
            raise UserError(f"{self.path}/{SUMMARY_FILE}: no measured point {target} {mode} {payload_bytes} B "
                            f"{placement} in {self.source}: regenerate it with {REGENERATE}, or quote a point it has")
        return found[0]


def load(path: Path | None = None) -> ReferenceSet:
    """The reference set at `path` (default results/reference/); UserError saying how to make it when missing."""
    path = path or reference_dir()
    about_file, summary_file = path / "reference.json", path / SUMMARY_FILE
    for needed in (about_file, summary_file, path / "report.html"):
        if not needed.is_file():
            raise UserError(f"{needed} is missing: the guide and README.md quote their figures from the reference "
                            f"result set in {path}; make it with {REGENERATE}, or restore it with "
                            f"`git checkout -- {path.relative_to(repo_root()) if path.is_relative_to(repo_root()) else path}`")
    try:
        about = json.loads(about_file.read_text())
        summary = RunSummary.from_json(json.loads(gzip.decompress(summary_file.read_bytes())))
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise UserError(f"{path}: not a reference set this orbench can read ({exc}); make it again with "
                        f"{REGENERATE}") from None
    return ReferenceSet(path, about["run_id"], about["campaign"], about["machine"], about["made"], about["command"],
                        summary, about.get("conditions", ""))


def machine_of(manifest: dict[str, Any]) -> str:
    """A machine's name from the run's recorded environment (manifest environment.host, hosts/environment.py):
    "2-vCPU AMD EPYC VM, Debian 12, kernel 6.18"."""
    host = manifest.get("environment", {}).get("host", {})
    virtual = str(host.get("hypervisor", "")).lower() not in ("", "no", "none", "false")
    os_short = re.sub(r"GNU/Linux | \(.*\)", "", str(host.get("os", ""))).strip() or "unknown OS"
    words = str(host.get("kernel", "")).split()  # "Linux 6.18.44-fc-v595 #1 SMP ...": the release is the second
    release = ".".join(words[1].split(".")[:2]) if len(words) > 1 else "?"
    cpus = f"{host.get('logical_cpus', '?')}-{'vCPU' if virtual else 'CPU'}"
    return f"{cpus} {host.get('cpu_model') or 'unknown CPU'} {'VM' if virtual else 'machine'}, {os_short}, kernel {release}"


def conditions_of(summary: RunSummary, launches: int) -> str:
    """The run's conditions as a reader of its figures needs them: "2 launches; other processes used 0.0% of the
    CPUs' time over its trials, steal 0.0%"."""
    foreign, steal = summary.machine.foreign_cpu_pct, summary.machine.steal_pct
    shared = ("other processes' share of the CPUs unknown" if foreign is None else
              f"other processes used {foreign:.1f}% of the CPUs' time over its trials")
    return f"{launches} launch{'es' if launches != 1 else ''}; {shared}" + \
        (f", steal {steal:.1f}%" if steal is not None else "")


def unfit(summary: RunSummary, manifest: dict[str, Any], launches: int) -> list[str]:
    """Why a run should not be the reference, whose figures the guide quotes as this machine's: other work shared
    the machine over its trials (the summary's share of the CPUs' time used by processes outside orbench, above
    the level at which `orbench compare` warns), it made one launch only (a campaign's first run on a machine may
    be its budget's pilot), or it ran uncommitted code."""
    reasons = []
    foreign = summary.machine.foreign_cpu_pct
    if foreign is not None and foreign > BUSY_FOREIGN_CPU_PCT:
        reasons.append(f"other processes used {foreign:.1f}% of the CPUs' time over its trials (more than "
                       f"{BUSY_FOREIGN_CPU_PCT:g}%)")
    if launches < 2:
        reasons.append(f"it made {launches} launch{'es' if launches != 1 else ''}, so its intervals rest on one "
                       "process's trials (a campaign's first run on a machine may be only its budget's pilot: run it "
                       "again)")
    if manifest.get("environment", {}).get("git", {}).get("dirty"):
        reasons.append("it ran a tree with uncommitted changes (git dirty), so its commit does not say what ran")
    return reasons


def write_reference(run_dir: Path, machine: str = "", dest: Path | None = None, anyway: bool = False) -> ReferenceSet:
    """Replace the reference set at `dest` with the run at `run_dir`: its summary, manifest, report and figures,
    and reference.json. The run must have its summary and report (orbench run makes both), and be fit (`unfit`)
    unless `anyway` (then reference.json says why it was not)."""
    store = open_run(str(run_dir))
    dest = dest or reference_dir()
    for name in KEPT_FILES:
        if not (store.path / name).is_file():
            raise UserError(f"{store.path / name} is missing: run `orbench summarize` and `orbench report` on "
                            f"{store.path} first")
    manifest = json.loads((store.path / "manifest.json").read_text())
    summary = RunSummary.from_json(json.loads((store.path / "summary.json").read_text()))
    launches = len({t.launch for t in store.read_trials() if t.status == "ok"})
    reasons = unfit(summary, manifest, launches)
    if reasons and not anyway:
        raise UserError(f"{store.path} is not fit to be the reference: {'; and '.join(reasons)}. Run the campaign "
                        f"again on a quiet machine from a committed tree, or pass --anyway to make it the reference "
                        f"with these conditions stated")
    conditions = conditions_of(summary, launches) + (f" (made anyway: {'; '.join(reasons)})" if reasons else "")
    about = {
        "run_id": manifest["run_id"],
        "campaign": manifest.get("campaign", {}).get("name", store.path.parent.name),
        "machine": machine or machine_of(manifest),
        "conditions": conditions,
        "made": str(manifest.get("started_at", ""))[:10] or datetime.now(UTC).date().isoformat(),
        "command": manifest.get("command", ""),
        "git_commit": manifest.get("environment", {}).get("git", {}).get("commit"),
    }
    staging = dest.with_name(dest.name + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "figures").mkdir(parents=True)
    for name in KEPT_FILES:
        if name == "summary.json":
            # Compact and compressed, with no time stamp in the gzip header, so the same run makes the same file.
            text = json.dumps(json.loads((store.path / name).read_text()), separators=(",", ":"))
            (staging / SUMMARY_FILE).write_bytes(gzip.compress(text.encode(), mtime=0))
        elif name.endswith(".json"):
            # Written compact: a run's indented manifest of a full campaign is megabytes in the repository.
            (staging / name).write_text(json.dumps(json.loads((store.path / name).read_text()), separators=(",", ":")))
        else:
            shutil.copy2(store.path / name, staging / name)
    for pattern in KEPT_FIGURES:
        for figure in sorted((store.path / "figures").glob(pattern)):
            shutil.copy2(figure, staging / "figures" / figure.name)
    (staging / "reference.json").write_text(json.dumps(about, indent=2) + "\n")
    shutil.rmtree(dest, ignore_errors=True)
    staging.rename(dest)
    return load(dest)


def raw_files(path: Path | None = None) -> list[Path]:
    """Raw samples in a reference set (there must be none)."""
    path = path or reference_dir()
    return sorted(p for p in path.rglob("*") if p.suffix in RAW_SUFFIXES)
