"""The report's anatomy section: where each target's time per call goes (summary.json points' `anatomy` and
`orb_added_cpu_us`, harness/orbench/anatomy).

- per slice of the run and mode, one row of panels, one per payload size: each target's CPU per call as a stacked
  bar (client user, client system, server user, server system), an ORB beside its baseline;
- a table per point: CPU, context switches, the calls that move bytes through sockets (read and recv families,
  write and send families; and the traced trial's system calls in the anatomy mode), bytes and segments on the
  wire each way, heap allocations, GC, TCP events;
- ORB-added latency beside ORB-added CPU (both workers), per ORB and point: is the ORB's extra time CPU work, or
  waiting?
"""

from __future__ import annotations

import html
from collections import defaultdict
from pathlib import Path

import matplotlib.pyplot as plt
from orbench.summary.model import Anatomy, PointSummary, RunSummary

from orbench_plots.load_figures import at_base_load
from orbench_plots.style import Figure, colour, grouped, saved

# The file names of this section's figures start with it (report.py shows them in this section).
ANATOMY_PREFIX = "anatomy-"
# The four parts of a stacked CPU bar: client user and system time, server user and system time.
PARTS = (("client_user_us", "client user", "#1f4e79"), ("client_sys_us", "client system", "#8db3e2"),
         ("server_user_us", "server user", "#8c3b00"), ("server_sys_us", "server system", "#f4b183"))


def _mean(anatomy: Anatomy | None, name: str) -> float | None:
    value = None if anatomy is None else anatomy.median(name)
    return None if value is None else float(value)


def _ordered(points: list[PointSummary]) -> list[PointSummary]:
    """ORBs each followed by its baseline, then the other sockets, as a reader compares them."""
    by_target = {p.point.target: p for p in points}
    out: list[PointSummary] = []
    for p in sorted(points, key=lambda p: (p.kind != "orb", p.point.target)):
        if p in out:
            continue
        out.append(p)
        base = None if p.orb_added_latency_ns is None else p.orb_added_latency_ns.baseline
        if base in by_target and by_target[base] not in out:
            out.append(by_target[base])
    return out


def cpu_figures(points: list[PointSummary], out_dir: Path) -> list[Figure]:
    """One row of per-payload panels per slice of the run and mode: stacked CPU bars per target."""
    with_cpu = [p for p in points if p.anatomy and p.anatomy.client_cpu_us]
    figures = []
    for key, group in sorted(grouped(with_cpu, "payload_bytes", "target").items(), key=lambda kv: kv[0].slug):
        sizes = sorted({p.point.payload_bytes for p in group})
        fig, axes = plt.subplots(1, len(sizes), figsize=(max(4.5, 3.2 * len(sizes)), 4.2), squeeze=False)
        for ax, size in zip(axes[0], sizes, strict=True):
            at = _ordered([p for p in group if p.point.payload_bytes == size])
            names = [p.point.target for p in at]
            bottom = [0.0] * len(at)
            for field, label, part_colour in PARTS:
                heights = [_mean(p.anatomy, field) or 0.0 for p in at]
                ax.bar(range(len(at)), heights, bottom=bottom, color=part_colour, label=label, width=0.7)
                bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
            # Where the user/system split is unknown (no tick fell in a short trial), the total still shows.
            for i, p in enumerate(at):
                total = (_mean(p.anatomy, "client_cpu_us") or 0.0) + (_mean(p.anatomy, "server_cpu_us") or 0.0)
                if total > bottom[i] * 1.001:
                    ax.bar(i, total - bottom[i], bottom=bottom[i], color="none", edgecolor="#555", hatch="//",
                           width=0.7, label="split unknown" if i == 0 else None)
            ax.set_xticks(range(len(at)), names, rotation=30, ha="right", fontsize=8)
            ax.set_title(at[0].point.label_of("payload_type", "payload_bytes"), fontsize=9)
            ax.set_ylabel("CPU µs per call" if size == sizes[0] else "")
            ax.grid(axis="y", alpha=0.3)
        axes[0][0].legend(fontsize=7, loc="upper right")
        fig.suptitle(f"CPU per call, {key.label}", fontsize=10)
        figures.append(saved(fig, out_dir / f"{ANATOMY_PREFIX}cpu-{key.slug}.png", f"CPU per call, {key.label}",
                             "Each bar is one target's on-CPU time per call, both workers stacked: client user and "
                             "system time, server user and system time (the kernel's accounting: exact totals, the "
                             "user/system split from timer-tick samples; hatched where no tick fell). An ORB stands "
                             "beside its socket baseline; the difference is the CPU its marshaling, dispatch and "
                             "bookkeeping cost. Per call over each trial's warm-up and timed calls, median over trials."))
    return figures


def added_figures(points: list[PointSummary], out_dir: Path) -> list[Figure]:
    """ORB-added latency beside ORB-added CPU per ORB and payload: one panel per slice of the run and mode."""
    orbs = [p for p in points if p.orb_added_cpu_us and p.orb_added_cpu_us.estimate is not None
            and p.added is not None]
    figures = []
    for key, group in sorted(grouped(orbs, "payload_bytes", "target").items(), key=lambda kv: kv[0].slug):
        targets = sorted({p.point.target for p in group})
        sizes = sorted({p.point.payload_bytes for p in group})
        fig, ax = plt.subplots(figsize=(max(5.0, 1.2 * len(sizes) * len(targets)), 4.0))
        width = 0.8 / (2 * len(targets))
        for j, target in enumerate(targets):
            by_size = {p.point.payload_bytes: p for p in group if p.point.target == target}
            for k, (label, value, hatch) in enumerate((
                    ("latency", lambda p: (p.added or 0.0) / 1e3, None),
                    ("CPU", lambda p: p.orb_added_cpu_us.estimate or 0.0, "//"))):
                x = [i + (2 * j + k - len(targets) + 0.5) * width for i, s in enumerate(sizes) if s in by_size]
                y = [value(by_size[s]) for s in sizes if s in by_size]
                ax.bar(x, y, width=width, color=colour(target), hatch=hatch, edgecolor="white",
                       label=f"{target}: added {label}")
        ax.axhline(0, color="#333", linewidth=0.8)
        ax.set_xticks(range(len(sizes)), [f"{s} B" for s in sizes])
        ax.set_ylabel("µs per call")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
        ax.set_title(f"ORB-added latency and CPU, {key.label}", fontsize=10)
        figures.append(saved(fig, out_dir / f"{ANATOMY_PREFIX}added-{key.slug}.png",
                             f"ORB-added latency and ORB-added CPU, {key.label}",
                             "Plain bars: the ORB's p50 minus its baseline's (paired trials); hatched: the CPU per "
                             "call it adds, both workers together. Where the two are alike, the ORB's extra time "
                             "is CPU work (same-core: client and server take turns on one CPU, so their CPU adds "
                             "up in the latency); where the latency is larger, the ORB waits (a thread hand-off, a "
                             "wake-up, the wire); where it is smaller, the ORB works off the critical path."))
    return figures


def _num(value: float | None, digits: int = 2) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _blank(value: object) -> str:
    return "" if value is None else str(value)


def _pair(a: float | None, b: float | None, digits: int = 2) -> str:
    if a is None and b is None:
        return ""
    return f"{_num(a, digits) or '–'} / {_num(b, digits) or '–'}"


def _top(calls: dict[str, int], n: int = 4) -> str:
    return ", ".join(f"{k} {v:g}" for k, v in list(calls.items())[:n])


def _io(a: Anatomy, role: str) -> tuple[str, str]:
    """A worker's socket I/O calls per call, "read + recv / write + send", and the four parts for its title;
    read / write alone, marked, where the send/recv counter was not there (an older run)."""
    def m(name: str) -> float | None:
        return _mean(a, f"{role}_{name}")

    parts = (f"read {_num(m('reads')) or '–'}, recv {_num(m('recvs')) or '–'}; "
             f"write {_num(m('writes')) or '–'}, send {_num(m('sends')) or '–'}")
    both = _pair(m("reads_recvs"), m("writes_sends"))
    if both:
        return both, parts
    alone = _pair(m("reads"), m("writes"))
    return (f"{alone} (read / write only: send/recv not counted)" if alone else ""), parts


def _table(points: list[PointSummary]) -> str:
    head = ("point", "target", "p50 µs", "CPU µs client (user / sys)", "CPU µs server (user / sys)",
            "ctx switches client vol / invol", "server vol / invol", "read + recv / write + send client", "server",
            "syscalls client (traced)", "syscalls server (traced)", "wire B out / in", "segments out / in",
            "allocs client / server", "alloc B client (thread) / server", "GC client / server", "TCP events")
    rows = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    by_group: dict[str, list[PointSummary]] = defaultdict(list)
    for p in points:
        if p.anatomy:
            by_group[p.point.group.label].append(p)
    for label, group in by_group.items():
        for p in _ordered(group):
            a = p.anatomy
            assert a is not None

            def m(name: str, a: Anatomy = a) -> float | None:
                return _mean(a, name)

            sc = a.syscalls
            thread = m("client_thread_alloc_bytes")
            gc = (f"{_blank(a.client_gc_count)} ({_blank(a.client_gc_ms)} ms) / "
                  f"{_blank(a.server_gc_count)} ({_blank(a.server_gc_ms)} ms)"
                  if a.client_gc_count is not None or a.server_gc_count is not None else "")
            events = "; ".join(f"{k.split('.')[-1]} {v}" for k, v in a.tcp_events.items())
            cells: list[str | tuple[str, str]] = [
                label, p.point.target, _num((p.latency_ns.p50 if p.latency_ns else 0) / 1e3),
                f"{_num(m('client_cpu_us'))} ({_pair(m('client_user_us'), m('client_sys_us'))})",
                f"{_num(m('server_cpu_us'))} ({_pair(m('server_user_us'), m('server_sys_us'))})",
                _pair(m("client_vcsw"), m("client_ivcsw")), _pair(m("server_vcsw"), m("server_ivcsw")),
                _io(a, "client"), _io(a, "server"),
                f"{_num(sc.client_total)}: {_top(sc.client)}" if sc else "",
                f"{_num(sc.server_total)}: {_top(sc.server)}" if sc else "",
                _pair(m("wire_out_bytes"), m("wire_in_bytes"), 1), _pair(m("wire_out_segs"), m("wire_in_segs")),
                _pair(m("client_allocs"), m("server_allocs")),
                f"{_num(m('client_alloc_bytes'), 0)}{f' ({thread:.0f})' if thread is not None else ''} / "
                f"{_num(m('server_alloc_bytes'), 0)}",
                gc, events]
            rows.append("<tr>" + "".join(_cell(c) for c in cells) + "</tr>")
    return "<table>" + "\n".join(rows) + "</table>"


def _cell(cell: str | tuple[str, str]) -> str:
    """A table cell; a (text, title) pair shows its title on hover."""
    if isinstance(cell, tuple):
        text, title = cell
        return f"<td title='{html.escape(title)}'>{html.escape(text)}</td>"
    return f"<td>{html.escape(cell)}</td>"


def _added_table(points: list[PointSummary]) -> str:
    head = ("point", "ORB", "baseline", "ORB-added latency µs [95% CI]", "ORB-added CPU µs [95% CI]",
            "added CPU / added latency")
    rows = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for p in points:
        cpu, lat = p.orb_added_cpu_us, p.orb_added_latency_ns
        if cpu is None or lat is None or cpu.estimate is None or lat.estimate is None:
            continue
        lat_us = lat.estimate / 1e3
        lat_ci = (f" [{lat.ci95_low / 1e3:.2f}, {lat.ci95_high / 1e3:.2f}]"
                  if lat.ci95_low is not None and lat.ci95_high is not None else "")
        cpu_ci = (f" [{cpu.ci95_low:.2f}, {cpu.ci95_high:.2f}]"
                  if cpu.ci95_low is not None and cpu.ci95_high is not None else "")
        share = f"{cpu.estimate / lat_us:.2f}" if abs(lat_us) > 1e-9 else ""
        cells = [p.point.group.label, p.point.target, cpu.baseline, f"{lat_us:.2f}{lat_ci}",
                 f"{cpu.estimate:.2f}{cpu_ci}", share]
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    return "<table>" + "\n".join(rows) + "</table>" if len(rows) > 1 else ""


def section(summary: RunSummary, figures: list[Figure], run_dir: Path) -> str:
    """The section's HTML around its figures (made by make_figures below); empty when no point has an anatomy."""
    points = [p for p in summary.points if p.anatomy]
    if not points:
        return ""
    parts = ["<h2>Anatomy of a call</h2>",
             "<p>Where each target's time per call goes, from the kernel's own accounting, read where each worker "
             "runs before and after every trial (<code>harness/orbench/anatomy</code>): on-CPU time of each "
             "process (exact; its user/system split from the kernel's timer-tick samples), voluntary context "
             "switches (a thread blocked: waiting for a read, a lock, a hand-off to another thread) and "
             "involuntary ones (preempted), the system calls that move bytes through the process's descriptors: "
             "read + recv (read, readv, pread... from <code>/proc/PID/io</code>'s syscr; recv, recvfrom, "
             "recvmsg, recvmmsg from a counter the harness preloads into every worker, since /proc does not "
             "count them) and write + send (syscw; send, sendto, sendmsg, sendmmsg), each call counted whatever "
             "its outcome, the split on hover (an older run, without the counter, shows read / write alone, "
             "marked), the client connection's bytes and data segments each way (TCP_INFO), heap allocations "
             "(C++: a counting malloc in the workers; Java: the JVM's allocated bytes, all threads, and the "
             "measuring thread's in parentheses) and GC, and the TCP events of the network namespace (shared with anything else on "
             "the host). Per call over each trial's warm-up and timed calls (the client's heap: timed calls), "
             "median over trials (summary.json has the mean and its interval too: the trial that carries a "
             "JVM's JIT compilation pulls a mean). The anatomy mode (<code>orbench run --anatomy</code>) adds one trial per point "
             "and target with strace attached: every system call per call (its latency is not a result).</p>"]
    for f in figures:
        rel = f.path.relative_to(run_dir)
        parts.append(f"<figure><img src='{html.escape(str(rel))}' alt='{html.escape(f.title)}'>"
                     f"<figcaption><b>{html.escape(f.title)}.</b> {html.escape(f.caption)}</figcaption></figure>")
    added = _added_table(list(summary.points))
    if added:
        parts.append("<h3>ORB-added latency and ORB-added CPU</h3><p>Both paired trial by trial with the ORB's "
                     "baseline. A ratio near 1: the extra time is CPU work; well below 1: waiting (a thread "
                     "hand-off, a wake-up); above 1: work done beside the timed path (the server's dispatch after "
                     "a oneway returned, a reader thread).</p>" + added)
    parts.append("<h3>Per call</h3>" + _table(points))
    return "\n".join(parts)


def make_figures(summary: RunSummary, out_dir: Path) -> list[Figure]:
    # One client at the fewest objects, as the other per-payload figures: each client count, sweep step and
    # number of objects would be a figure of its own. The table below lists every point.
    points = at_base_load(list(summary.points))
    out_dir.mkdir(parents=True, exist_ok=True)
    return cpu_figures(points, out_dir) + added_figures(points, out_dir)
