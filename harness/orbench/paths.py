"""Where things are: the repository root, the results store, the target and campaign directories."""

import os
from pathlib import Path


def repo_root() -> Path:
    """The orbench checkout: ORBENCH_ROOT if set, else the directory above harness/."""
    env = os.environ.get("ORBENCH_ROOT")
    if env:
        return Path(env).resolve()
    return Path(__file__).resolve().parents[2]


def targets_dir() -> Path:
    return repo_root() / "harness" / "targets"


def campaigns_dir() -> Path:
    return repo_root() / "harness" / "campaigns"


def results_dir() -> Path:
    env = os.environ.get("ORBENCH_RESULTS")
    return Path(env).resolve() if env else repo_root() / "results"
