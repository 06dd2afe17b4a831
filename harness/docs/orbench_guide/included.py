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
_FENCE = re.compile(r"^(\s*)(```|~~~)")


def as_python_markdown(text: str) -> str:
    """GitHub's Markdown as MkDocs' Python-Markdown reads it. GitHub takes a list right under a paragraph's line,
    and a list item's code blocks and later paragraphs indented by two spaces; Python-Markdown needs a blank line
    before a list and four spaces in an item, and has no code fences in lists. So a list gets its blank line, and
    an item's fenced block or paragraph after a blank line comes out of the list, unindented."""
    out: list[str] = []
    fence_indent: int | None = None
    unindenting = False                         # a paragraph taken out of its list item, line by line
    for line in text.splitlines():
        fence = _FENCE.match(line)
        if fence_indent is not None:            # inside a fenced block: as far left as its fence
            out.append(line[fence_indent:] if line[:fence_indent].strip() == "" else line)
            if fence and len(fence.group(1)) == fence_indent:
                fence_indent = None
            continue
        if fence:
            fence_indent = len(fence.group(1))
            if fence_indent and out and out[-1].strip():
                out.append("")
            out.append(line[fence_indent:])
            continue
        after_blank = not out or not out[-1].strip()
        indent = len(line) - len(line.lstrip(" "))
        if _LIST_ITEM.match(line):
            unindenting = False
            if not after_blank and not _LIST_ITEM.match(out[-1]) and not out[-1].startswith((" ", "|", "#")):
                out.append("")
        elif 0 < indent < 4 and (after_blank or unindenting):
            line, unindenting = line.lstrip(" "), True
        elif not line.strip():
            unindenting = False
        out.append(line)
    return "\n".join(out) + "\n"


def included_page(page: str) -> str:
    """The guide's page `page`: the repository's text, and where it lives (edit it there)."""
    source = INCLUDED[page]
    text = (repo_root() / source).read_text()
    note = f"\n\n*This page is `{source}` of the repository, included when the guide is built: edit it there.*\n"
    return as_python_markdown(text) + note
