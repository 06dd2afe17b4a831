"""Results: what a run leaves on disk and what is computed from it.

The data (everything below reads and writes it): point.py (Point, PointGroup: what a trial measured), trial.py
(Trial: one row of trials.csv), store.py (the run directory and its schema changelog), upgrade.py (older runs
brought to the current layout when read), stats.py, units.py.
Computed from a run, never from anything else: summary.py (summary.json) with sections.py, table.py (the summary
table), compare.py (two runs), history.py (every run of a results directory, each point run after run),
export.py (CSV and HdrHistogram logs), equivalence.py, jmh.py (JMH runs).
"""
