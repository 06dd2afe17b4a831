"""Ansible-style inventory files (INI or YAML) read into the harness's host specs.

Labs that outgrow a few hosts keep one of these already. Read: hosts, groups, `[group:children]` /
`children:`, `[group:vars]` / `vars:`, host variables, numeric host ranges (`node[01:04]`). Variables used:
`ansible_host` (the address ssh reaches and servers bind), `ansible_user`, `ansible_port`,
`ansible_connection=local` (this machine), and orbench's own `orbench_java`, `orbench_workdir`,
`orbench_address` (what servers bind and advertise, when not ansible_host). Variables apply as in Ansible:
the `all` group's first, then parent groups before their children, then the host's own.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orbench.errors import UserError
from orbench.hosts.ssh import LOCAL, HostSpec, check_url

DEFAULT_WORKDIR = "/tmp/orbench"
_RANGE = re.compile(r"\[(\d+):(\d+)\]")


@dataclass
class Inventory:
    path: Path
    host_vars: dict[str, dict[str, Any]] = field(default_factory=dict)   # host -> its own variables
    group_hosts: dict[str, list[str]] = field(default_factory=dict)      # group -> hosts listed in it
    group_children: dict[str, list[str]] = field(default_factory=dict)   # group -> child groups
    group_vars: dict[str, dict[str, Any]] = field(default_factory=dict)

    # -- building ---------------------------------------------------------------------------------------
    def _group(self, name: str) -> None:
        self.group_hosts.setdefault(name, [])
        self.group_children.setdefault(name, [])
        self.group_vars.setdefault(name, {})

    def _add_host(self, group: str, host: str, variables: dict[str, Any]) -> None:
        self._group(group)
        if host not in self.group_hosts[group]:
            self.group_hosts[group].append(host)
        self.host_vars.setdefault(host, {}).update(variables)

    # -- queries ----------------------------------------------------------------------------------------
    def hosts_of(self, group: str) -> list[str]:
        """Every host in `group` and its children, in file order, once each."""
        out: list[str] = []

        def walk(g: str, seen: tuple[str, ...]) -> None:
            if g in seen:
                raise UserError(f"{self.path}: group {g!r} is its own child ({' -> '.join(seen + (g,))})")
            for h in self.group_hosts.get(g, []):
                if h not in out:
                    out.append(h)
            for child in self.group_children.get(g, []):
                walk(child, seen + (g,))

        if group == "all":
            return list(self.host_vars)
        walk(group, ())
        return out

    def _ancestry(self, host: str) -> list[str]:
        """The groups `host` is in, parents before children (the order their variables apply in)."""
        parents: dict[str, set[str]] = {}
        for g, children in self.group_children.items():
            for c in children:
                parents.setdefault(c, set()).add(g)

        def depth(g: str, seen: frozenset = frozenset()) -> int:
            if g in seen:
                return 0
            return 1 + max((depth(p, seen | {g}) for p in parents.get(g, ())), default=0)

        groups = [g for g in self.group_hosts if g != "all" and host in self.hosts_of(g)]
        return sorted(groups, key=lambda g: (depth(g), g))

    def variables(self, host: str) -> dict[str, Any]:
        merged = dict(self.group_vars.get("all", {}))
        for g in self._ancestry(host):
            merged.update(self.group_vars.get(g, {}))
        merged.update(self.host_vars.get(host, {}))
        return merged

    def host_spec(self, host: str) -> HostSpec:
        """The harness's host spec of `host`: local for ansible_connection=local, else ssh://user@address:port."""
        if host not in self.host_vars:
            raise UserError(f"{self.path}: no host {host!r} in the inventory")
        v = self.variables(host)
        workdir = str(v.get("orbench_workdir", DEFAULT_WORKDIR))
        java = v.get("orbench_java")
        if v.get("ansible_connection") == "local":
            return HostSpec(host, LOCAL, str(v.get("orbench_address", v.get("ansible_host", "127.0.0.1"))),
                            java=java, workdir=workdir)
        address = str(v.get("ansible_host", host))
        port = v.get("ansible_port")
        if port is not None and not (str(port).isdigit() and 1 <= int(port) <= 65535):
            raise UserError(f"{self.path}: host {host!r}: ansible_port {port!r} is not a port number")
        user = v.get("ansible_user")
        at = f"{user}@" if user else ""
        netloc = f"[{address}]" if ":" in address else address
        url = f"ssh://{at}{netloc}" + (f":{port}" if port is not None else "")
        problem = check_url(url)
        if problem:
            raise UserError(f"{self.path}: host {host!r}: {url!r}: {problem}")
        return HostSpec(host, url, str(v.get("orbench_address", address)), java=java, workdir=workdir)

    def resolve(self, ref: str) -> list[HostSpec]:
        """A group's hosts, or one host, by name."""
        if ref in self.group_hosts or ref == "all":
            hosts = self.hosts_of(ref)
            if not hosts:
                raise UserError(f"{self.path}: group {ref!r} has no hosts")
            return [self.host_spec(h) for h in hosts]
        if ref in self.host_vars:
            return [self.host_spec(ref)]
        known = ", ".join(sorted(set(self.group_hosts) | {"all"}))
        raise UserError(f"{self.path}: {ref!r} is neither a group ({known}) nor a host of the inventory")


def _expand(pattern: str) -> list[str]:
    """node[01:03] -> node01, node02, node03 (the width of the first bound is kept)."""
    m = _RANGE.search(pattern)
    if not m:
        return [pattern]
    lo, hi = m.group(1), m.group(2)
    width = len(lo) if lo.startswith("0") else 0
    return [h for n in range(int(lo), int(hi) + 1)
            for h in _expand(pattern[:m.start()] + str(n).zfill(width) + pattern[m.end():])]


def _scalar(text: str) -> Any:
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if text in ("true", "True", "yes"):
        return True
    if text in ("false", "False", "no"):
        return False
    return text


def read_ini(path: Path, text: str) -> Inventory:
    inv = Inventory(path)
    inv._group("all")
    inv._group("ungrouped")
    section, kind = "ungrouped", "hosts"
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        where = f"{path}: line {n}"
        if line.startswith("["):
            m = re.fullmatch(r"\[([A-Za-z0-9_.-]+)(?::(children|vars))?\]", line)
            if not m:
                raise UserError(f"{where}: {line!r} is not a section header ([group], [group:children], "
                                "[group:vars])")
            section, kind = m.group(1), m.group(2) or "hosts"
            inv._group(section)
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError as exc:
            raise UserError(f"{where}: {exc}") from None
        if not words:
            continue
        if kind == "children":
            inv._group(words[0])
            if words[0] not in inv.group_children[section]:
                inv.group_children[section].append(words[0])
        elif kind == "vars":
            key, eq, value = line.partition("=")
            if not eq or not key.strip():
                raise UserError(f"{where}: {line!r} is not NAME=VALUE")
            inv.group_vars[section][key.strip()] = _scalar(value.strip().strip("'\""))
        else:
            variables = {}
            for word in words[1:]:
                key, eq, value = word.partition("=")
                if not eq or not key:
                    raise UserError(f"{where}: {word!r} after host {words[0]!r} is not NAME=VALUE")
                variables[key] = _scalar(value)
            for host in _expand(words[0]):
                inv._add_host(section, host, variables)
    return inv


def read_yaml(path: Path, text: str) -> Inventory:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise UserError(f"{path}: not YAML: {exc}") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: an inventory is a mapping of groups (usually `all:`)")
    inv = Inventory(path)
    inv._group("all")

    def group(name: str, body: Any, where: str) -> None:
        inv._group(name)
        if body is None:
            return
        if not isinstance(body, dict):
            raise UserError(f"{path}: {where}: a group is a mapping with hosts, children, vars")
        unknown = set(body) - {"hosts", "children", "vars"}
        if unknown:
            raise UserError(f"{path}: {where}: unknown key(s) {', '.join(sorted(unknown))} "
                            "(a group has hosts, children, vars)")
        for key in ("hosts", "children", "vars"):
            if not isinstance(body.get(key) or {}, dict):
                raise UserError(f"{path}: {where}.{key}: must be a mapping (name: ...), not a list")
        for host, variables in (body.get("hosts") or {}).items():
            if variables is not None and not isinstance(variables, dict):
                raise UserError(f"{path}: {where}.hosts.{host}: host variables must be a mapping")
            for h in _expand(str(host)):
                inv._add_host(name, h, dict(variables or {}))
        inv.group_vars[name].update(body.get("vars") or {})
        for child, child_body in (body.get("children") or {}).items():
            if str(child) not in inv.group_children[name]:
                inv.group_children[name].append(str(child))
            group(str(child), child_body, f"{where}.children.{child}")

    for name, body in data.items():
        group(str(name), body, str(name))
    return inv


def read_inventory(path: Path) -> Inventory:
    """An inventory file, INI or YAML (by extension .yml/.yaml, else by content)."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise UserError(f"{path}: cannot read the inventory: {exc.strerror}") from None
    looks_yaml = path.suffix in (".yml", ".yaml") or (
        path.suffix != ".ini" and re.match(r"\s*(---|[A-Za-z0-9_.-]+:\s*$)", text) is not None)
    return read_yaml(path, text) if looks_yaml else read_ini(path, text)
