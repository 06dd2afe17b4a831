"""The languages of the workers (harness/targets/languages.toml): for each, its label, its socket baseline, the
make target that builds it, where its worker kit lives, its clock and what a new target of it needs. A new
language is data there, not a change to the descriptor schema or to harness code."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from orbench.errors import UserError
from orbench.paths import targets_dir
from orbench.schemas import check, read_toml, schema

LANGUAGES_FILE = "languages.toml"


@dataclass(frozen=True)
class Language:
    name: str
    label: str
    baseline: str
    baseline_label: str
    build: str
    kit: str
    clock: str
    steps: tuple[tuple[str, str], ...] = ()   # (kind, text)
    profiler: str | None = None               # the profile mode's sampling profiler for its workers

    def steps_for(self, kind: str) -> list[str]:
        return [text for k, text in self.steps if k == kind]

    @property
    def row_label(self) -> str:
        """The headline figure's row: what its middleware-added latency is over."""
        return f"{self.label} middleware − {self.baseline_label}"


def languages_path(directory: Path | None = None) -> Path:
    return (directory or targets_dir()) / LANGUAGES_FILE


@cache
def _read(path: Path) -> dict[str, Language]:
    data = read_toml(path, "language registry")
    check(path, data, schema("orbench.targets", "languages"))
    return {name: Language(name=name, label=t["label"], baseline=t["baseline"], baseline_label=t["baseline_label"],
                           build=t["build"], kit=t["kit"], clock=t["clock"],
                           steps=tuple((s["kind"], s["text"]) for s in t.get("steps", [])),
                           profiler=t.get("profiler"))
            for name, t in data.items()}


def read_languages(directory: Path | None = None) -> dict[str, Language]:
    """Every language, by name (read once per file)."""
    path = languages_path(directory)
    if not path.exists():
        raise UserError(f"{path}: missing; it lists the languages targets may be written in")
    return _read(path)


def get_language(name: str, directory: Path | None = None) -> Language:
    languages = read_languages(directory)
    if name not in languages:
        raise UserError(f"unknown language {name!r}; known: {', '.join(languages)} "
                        f"(a new one is a table in {languages_path(directory)})")
    return languages[name]
