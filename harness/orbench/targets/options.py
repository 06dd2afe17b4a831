"""Option sets: the connect options (PROTOCOL.md, "Connect options") a campaign varies, and what each target
does with them.

A campaign's `option_sets` (each merged over its `[options]`) is a dimension like placement: every point runs
once per set, on workers started for that set. Per target and set (`plan_options`):
  - an option the target lists in `supports.options` goes to its client at connect, and, for the options both
    ends set (tcp_nodelay, socket_buffer_bytes), to its server as `--option NAME=VALUE` arguments appended to
    the descriptor's server argv;
  - an option in `supports.fixed_options` is what the target always does (omniORB always sets TCP_NODELAY):
    the same value runs, with nothing passed; another value skips the target at that set, with the reason;
  - an option in `supports.refused_options` goes to its client, which refuses it at connect with the ORB's own
    reason (omniORB has no SyncScopePolicy): the target is skipped at that set with that reason;
  - any other option skips the target at that set ("does not support option ...").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from orbench.targets.descriptor import OPTION_ENDS

# The order options appear in a label, so one set always has one label.
_LABEL_ORDER = list(OPTION_ENDS)


def option_label(options: dict[str, Any]) -> str:
    """A short, file-name-safe name for an option set: "" for none, else "tcp_nodelay=false+sync_scope=none"."""
    keys = sorted(options, key=lambda k: (_LABEL_ORDER.index(k) if k in _LABEL_ORDER else 99, k))
    return "+".join(f"{k}={_text(options[k])}" for k in keys)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


@dataclass(frozen=True)
class OptionPlan:
    """What one target gets for one option set, or why it cannot run it."""

    label: str
    client: dict[str, Any] = field(default_factory=dict)
    server_args: tuple[str, ...] = ()
    unsupported: str | None = None

    def as_dict(self) -> dict[str, Any]:
        if self.unsupported:
            return {"unsupported": self.unsupported}
        return {"client": self.client, "server_args": list(self.server_args)}


def plan_options(target: Any, options: dict[str, Any]) -> OptionPlan:
    """`target` is a targets.Target (its `options` and `fixed_options`)."""
    label = option_label(options)
    client: dict[str, Any] = {}
    server_args: list[str] = []
    fixed = dict(getattr(target, "fixed_options", ()) or ())
    for key in sorted(options):
        value = options[key]
        if key in target.options:
            client[key] = value
            if OPTION_ENDS.get(key) == "both":
                server_args += ["--option", f"{key}={json.dumps(value)}"]
        elif key in getattr(target, "refused_options", ()):
            client[key] = value  # its worker refuses it at connect, with the ORB's own reason
        elif key in fixed:
            if fixed[key] != value:
                return OptionPlan(label, unsupported=f"{target.name} always has {key} = {_text(fixed[key])}, "
                                                     f"cannot run {key} = {_text(value)}")
        else:
            return OptionPlan(label, unsupported=f"{target.name} does not support option {key}")
    return OptionPlan(label, client, tuple(server_args))
