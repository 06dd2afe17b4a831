"""README.md's headline: the reference set's headline figure and each middleware's added latency at 1 B, written
between two markers by `make reference` (never by hand); the guide's tests check that it is what the reference
set says."""

from __future__ import annotations

from orbench.errors import UserError
from orbench.paths import repo_root

from orbench_guide.quotes import added_table
from orbench_guide.reference_set import ReferenceSet

BEGIN = "<!-- reference figures: written by `make reference` from results/reference/; do not edit by hand -->"
END = "<!-- end of reference figures -->"
# The point the README's table shows: the smallest call, where a middleware's own work shows most.
HEADLINE = ("twoway", 1, "same-core")


def headline_figure(ref: ReferenceSet) -> str:
    """The report's headline figure at same-core: middleware-added latency per payload, a row per language."""
    figures = sorted((ref.path / "figures").glob("orb-added-*same-core*.png"))
    if not figures:
        raise UserError(f"{ref.path}/figures has no orb-added-*same-core*.png: the reference set's campaign must "
                        "measure middleware against their baselines at same-core (the middleware campaign does)")
    return figures[0].relative_to(repo_root()).as_posix()


def block(ref: ReferenceSet) -> str:
    mode, size, placement = HEADLINE
    return "\n".join([
        BEGIN,
        f"![Middleware-added latency per payload size, {placement}: each middleware's p50 minus its language's "
        f"socket baseline, with 95% intervals]({headline_figure(ref)})",
        "",
        added_table(ref, mode, size, placement),
        "",
        f"*From the reference result set: {ref.source}; every figure of it in "
        f"[its report](results/reference/report.html).*",
        END,
    ])


def current_block(text: str) -> str:
    """The block README.md holds now; UserError when its markers are missing."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise UserError(f"README.md has no reference figures block (the lines {BEGIN!r} and {END!r})")
    return text[start:end + len(END)]


def update_readme(ref: ReferenceSet) -> None:
    readme = repo_root() / "README.md"
    text = readme.read_text()
    readme.write_text(text.replace(current_block(text), block(ref)))
