"""Report sections that come from outside the run: the newest JMH run and bench-fidelity run in the same
results store (results/jmh/latest, results/fidelity/latest), each labelled with its own run id."""

from __future__ import annotations

from pathlib import Path


def extra_sections(run_dir: Path) -> list[str]:
    root = run_dir.parent.parent  # results/<campaign>/<run-id> -> results/
    parts = []
    for name in ("jmh", "fidelity"):
        try:
            module = __import__(f"orbench_plots.section_{name}", fromlist=["section"])
        except ImportError:
            continue
        html = module.section(root / name / "latest")
        if html:
            parts.append(html)
    return parts
