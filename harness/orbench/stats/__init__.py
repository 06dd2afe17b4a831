"""Statistics over trials and samples, from numbers only (no files, no workers): stats.py (a point's samples and
per-trial p50s), intervals.py (bootstrap and paired intervals), tdist.py (Student t), significance.py and
equivalence.py (tests between runs and targets), launches.py (intervals over process launches and the variance
split), known_fit.py (recovered against known added delays), stalls.py (long stalls in a trial's samples),
phases.py (the host's speed read off a baseline's slices, and the slices read block by block; like stats.py's
read_samples, it reads a sliced trial's samples file back into its slices)."""
