"""Warnings that are read: every warning has a kind, and a run ends with one line per kind (how many, and the
worst case), not one line per point. The full list stays in summary.json (`warnings_detail`) and the report."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class RunWarning:
    """One warning: its kind (a short name), where it applies (a point, a host, the run), what it says, and a
    severity that orders the cases of one kind (larger is worse; the worst is the one shown)."""

    kind: str
    where: str
    text: str
    severity: float = 0.0

    def line(self) -> str:
        return f"{self.where}: {self.text}" if self.where else self.text

    def as_dict(self) -> dict:
        return asdict(self)


def grouped_lines(warnings: Iterable[RunWarning]) -> list[str]:
    """One line per kind, in order of first appearance: the worst case, and how many others there are."""
    by_kind: dict[str, list[RunWarning]] = {}
    for w in warnings:
        by_kind.setdefault(w.kind, []).append(w)
    lines = []
    for kind, cases in by_kind.items():
        worst = max(cases, key=lambda w: w.severity)
        more = f" (and {len(cases) - 1} more like it: summary.json lists all)" if len(cases) > 1 else ""
        lines.append(f"{kind}: {worst.line()}{more}")
    return lines
