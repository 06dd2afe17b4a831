"""Not a test: the profile mode's known answer, measured. Run it on a quiet machine.

    cd harness && ../.venv/bin/python -m tests.measure_profile_known_answer [--tolerance 0.05] [--profile-s 0.4]
        [--placement same-core] [--period-us 100]

Runs the known-answer servers c-socket-delay@2000, @10000 and @50000 (each spins N ns per call in
orbench::known_answer_spin) and c-socket in the profile mode, and prints, per N, the spin's share of the server's
samples beside N over the server's CPU per call (the kernel's count in the same profiled trial), and their
relative difference. Exits 1 when a difference exceeds the tolerance. The spin runs until N ns of wall-clock time
have passed: on a busy machine it is preempted and uses less CPU than N, so the check means something only on a
quiet one.

Then, per server (the known-answer ones and c-socket), what tells the possible causes of a miss apart: samples per
call; its CPU per call as the kernel counted it in the profiled trial and in the point's ordinary trials (their
difference over the samples per call: what one perf sample costs the server); the CPU per call its samples add up
to; and, for a known-answer server, the spin's sampled time per call, which cannot exceed N if the samples and N
were in one clock (the spin runs N ns of CLOCK_MONOTONIC at most); and the share of its samples taken where
interrupts came back on (anatomy/folded.IRQ_REENABLE), which a sampling clock that is itself an interrupt defers to.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from orbench.anatomy.folded import share
from orbench.results.store import RunStore
from orbench.summary.profiles import worker_profiles

from tests.test_profile import SPIN, known_answer_campaign, known_answers

DELAYS_NS = [2000, 10000, 50000]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tolerance", type=float, default=0.05, help="relative, default 0.05")
    parser.add_argument("--profile-s", type=float, default=0.4, help="each profiled trial's timed calls, s")
    parser.add_argument("--placement", default="same-core", help="same-core (default), split-core or unpinned")
    parser.add_argument("--period-us", type=float, default=100, help="perf's sampling period, us (default 100)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        campaign = Path(tmp) / "known.toml"
        campaign.write_text(known_answer_campaign(DELAYS_NS, "known", args.profile_s, args.placement,
                                                   args.period_us))
        results = Path(tmp) / "results"
        done = subprocess.run([sys.executable, "-m", "orbench", "run", str(campaign), "--profile", "--no-report",
                               "--results", str(results)], capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 2
        store = RunStore((results / "known" / "latest").resolve())
        answers = known_answers(store)
        servers = server_lines(store)
    worst = 0.0
    print(f"{'N':>8}  {'spin share':>10}  {'N / CPU':>8}  {'difference':>10}")
    for n, (spin, expected) in sorted(answers.items()):
        diff = (spin - expected) / expected
        worst = max(worst, abs(diff))
        print(f"{n / 1000:>6g}us  {spin:>10.3f}  {expected:>8.3f}  {diff:>+10.1%}")
    print()
    print("\n".join(servers))
    return 0 if worst <= args.tolerance else 1


def server_lines(store: RunStore) -> list[str]:
    """Per server: samples per call, its counted CPU per call profiled and not, what a sample costs, its sampled
    CPU per call and the spin's sampled time per call."""
    ordinary: dict[str, list[float]] = {}
    for t in store.read_trials():
        if t.ok and t.server_cpu_us is not None:
            ordinary.setdefault(t.point.target, []).append(t.server_cpu_us)
    profiles, _missing = worker_profiles(store)
    lines = [f"{'server':>22}  {'samples/call':>12}  {'CPU profiled':>12}  {'CPU ordinary':>12}  {'per sample':>10}  "
             f"{'sampled CPU':>11}  {'spin sampled':>12}  {'deferred':>8}"]
    for (point, role), w in sorted(profiles.items(), key=lambda item: item[0][0].target):
        if role != "server" or w.counted_cpu_ns is None:
            continue
        per_call = w.record.samples / w.record.calls
        profiled_us = w.counted_cpu_ns / 1000
        plain_us = statistics.mean(ordinary[point.target]) if point.target in ordinary else float("nan")
        spin = f"{share(w.profile, SPIN) * w.sampled_cpu_ns / 1000:>9.2f} us" if "@" in point.target else ""
        lines.append(f"{point.target:>22}  {per_call:>12.3f}  {profiled_us:>9.2f} us  {plain_us:>9.2f} us  "
                     f"{(profiled_us - plain_us) / per_call:>7.1f} us  {w.sampled_cpu_ns / 1000:>8.2f} us  {spin:>12}  "
                     f"{w.deferred_share:>8.1%}")
    return lines


if __name__ == "__main__":
    sys.exit(main())
