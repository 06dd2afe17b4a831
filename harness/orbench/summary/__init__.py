"""What is computed from a whole run, never from anything else: summary.py (summary.json) with sections.py and
invariants.py, table.py (the summary table), compare.py and envdiff.py (two runs), agreement.py (several runs of
one campaign), history.py (every run of a results directory), export.py (CSV and HdrHistogram logs), jmh.py (JMH
runs ingested as runs)."""
