"""The TCP events of a network namespace, from /proc/net/netstat and /proc/net/snmp (both per namespace).

The files hold pairs of lines: a header (`TcpExt: SyncookiesSent ...`) and its values (`TcpExt: 0 ...`).
Counters are namespace-wide: on a shared machine they include other processes' TCP traffic in the same
namespace, so a trial's events are the namespace's during the trial, not only the workers'. The per-connection
retransmits of the workers' own socket are in tcpinfo.py.
"""

from __future__ import annotations

# The events a trial reports (their differences), by the kernel's names, and what each says.
TCP_EVENTS: dict[str, str] = {
    "Tcp.RetransSegs": "segments retransmitted",
    "TcpExt.TCPTimeouts": "retransmission timer expiries (RTO: 200 ms at least on Linux)",
    "TcpExt.TCPLossProbes": "tail loss probes sent",
    "TcpExt.TCPFastRetrans": "fast retransmits",
    "TcpExt.TCPSpuriousRTOs": "timeouts found spurious afterwards (F-RTO)",
    "TcpExt.TCPToZeroWindowAdv": "receive window advertised as zero",
    "TcpExt.TCPZeroWindowDrop": "segments dropped on a zero receive window",
    "TcpExt.TCPRcvQDrop": "segments dropped: receive queue full (memory)",
    "TcpExt.TCPBacklogDrop": "segments dropped: socket backlog full",
    "TcpExt.PruneCalled": "receive queue pruned under memory pressure",
    "TcpExt.TCPOFODrop": "out-of-order segments dropped",
    "TcpExt.ListenDrops": "connection requests dropped at a listener",
    "TcpExt.DelayedACKs": "delayed ACKs sent (the peer waited for them)",
}


def parse_netstat(text: str) -> dict[str, int]:
    """Every counter of the header/value line pairs, as 'Section.Name' -> value."""
    counters: dict[str, int] = {}
    header: list[str] | None = None
    section = ""
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        fields = rest.split()
        if not fields:
            continue
        if header is not None and name == section and all(f.lstrip("-").isdigit() for f in fields):
            counters.update({f"{section}.{k}": int(v) for k, v in zip(header, fields, strict=False)})
            header = None
        else:
            section, header = name, fields
    return counters


def tcp_events(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """The differences of TCP_EVENTS over a trial (a counter this kernel does not have is left out)."""
    return {k: after[k] - before[k] for k in TCP_EVENTS if k in before and k in after}
