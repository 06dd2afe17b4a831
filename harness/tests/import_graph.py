"""The import graph of orbench (harness/orbench), its plotting stage (plots/orbench_plots) and its user guide's
builder (harness/docs/orbench_guide), read from the source
with ast (every import, also those inside functions), and the layers it must respect.

    cd harness && ../.venv/bin/python -m tests.import_graph      prints the layers and every module's imports

A module may import from its own layer and the layers below it. A layer is a package of orbench, named for what
it holds, so a module's layer is its package's name (the top-level modules errors, paths, schemas are core; cli
and __main__, the way in, are commands). From the bottom:
  core       orbench's errors, paths and schemas (reading a TOML file against its JSON Schema)
  idl        the IDL translator the C++ and Java builds run (standard library only)
  results    point, trial, store, upgrade, units, run_warnings, manifest: a run's typed records and its store
  stats      statistics over trials and samples: intervals, t, significance, equivalence, launches, known-answer
             fits, stalls
  anatomy    what a worker process costs the machine per call, from the kernel's own accounting (/proc,
             TCP_INFO, the namespace's TCP events, strace): read around trials, by check-target, by the summary
  targets    descriptors, the worker contract, the workers seen from the harness, conformance
  hosts      SSH, deployment, host facts, JDKs, placement, readiness, inventories, namespace test hosts
  campaign   campaign files and what they expand into
  running    the runner, the order of trials, measurement, the stopping rule, progress, soak
  summary    summary.json and what reads a run as a whole: sections, tables, compare, agreement, history, export
  commands   one module per subcommand, and cli.py
  plots      figures and the report (orbench_plots, a package of its own that the commands reach only through
             its declared entry points)
  guide      the user guide's pages made from the code and the reference result set (orbench_guide, a package
             of its own that MkDocs runs; nothing imports it)
so the data flows campaign -> running -> results -> summary -> plots, and no layer reaches up.
"""

from __future__ import annotations

import ast
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[1]
ROOTS = {"orbench": HARNESS / "orbench", "orbench_plots": HARNESS.parent / "plots" / "orbench_plots",
         "orbench_guide": HARNESS / "docs" / "orbench_guide"}
LAYERS = ("core", "idl", "results", "stats", "anatomy", "targets", "hosts", "campaign", "running", "summary",
          "commands", "plots", "guide")
ENTRY_MODULES = ("cli", "__main__")


def layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "orbench_plots":
        return "plots"
    if parts[0] == "orbench_guide":
        return "guide"
    if len(parts) == 1 or parts[1] in ENTRY_MODULES:
        return "core" if len(parts) == 1 else "commands"
    if parts[1] in LAYERS:
        return parts[1]
    if (ROOTS["orbench"] / f"{parts[1]}.py").exists():
        return "core"
    raise ValueError(f"{module} is in no layer: orbench's packages are its layers ({', '.join(LAYERS)})")


def modules() -> dict[str, Path]:
    out = {}
    for package, root in ROOTS.items():
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join((package, *parts))] = path
    return out


def graph() -> dict[str, set[str]]:
    """module -> the modules of orbench and orbench_plots it imports."""
    known = modules()
    out: dict[str, set[str]] = {}
    for name, path in known.items():
        deps: set[str] = set()
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name.split(".")[0] in ROOTS)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                if base.split(".")[0] not in ROOTS:
                    continue
                for alias in node.names:  # `from orbench.stats import stats` imports a module
                    deps.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
        out[name] = {d for d in deps if d != name}
    return out


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import each other, directly or around a loop (Tarjan's SCCs of size > 1)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return found


def upward(g: dict[str, set[str]]) -> list[str]:
    """Imports from a module to a module of a higher layer."""
    return [f"{a} ({layer(a)}) imports {b} ({layer(b)})" for a in sorted(g) for b in sorted(g[a])
            if LAYERS.index(layer(b)) > LAYERS.index(layer(a))]


def render(g: dict[str, set[str]]) -> str:
    def short(m: str) -> str:
        return m.replace("orbench_plots.", "plots.").replace("orbench_guide.", "guide.").replace("orbench.", "")

    lines = []
    for name in LAYERS:
        members = sorted(m for m in g if layer(m) == name)
        lines.append(f"{name}:")
        for m in members:
            deps = ", ".join(short(d) for d in sorted(g[m]))
            lines.append(f"  {short(m)}" + (f" -> {deps}" if deps else ""))
    return "\n".join(lines)


if __name__ == "__main__":
    g = graph()
    print(render(g))
    problems = [" <-> ".join(c) for c in cycles(g)] + upward(g)
    print("\n".join(["", "problems:", *problems]) if problems else "\nno cycle, no import against the layers")
