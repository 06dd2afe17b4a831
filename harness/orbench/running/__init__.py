"""Running a campaign: runner.py (workers started per block, trials stored as they end), schedule.py (the order:
which point group and which target next), session.py (a target's live workers), measure.py (one trial of one
client) and clients.py (one trial of N clients), stopping.py (how many trials a point gets), steady.py (warming a worker until its latency is steady), cpu_usage.py (how
busy the hosts were during a trial), progress.py; soak/ (soak points: a point for a duration, one
histogram per interval, run by the same runner)."""
