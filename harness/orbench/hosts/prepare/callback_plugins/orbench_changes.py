"""An Ansible callback that `orbench prepare` enables: per host, the tasks that changed (or would, under
--check), failed, or found the host unreachable, written as JSON to $ORBENCH_PREPARE_REPORT at the end."""

from __future__ import annotations

import json
import os

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "orbench_changes"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self) -> None:
        super().__init__()
        self.hosts: dict[str, dict] = {}

    def _host(self, result) -> dict:
        return self.hosts.setdefault(result._host.get_name(), {"changed": [], "failed": [], "unreachable": None,
                                                               "ok": 0})

    def v2_runner_on_ok(self, result) -> None:
        h = self._host(result)
        h["ok"] += 1
        if result._result.get("changed"):
            h["changed"].append(result._task.get_name())

    def v2_runner_on_failed(self, result, ignore_errors=False) -> None:
        r = result._result
        why = r.get("msg") or r.get("stderr") or "failed"
        self._host(result)["failed"].append({"task": result._task.get_name(), "why": str(why).strip()[:2000]})

    def v2_runner_on_unreachable(self, result) -> None:
        self._host(result)["unreachable"] = str(result._result.get("msg", "unreachable")).strip()

    def v2_runner_on_skipped(self, result) -> None:
        self._host(result)

    def v2_playbook_on_stats(self, stats) -> None:
        path = os.environ.get("ORBENCH_PREPARE_REPORT")
        if path:
            with open(path, "w") as f:
                json.dump(self.hosts, f)
