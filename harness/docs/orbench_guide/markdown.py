"""Text from the code (schema descriptions, help texts, docstrings) made safe for a Markdown table cell."""

from __future__ import annotations

import html


def cell(text: str) -> str:
    """One line, pipes escaped, and `<`, `>`, `&` as text outside code spans (results/<name>/ is not a tag)."""
    parts = " ".join(text.split()).split("`")
    # even parts are prose, odd ones code spans (backticks keep their text as it is)
    return "`".join(html.escape(p, quote=False) if i % 2 == 0 else p for i, p in enumerate(parts)).replace("|", "\\|")
