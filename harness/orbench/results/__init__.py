"""A run's data as it is on disk: point.py (Point, PointGroup: what a trial measured), trial.py (Trial: one row of
trials.csv), store.py (the run directory and its schema changelog), upgrade.py (older runs brought to the current
layout when read), units.py, run_warnings.py (RunWarning). Statistics over it live in orbench.stats, what is
computed from a whole run in orbench.summary."""
