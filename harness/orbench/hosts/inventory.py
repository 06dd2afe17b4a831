"""Ansible inventories, read by Ansible's own inventory library, into the harness's host specs.

Whatever `ansible-inventory -i INV --list` understands works here: INI, YAML and TOML files, a directory of
several of them, `group_vars/` and `host_vars/` beside them, children several levels deep, ranges such as
`node[01:16]`, and inventory plugins (`constructed`, or a cloud's once its collection is installed). A campaign
names hosts with Ansible's host patterns: a group, a host, `servers:&fast`, `node[0:3]`.

The variables orbench reads (USED_VARS; nothing else leaves the inventory, and these are what a run's manifest
records): `ansible_host` (what ssh reaches and, unless `orbench_address`, what servers bind), `ansible_port`,
`ansible_user`, `ansible_ssh_private_key_file` (a path; the key itself is never read), `ansible_ssh_common_args`
and `ansible_ssh_extra_args` (after orbench's own ssh options, which therefore keep their values:
BatchMode, StrictHostKeyChecking), `ansible_connection=local`, and orbench's `orbench_java`, `orbench_workdir`,
`orbench_address`.

ansible-core is the optional extra `fleet` (`pip install 'orbench[fleet]'`): a harness that never runs on other
hosts does not need it, and says what to install when an inventory is named without it.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orbench.errors import UserError
from orbench.hosts.ssh import LOCAL, HostSpec, check_url

DEFAULT_WORKDIR = "/tmp/orbench"
MISSING = ("reading an Ansible inventory needs ansible-core: install orbench's fleet extra "
           "(from a checkout: make deps, or .venv/bin/pip install -e 'harness[fleet]'; else pip install 'orbench[fleet]')")

# Each setting and the Ansible variables that give it, the first one set winning (Ansible's current names
# before their older ansible_ssh_* spellings).
_SETTINGS = {
    "host": ("ansible_host", "ansible_ssh_host"),
    "port": ("ansible_port", "ansible_ssh_port"),
    "user": ("ansible_user", "ansible_ssh_user"),
    "key": ("ansible_ssh_private_key_file", "ansible_private_key_file"),
    "common_args": ("ansible_ssh_common_args",),
    "extra_args": ("ansible_ssh_extra_args",),
    "connection": ("ansible_connection",),
    "java": ("orbench_java",),
    "workdir": ("orbench_workdir",),
    "address": ("orbench_address",),
}
USED_VARS = tuple(v for names in _SETTINGS.values() for v in names)


def ansible_available() -> str | None:
    """None when ansible-core can be imported; else what to install."""
    try:
        import ansible.inventory.manager  # noqa: F401
    except ImportError:
        return MISSING
    return None


@dataclass
class Inventory:
    """An inventory as Ansible read it: host names by pattern, and each host's variables (templated)."""

    path: Path
    _manager: Any = field(repr=False)
    _variables: Any = field(repr=False)
    _loader: Any = field(repr=False)

    def hosts_of(self, pattern: str) -> list[str]:
        """The inventory names of the hosts an Ansible pattern matches, in the inventory's order."""
        return [h.name for h in self._manager.get_hosts(pattern=pattern)]

    def groups(self) -> list[str]:
        return sorted(self._manager.groups)

    def variables(self, host: str) -> dict[str, Any]:
        """The variables orbench uses, as Ansible resolves them for `host` (precedence, templates); unset
        ones left out."""
        from ansible.errors import AnsibleError
        from ansible.template import Templar

        h = self._manager.get_host(host)
        if h is None:
            raise UserError(f"{self.path}: no host {host!r} in the inventory")
        every = self._variables.get_vars(host=h, include_hostvars=False)
        templar = Templar(loader=self._loader, variables=every)
        out: dict[str, Any] = {}
        for name in USED_VARS:
            if name in every and every[name] is not None:
                try:
                    out[name] = templar.template(every[name])
                except AnsibleError as exc:
                    raise UserError(f"{self.path}: host {host!r}: variable {name}: {exc.message}") from None
        return out

    def host_spec(self, host: str) -> HostSpec:
        """The harness's host spec of `host`: local for ansible_connection=local, else ssh://user@address:port
        with the host's own key and ssh arguments. Refuses a host that is not an address or a name."""
        v = self.variables(host)

        def get(setting: str) -> Any:
            return next((v[n] for n in _SETTINGS[setting] if n in v), None)

        where = f"{self.path}: host {host!r}"
        workdir = str(get("workdir") or DEFAULT_WORKDIR)
        java = get("java")
        java = str(java) if java is not None else None
        record = {"source": str(self.path), "name": host, "variables": v}
        if get("connection") == "local":
            return HostSpec(host, LOCAL, str(get("address") or get("host") or "127.0.0.1"), java=java,
                            workdir=workdir, inventory=record)
        if get("connection") not in (None, "ssh", "paramiko", "smart"):
            raise UserError(f"{where}: ansible_connection {get('connection')!r}: orbench reaches hosts over "
                            "ssh (or runs them here with ansible_connection=local)")
        address = str(get("host") or host)
        port = get("port")
        if port is not None and not (str(port).isdigit() and 1 <= int(port) <= 65535):
            raise UserError(f"{where}: ansible_port {port!r} is not a port number")
        user = get("user")
        at = f"{user}@" if user else ""
        netloc = f"[{address}]" if ":" in address else address
        url = f"ssh://{at}{netloc}" + (f":{port}" if port is not None else "")
        problem = check_url(url)
        if problem:
            raise UserError(f"{where}: {url!r} (from ansible_host, ansible_user, ansible_port): {problem}")
        args: list[str] = []
        for setting in ("common_args", "extra_args"):
            text = get(setting)
            if text:
                try:
                    args += shlex.split(str(text))
                except ValueError as exc:
                    raise UserError(f"{where}: {_SETTINGS[setting][0]} {text!r}: {exc}") from None
        key = get("key")
        return HostSpec(host, url, str(get("address") or address), java=java, workdir=workdir,
                        identity_file=str(Path(str(key)).expanduser()) if key else None, ssh_args=tuple(args),
                        inventory=record)

    def resolve(self, ref: str) -> list[HostSpec]:
        """The hosts an Ansible pattern names (a group, a host, `a:&b`, `node[0:3]`), at least one."""
        from ansible.errors import AnsibleError

        try:
            hosts = self.hosts_of(ref)
        except AnsibleError as exc:
            raise UserError(f"{self.path}: pattern {ref!r}: {exc.message}") from None
        if not hosts:
            known = ", ".join(g for g in self.groups() if g != "ungrouped")
            raise UserError(f"{self.path}: {ref!r} names no host: neither a group with hosts ({known}) nor a "
                            "host of the inventory")
        return [self.host_spec(h) for h in hosts]


def read_inventory(path: Path) -> Inventory:
    """An inventory file or directory, read by ansible-core. UserError naming the file when Ansible cannot
    read it, or when ansible-core is not installed."""
    if not path.exists():
        raise UserError(f"{path}: cannot read the inventory: no such file or directory")
    if ansible_available():
        raise UserError(f"{path}: {MISSING}")
    import ansible.constants as C
    from ansible.errors import AnsibleError
    from ansible.inventory.manager import InventoryManager
    from ansible.parsing.dataloader import DataLoader
    from ansible.utils.display import Display
    from ansible.vars.manager import VariableManager

    # A source Ansible cannot parse is an error, not a warning and an empty inventory.
    C.INVENTORY_UNPARSED_IS_FAILED = True
    C.INVENTORY_ANY_UNPARSED_IS_FAILED = True
    # Ansible says why a source failed in warnings, one per plugin it tried: they go into the error.
    display = Display()
    warnings: list[str] = []
    display.warning = lambda msg, formatted=False: warnings.append(" ".join(str(msg).split()))  # type: ignore[method-assign]
    loader = DataLoader()
    try:
        manager = InventoryManager(loader=loader, sources=[str(path)])
        variables = VariableManager(loader=loader, inventory=manager)
    except AnsibleError as exc:
        why = "".join(f"\n  {w}" for w in warnings)
        raise UserError(f"{path}: Ansible cannot read this inventory: {exc.message}{why}") from None
    finally:
        del display.warning  # the class's own again
    for w in warnings:
        display.warning(f"{path}: {w}")
    return Inventory(path, manager, variables, loader)
