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


def resolve_host_pairs(path: Path, settings: dict[str, Any]) -> list[HostPair]:
    named = {name: _spec(name, entry, settings, path, f"hosts.{name}.url")
             for name, entry in settings["hosts"].items()}
    inventory = _inventory(path, settings)
    pairs: list[HostPair] = []
    labels: set[str] = set()
    for i, pair in enumerate(settings["host_pairs"]):
        # Each side is one host, or an inventory group's hosts: the entry then stands for every
        # (server, client) of the two, a host never paired with itself.
        sides: list[list[HostSpec]] = []
        for j, ref in enumerate(pair):
            where = f"host_pairs[{i}][{j}]"
            if ref in named:
                sides.append([named[ref]])
            elif ref == LOCAL:
                sides.append([HostSpec(LOCAL, LOCAL, settings["host"])])
            elif "://" in ref:
                problem = check_url(ref)
                if problem:
                    raise UserError(f"{path}: key {where}: value {ref!r}: {problem}")
                sides.append([_spec(HostSpec("", ref, "").hostname.strip("[]") or ref, {"url": ref}, settings,
                                    path, where)])
            elif inventory is not None:
                try:
                    sides.append(inventory.resolve(ref))
                except UserError as exc:
                    raise UserError(f"{path}: key {where}: value {ref!r}: {exc}") from None
            else:
                known = ", ".join(sorted(named)) or "none defined"
                raise UserError(f"{path}: key {where}: value {ref!r}: not a [hosts] name ({known}), 'local', "
                                "an ssh://user@host:port URL, or (with an inventory) a group or host of it")
        grouped = len(sides[0]) > 1 or len(sides[1]) > 1
        for server in sides[0]:
            for client in sides[1]:
                if grouped and server.name == client.name:
                    continue
                hp = HostPair(server, client)
                if hp.server.is_local and not hp.client.is_local and _is_loopback(hp.server.address):
                    raise UserError(f"{path}: key host_pairs[{i}]: value {pair!r}: the server host "
                                    f"{hp.server.name!r} binds {hp.server.address}, which {hp.client.name!r} cannot "
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
        for spec in (hp.server, hp.client):
            if spec.name in seen and seen[spec.name] != spec:
                raise UserError(f"{path}: key host_pairs: two different hosts are both called {spec.name!r}; "
                                "give them names in [hosts]")
            seen[spec.name] = spec
    return pairs


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
    if all(s.is_local for p in pairs for s in (p.server, p.client)):
        return
    for key in _SSH_PATH_KEYS:
        value = ssh.get(key)
        if value and value != "/dev/null" and not Path(value).is_file():
            raise UserError(f"{path}: key ssh.{key}: value {value!r}: no such file")


def ssh_settings(ssh: dict[str, Any]) -> SshSettings:
    return SshSettings(**{k: v for k, v in ssh.items() if k in SshSettings.__dataclass_fields__})
