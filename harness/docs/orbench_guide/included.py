"""The reference texts that live beside the code they describe (the worker contract, the campaigns' and targets'
READMEs, ...), brought into the guide as they are when it is built: one home for each text, the repository's."""

from __future__ import annotations

import re

from orbench.paths import repo_root

# The guide's page for each text of the repository, by its path there.
INCLUDED = {
    "reference/worker-contract.md": "harness/PROTOCOL.md",
    "reference/campaigns.md": "harness/campaigns/README.md",
    "reference/targets.md": "harness/targets/README.md",
    "reference/results-directory.md": "results/README.md",
    "reference/architecture.md": "ARCHITECTURE.md",
    "reference/contributing.md": "CONTRIBUTING.md",
    "reference/cpp-workers.md": "cpp/README.md",
    "reference/java-workers.md": "java/README.md",
    "reference/python-workers.md": "harness/workers/python/README.md",
}

_LIST_ITEM = re.compile(r"^\s*([-*+]|\d+\.)\s")
_FENCE = re.compile(r"^\s*(```|~~~)")


def as_python_markdown(text: str) -> str:
    """GitHub's Markdown as MkDocs' Python-Markdown reads it: a list that starts right under a paragraph's line
    (GitHub's way) gets the blank line Python-Markdown needs to see a list."""
    out: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and _LIST_ITEM.match(line) and out and out[-1].strip() and not _LIST_ITEM.match(out[-1]) \
                and not out[-1].startswith((" ", "|", "#")):
            out.append("")
        out.append(line)
    return "\n".join(out) + "\n"


def included_page(page: str) -> str:
    """The guide's page `page`: the repository's text, and where it lives (edit it there)."""
    source = INCLUDED[page]
    text = (repo_root() / source).read_text()
    note = f"\n\n*This page is `{source}` of the repository, included when the guide is built: edit it there.*\n"
    return as_python_markdown(text) + note
