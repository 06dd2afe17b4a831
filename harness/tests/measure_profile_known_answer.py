"""Not a test: the profile mode's known answer, measured. Run it on a quiet machine.

    cd harness && ../.venv/bin/python -m tests.measure_profile_known_answer [--tolerance 0.05] [--profile-s 0.4]

Runs the known-answer servers c-socket-delay@2000, @10000 and @50000 (each spins N ns per call in
orbench::known_answer_spin) and c-socket in the profile mode, and prints, per N, the spin's share of the server's
samples beside N over the server's CPU per call (the kernel's count in the same profiled trial), and their
relative difference. Exits 1 when a difference exceeds the tolerance. The spin runs until N ns of wall-clock time
have passed: on a busy machine it is preempted and uses less CPU than N, so the check means something only on a
quiet one.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from orbench.results.store import RunStore

from tests.test_profile import known_answer_campaign, known_answers

DELAYS_NS = [2000, 10000, 50000]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tolerance", type=float, default=0.05, help="relative, default 0.05")
    parser.add_argument("--profile-s", type=float, default=0.4, help="each profiled trial's timed calls, s")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        campaign = Path(tmp) / "known.toml"
        campaign.write_text(known_answer_campaign(DELAYS_NS, "known", args.profile_s))
        results = Path(tmp) / "results"
        done = subprocess.run([sys.executable, "-m", "orbench", "run", str(campaign), "--profile", "--no-report",
                               "--results", str(results)], capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 2
        answers = known_answers(RunStore((results / "known" / "latest").resolve()))
    worst = 0.0
    print(f"{'N':>8}  {'spin share':>10}  {'N / CPU':>8}  {'difference':>10}")
    for n, (spin, expected) in sorted(answers.items()):
        diff = (spin - expected) / expected
        worst = max(worst, abs(diff))
        print(f"{n / 1000:>6g}us  {spin:>10.3f}  {expected:>8.3f}  {diff:>+10.1%}")
    return 0 if worst <= args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
