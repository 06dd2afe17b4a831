"""The host keys of a campaign file ([hosts.NAME], host_pairs, [ssh]), checked and turned into HostPairs.

A mistake names the file, the key and the value, like every other campaign error.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from orbench.errors import UserError
from orbench.hosts.inventory import Inventory, read_inventory
from orbench.hosts.ssh import LOCAL, HostPair, HostSpec, SshSettings, check_url

DEFAULT_WORKDIR = "/tmp/orbench"
_SSH_PATH_KEYS = ("known_hosts", "identity_file", "config_file")
# Joins the client hosts of a spread in host_pairs ("beta+gamma"), as in the pair's label.
SPREAD_JOIN = "+"


def _spec(name: str, entry: dict[str, Any], settings: dict[str, Any], path: Path, where: str) -> HostSpec:
    url = entry["url"]
    problem = check_url(url)
    if problem:
        raise UserError(f"{path}: key {where}: value {url!r}: {problem}")
    if url == LOCAL:
        address = entry.get("address") or settings["host"]
    else:
        address = entry.get("address") or HostSpec(name, url, "").hostname.strip("[]")
    return HostSpec(name=name, url=url, address=address, java=entry.get("java"),
                    workdir=entry.get("workdir", DEFAULT_WORKDIR))


def resolve_inventory_path(path: Path, settings: dict[str, Any]) -> None:
    """The `inventory` key made absolute (relative to the campaign file, ~ allowed), so a resumed run, whose
    campaign is read from its manifest, finds it too."""
    if settings.get("inventory"):
        settings["inventory"] = str((path.parent / os.path.expanduser(settings["inventory"])).resolve())


def _inventory(path: Path, settings: dict[str, Any]) -> Inventory | None:
    if not settings.get("inventory"):
        return None
    try:
        return read_inventory(Path(settings["inventory"]))
    except UserError as exc:
        raise UserError(f"{path}: key inventory: {exc}") from None


def _side(ref: str, named: dict[str, HostSpec], inventory: Inventory | None, settings: dict[str, Any], path: Path,
          where: str) -> list[HostSpec]:
    """The hosts one side of a host_pairs entry names: one host, or an inventory group's (or pattern's) hosts."""
    if ref in named:
        return [named[ref]]
    if ref == LOCAL:
        return [HostSpec(LOCAL, LOCAL, settings["host"])]
    if "://" in ref:
        problem = check_url(ref)
        if problem:
            raise UserError(f"{path}: key {where}: value {ref!r}: {problem}")
        return [_spec(HostSpec("", ref, "").hostname.strip("[]") or ref, {"url": ref}, settings, path, where)]
    if inventory is not None:
        try:
            return inventory.resolve(ref)
        except UserError as exc:
            raise UserError(f"{path}: key {where}: value {ref!r}: {exc}") from None
    known = ", ".join(sorted(named)) or "none defined"
    raise UserError(f"{path}: key {where}: value {ref!r}: not a [hosts] name ({known}), 'local', "
                    "an ssh://user@host:port URL, or (with an inventory) a group or host of it")


def _spread_side(ref: str, named: dict[str, HostSpec], inventory: Inventory | None, settings: dict[str, Any],
                 path: Path, where: str) -> list[tuple[HostSpec, bool]]:
    """The client hosts of a spread: a group (or pattern) of the inventory, or hosts joined by '+', each named
    as one side may name a host; a host named twice is an error. Each with whether it came from a group."""
    hosts: list[tuple[HostSpec, bool]] = []
    for part in _joined(ref):
        if not part:
            raise UserError(f"{path}: key {where}: value {ref!r}: an empty host name between '+'")
        found = _side(part, named, inventory, settings, path, where)
        named_one = "://" in part or (len(found) == 1 and found[0].name == part)  # a host, not a group
        for spec in found:
            if any(h.name == spec.name for h, _ in hosts):
                raise UserError(f"{path}: key {where}: value {ref!r}: host {spec.name!r} is named twice")
            hosts.append((spec, not named_one))
    return hosts


def resolve_host_pairs(path: Path, settings: dict[str, Any]) -> list[HostPair]:
    named = {name: _spec(name, entry, settings, path, f"hosts.{name}.url")
             for name, entry in settings["hosts"].items()}
    inventory = _inventory(path, settings)
    spread = bool(settings.get("spread_clients"))
    pairs: list[HostPair] = []
    labels: set[str] = set()
    for i, pair in enumerate(settings["host_pairs"]):
        # Each side is one host, or an inventory group's hosts: the entry then stands for every
        # (server, client) of the two, a host never paired with itself. With spread_clients the client side is
        # one spread: each server host of the entry gets one pair of all its client hosts.
        for j, ref in enumerate(pair):
            if len(_joined(ref)) > 1 and (j == 0 or not spread):
                raise UserError(f"{path}: key host_pairs[{i}][{j}]: value {ref!r}: hosts joined by '+' name the "
                                "client hosts of a spread, which takes spread_clients = true and the client side "
                                "(the second) of an entry")
        servers = _side(pair[0], named, inventory, settings, path, f"host_pairs[{i}][0]")
        if spread:
            spread_hosts = _spread_side(pair[1], named, inventory, settings, path, f"host_pairs[{i}][1]")
            # A group on either side may list a pair another entry has; hosts named one by one may not.
            grouped = len(servers) > 1 or any(from_group for _, from_group in spread_hosts)
            candidates = []
            for server in servers:
                # A group's host never runs clients against itself; a host named as a client host does.
                mine = tuple(c for c, from_group in spread_hosts if not (from_group and c.name == server.name))
                if not mine:
                    raise UserError(f"{path}: key host_pairs[{i}]: value {pair!r}: no client host is left for "
                                    f"server host {server.name!r} (a host never runs clients against itself)")
                candidates.append(HostPair(server, mine[0], clients=mine))
        else:
            clients = _side(pair[1], named, inventory, settings, path, f"host_pairs[{i}][1]")
            grouped = len(servers) > 1 or len(clients) > 1
            candidates = [HostPair(server, client) for server in servers for client in clients
                          if not (grouped and server.name == client.name)]
        for hp in candidates:
            for client in hp.clients:
                if hp.server.is_local and not client.is_local and _is_loopback(hp.server.address):
                    raise UserError(f"{path}: key host_pairs[{i}]: value {pair!r}: the server host "
                                    f"{hp.server.name!r} binds {hp.server.address}, which {client.name!r} cannot "
                                    "reach; add [hosts.me] with url = \"local\" and address = \"<this machine's "
                                    "address>\" and use \"me\"")
            if hp.label in labels:
                if grouped:
                    continue  # a group's pair already listed by another entry
                raise UserError(f"{path}: key host_pairs[{i}]: value {pair!r}: this pair is listed twice")
            labels.add(hp.label)
            pairs.append(hp)
    # One name, one host: two different hosts may not share a label in the results.
    seen: dict[str, HostSpec] = {}
    for hp in pairs:
        for spec in hp.hosts:
            if spec.name in seen and seen[spec.name] != spec:
                raise UserError(f"{path}: key host_pairs: two different hosts are both called {spec.name!r}; "
                                "give them names in [hosts]")
            seen[spec.name] = spec
    return pairs


def _joined(ref: str) -> list[str]:
    """The host names a side joins with '+'; an Ansible regex pattern (~...) is one name whatever it holds."""
    return [ref] if ref.startswith("~") else ref.split(SPREAD_JOIN)


def _is_loopback(address: str) -> bool:
    return address.startswith("127.") or address in ("localhost", "::1")


def resolve_ssh_paths(path: Path, ssh: dict[str, Any]) -> dict[str, Any]:
    """[ssh] with its file paths made absolute (relative to the campaign file, ~ expanded)."""
    out = dict(ssh)
    for key in _SSH_PATH_KEYS:
        if key in out and out[key] != "/dev/null":
            out[key] = str((path.parent / os.path.expanduser(out[key])).resolve())
    return out


def check_ssh_files(path: Path, ssh: dict[str, Any], pairs: list[HostPair]) -> None:
    if all(s.is_local for p in pairs for s in p.hosts):
        return
    for key in _SSH_PATH_KEYS:
        value = ssh.get(key)
        if value and value != "/dev/null" and not Path(value).is_file():
            raise UserError(f"{path}: key ssh.{key}: value {value!r}: no such file")


def ssh_settings(ssh: dict[str, Any]) -> SshSettings:
    return SshSettings(**{k: v for k, v in ssh.items() if k in SshSettings.__dataclass_fields__})
