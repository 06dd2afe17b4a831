"""How long healthy trials go without progress, as the progress watchdog sees it (running/watchdog.py): the
evidence behind the default of the campaign key stall_timeout_s. Not a test (it runs whole campaigns):

    .venv/bin/python harness/tests/measure_stall_gaps.py quick [more campaigns or files...]

Runs each campaign (results in a scratch directory) with the watchdog's bound set out of reach, records every
trial's longest time without progress, and prints the longest per campaign and per target. The watchdog polls
every POLL_S (0.5 s): a quiet time shorter than that reads as 0.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections import defaultdict

from orbench.campaign.spec import read_campaign
from orbench.commands.common import campaign_path
from orbench.results.store import RunStore
from orbench.running import measure
from orbench.running.runner import Runner


def main(names: list[str]) -> None:
    os.environ.setdefault("ORBENCH_RESULTS", tempfile.mkdtemp(prefix="orbench-gaps-"))
    seen: list[tuple[str, object]] = []
    start = measure.start_watchdog

    def recording(session, clients, plan):
        dog = start(session, clients, plan)
        if dog is not None:
            seen.append((session.target.name, dog))
        return dog

    measure.start_watchdog = recording  # measure_single and clients.measure_group look it up at call time
    import orbench.running.clients as clients_module
    clients_module.start_watchdog = recording
    for name in names:
        campaign = read_campaign(campaign_path(name))
        campaign = campaign.with_settings(stall_timeout_s=1e9)  # never trips: only the quiet times are wanted
        seen.clear()
        Runner(campaign, RunStore.create(campaign.name)).run()
        by_target: dict[str, float] = defaultdict(float)
        for target, dog in seen:
            by_target[target] = max(by_target[target], dog.longest_quiet_s)  # type: ignore[attr-defined]
        print(f"{name}: {len(seen)} trials watched; longest quiet "
              f"{max(by_target.values(), default=0.0):.2f} s; by target: "
              + ", ".join(f"{t} {q:.2f} s" for t, q in sorted(by_target.items())))


if __name__ == "__main__":
    main(sys.argv[1:] or ["quick"])
