"""The environment of one host, local or remote, collected by one small POSIX shell script run there.

One script for every host (local too), so two hosts' facts are comparable field by field. Each fact is one
`key<TAB>value` line; a fact the host cannot give is simply absent. The facts are the ones that move latency
across machines: kernel, CPU and usable cores, load, the MTU of the route to the peer host, TCP settings.
"""

from __future__ import annotations

import shlex
import subprocess

from orbench.hosts.placement import parse_cpu_list
from orbench.hosts.ssh import Host

# Each line prints one fact; `2>/dev/null` and `|| true` because a missing fact must not end the script.
ENV_SCRIPT = r"""
fact() { printf '%s\t%s\n' "$1" "$2"; }
fact hostname "$(hostname 2>/dev/null || cat /proc/sys/kernel/hostname)"
fact kernel "$(uname -srvm)"
[ -r /etc/os-release ] && fact os "$(. /etc/os-release; echo "$PRETTY_NAME")"
fact cpu_model "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
fact logical_cpus "$(grep -c '^processor' /proc/cpuinfo)"
fact usable_cpus "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)"
grep -qw hypervisor /proc/cpuinfo && fact hypervisor yes
fact loadavg "$(cut -d' ' -f1-3 /proc/loadavg)"
fact mem_total_kib "$(sed -n 's/^MemTotal:[[:space:]]*\([0-9]*\).*/\1/p' /proc/meminfo)"
g="$(cat /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor 2>/dev/null | sort -u | tr '\n' ' ')"
[ -n "$g" ] && fact governor "$g"
for s in net.ipv4.tcp_congestion_control net.ipv4.tcp_rmem net.ipv4.tcp_wmem net.ipv4.tcp_low_latency \
         net.core.rmem_max net.core.wmem_max net.ipv4.tcp_autocorking net.ipv4.tcp_slow_start_after_idle; do
  f="/proc/sys/$(echo "$s" | tr . /)"
  [ -r "$f" ] && fact "sysctl.$s" "$(tr '\t' ' ' < "$f")"
done
if [ -n "$PEER" ] && command -v ip >/dev/null 2>&1; then
  r="$(ip route get "$PEER" 2>/dev/null | head -n1)"
  fact route_to_peer "$r"
  dev="$(echo "$r" | sed -n 's/.* dev \([^ ]*\).*/\1/p')"
  [ -n "$dev" ] && fact peer_dev "$dev" && fact peer_dev_mtu "$(cat /sys/class/net/$dev/mtu 2>/dev/null)"
  m="$(echo "$r" | sed -n 's/.* mtu \([0-9]*\).*/\1/p')"
  [ -n "$m" ] && fact route_mtu "$m"
fi
command -v taskset >/dev/null 2>&1 && fact taskset "$(command -v taskset)"
if [ -n "$JAVA" ]; then
  j="$(command -v "$JAVA" 2>/dev/null)"
  if [ -n "$j" ]; then fact java "$j"; fact java_version "$("$j" -version 2>&1 | head -n1)"; fi
fi
"""


def _script(peer: str | None, java: str | None) -> str:
    return f"PEER={shlex.quote(peer or '')} JAVA={shlex.quote(java or '')}; export PEER JAVA\n" + ENV_SCRIPT


def _parse(output: bytes, facts: dict) -> dict:
    for line in output.decode(errors="replace").splitlines():
        key, _, value = line.partition("\t")
        if key and value:
            facts[key] = value.strip()
    return _typed(facts)


def collect_host_environment(host: Host, peer: str | None, java: str | None) -> dict:
    """Facts about `host`; `peer` is the address of the other host of its pair (for the route's MTU)."""
    out = host.run_shell(_script(peer, java), check=False)
    return _parse(out.stdout, {"url": host.spec.url})


def collect_local_host(java: str | None) -> dict:
    """The same facts about the machine the harness runs on, without a host pair (JMH, fidelity, every run)."""
    out = subprocess.run(["sh", "-c", _script(None, java)], capture_output=True, timeout=60, check=False)
    return _parse(out.stdout, {"url": "local"})


def _typed(facts: dict) -> dict:
    for key in ("logical_cpus", "mem_total_kib", "peer_dev_mtu", "route_mtu"):
        if str(facts.get(key, "")).isdigit():
            facts[key] = int(facts[key])
    if "loadavg" in facts:
        try:
            facts["loadavg"] = [float(x) for x in facts["loadavg"].split()]
        except ValueError:
            pass
    if "usable_cpus" in facts:
        facts["usable_cpus"] = sorted(parse_cpu_list(facts["usable_cpus"]))
    return facts
