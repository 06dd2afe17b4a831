"""Soak runs: a target's workers for hours at a fixed rate or closed loop, one histogram per interval.

duration: "24h", "90m" as seconds; intervals: a worker's interval events as HdrHistogram interval logs;
procstats: a process's memory and CPU; session: one soak of one target, written as it goes.
"""
