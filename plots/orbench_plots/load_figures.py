"""Figures of the load dimensions (campaign keys clients, rates_hz, interop): latency and aggregate throughput
against the number of clients, deadline misses at a fixed rate, cross-ORB calls beside the homogeneous pairs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.ticker import FixedLocator, NullLocator
from orbench.results.point import Point, PointSlice
from orbench.summary.model import Latency, PointSummary

from orbench_plots.style import Figure, _us_axis, colour, grouped, saved


def base_load(points: Iterable[Point]) -> tuple[int, float, int]:
    """The lightest load of a run (1 client, closed loop, where measured) at its fewest objects: (clients, rate_hz,
    objects), what the per-payload and per-sample figures show. Sweep steps are no load of their own (the
    sweep's figures show them); the objects figure shows the other numbers of objects."""
    kept = [p for p in points if not p.is_sweep_step]
    if not kept:
        return 1, 0.0, 1
    clients, rate = min((p.clients, p.rate_hz) for p in kept)
    return clients, rate, min(p.objects for p in kept)


def is_at_base(point: Point, base: tuple[int, float, int]) -> bool:
    return not point.is_sweep_step and (point.clients, point.rate_hz, point.objects) == base


def at_base_load(points: list[PointSummary]) -> list[PointSummary]:
    base = base_load(p.point for p in points)
    return [p for p in points if is_at_base(p.point, base)]


def _rate_label(rate: float, arrivals: str = "fixed") -> str:
    if not rate:
        return "closed loop"
    text = f"{rate / 1000:g} kHz per client" if rate >= 1000 else f"{rate:g} Hz per client"
    return text + (", Poisson arrivals" if arrivals == "poisson" else "")


def _groups(points: list[PointSummary]) -> dict[PointSlice, list[PointSummary]]:
    """One figure per everything but the load and the target; sweep steps have figures of their own
    (section_scale.py)."""
    return grouped([p for p in points if p.latency_ns and not p.point.is_sweep_step],
                   "clients", "clients_as", "rate_hz", "arrivals", "target")


def _by_target(points: list[PointSummary]) -> list[tuple[str, list[PointSummary]]]:
    """Each (target, way of making clients)'s points in order of clients, sorted; its name says threads when
    its clients were threads. One client is one process and one thread, so that point starts both series."""
    ways = sorted({p.point.clients_as for p in points if p.point.clients > 1}) or ["processes"]
    out: dict[str, list[PointSummary]] = defaultdict(list)
    for p in sorted(points, key=lambda p: p.point.clients):
        for way in ways if p.point.clients == 1 else [p.point.clients_as]:
            out[p.point.target + (" (threads)" if way == "threads" else "")].append(p)
    return sorted(out.items())


def _latency(p: PointSummary) -> Latency:
    assert p.latency_ns is not None, "figures draw measured points only"
    return p.latency_ns


def _line_style(target: str) -> str:
    # interop pairs (client->server) dashed, clients as threads dotted
    return ":" if target.endswith("(threads)") else "--" if "->" in target else "-"


def clients_axis(ax, clients: list[int]) -> None:
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(clients))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([str(c) for c in clients])
    ax.set_xlim(min(clients) / 1.3, max(clients) * 1.3)
    ax.set_xlabel("clients against one server")


def latency_vs_clients(points: list[PointSummary], out_dir: Path) -> list[Figure]:
    figures = []
    for key, group in sorted(_groups(points).items()):
        clients = sorted({p.point.clients for p in group})
        if len(clients) < 2:
            continue
        rates = sorted({(p.point.rate_hz, p.point.arrivals) for p in group})
        fig, axes = plt.subplots(1, len(rates), figsize=(6.5 * len(rates) + 2.5, 4.8), sharey=True, squeeze=False)
        for ax, (rate, arrivals) in zip(axes[0], rates):
            for target, series in _by_target([p for p in group if (p.point.rate_hz, p.point.arrivals) == (rate, arrivals)]):
                x = [p.point.clients for p in series]
                style = _line_style(target)
                name = series[0].point.target
                ax.plot(x, [_latency(p).p50 / 1e3 for p in series], style, marker="o", color=colour(name),
                        label=f"{target} p50")
                ax.plot(x, [_latency(p).p99 / 1e3 for p in series], style, marker="^", alpha=0.45,
                        color=colour(name), label=f"{target} p99")
            ax.set_yscale("log")
            clients_axis(ax, clients)
            ax.set_title(_rate_label(rate, arrivals))
            ax.grid(True, which="both", alpha=0.3)
        axes[0][0].set_ylabel("latency per call, µs (log)")
        _us_axis(axes[0][0])
        axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        fig.suptitle(f"latency vs number of clients ({key.label})")
        figures.append(saved(
            fig, out_dir / f"latency-vs-clients-{key.slug}.png", f"Latency vs number of clients, {key.label}",
            "p50 (circles) and p99 (triangles) of every call of every client of a point, pooled over clients and "
            "trials, against the number of clients calling one server at once: client processes, or threads of one "
            "client process sharing its ORB (dotted, \"(threads)\"); interop pairs dashed. "
            "Every client is pinned like the placement's one client, so on a 2-CPU machine they share one CPU "
            "(with same-core, the server's too): beyond one client a call waits for the others' calls. At a fixed "
            "rate each client sends at that rate and each sample runs from the call's intended send time, so a "
            "queue behind the other clients shows in full (no coordinated omission)."))
    return figures


def throughput_vs_clients(points: list[PointSummary], out_dir: Path) -> list[Figure]:
    figures = []
    for key, group in sorted(_groups(points).items()):
        clients = sorted({p.point.clients for p in group})
        if len(clients) < 2:
            continue
        closed = [p for p in group if not p.point.rate_hz and p.load and p.load.aggregate_calls_per_s]
        if not closed:
            continue
        fig, ax = plt.subplots(figsize=(7.5, 4.8))
        for target, series in _by_target(closed):
            ax.plot([p.point.clients for p in series], [(p.load.aggregate_calls_per_s or 0.0) / 1e3 for p in series if p.load],
                    _line_style(target), marker="o", color=colour(series[0].point.target), label=target)
        clients_axis(ax, clients)
        ax.set_ylabel("calls per second, all clients (thousands)")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        ax.set_title(f"closed loop: aggregate throughput ({key.label})")
        figures.append(saved(
            fig, out_dir / f"throughput-vs-clients-{key.slug}.png",
            f"Aggregate throughput vs number of clients, {key.label}",
            "Calls of all clients over the group's span (earliest client's first timed call to the latest "
            "client's end, on the host's one monotonic clock; oneway: to the closing barrier, so it is what the "
            "server received), mean over trials; clients as threads of one process dotted. Flat means the clients "
            "only share what one client already used. Each middleware's own figure in \"The server under load\" "
            "adds intervals, threading settings and who was the bottleneck."))
    return figures


def deadline_misses(points: list[PointSummary], out_dir: Path) -> list[Figure]:
    paced = [p for p in points if p.rate]
    if not paced:
        return []
    figures = []
    for key, group in sorted(grouped(paced, "clients", "clients_as", "target").items()):
        rate = key.of.rate_hz
        targets = sorted({p.point.target for p in group})
        clients = sorted({(p.point.clients, p.point.clients_as) for p in group})
        fig, ax = plt.subplots(figsize=(max(6.5, 1.1 * len(targets) * len(clients)), 4.6))
        width = 0.8 / len(clients)
        by = {(p.point.target, p.point.clients, p.point.clients_as): p.rate for p in group if p.rate}
        for j, (n, way) in enumerate(clients):
            xs, ys = [], []
            for i, t in enumerate(targets):
                if (t, n, way) in by:
                    xs.append(i + (j - (len(clients) - 1) / 2) * width)
                    ys.append(by[(t, n, way)].deadline_miss_pct or 0.0)
            label = f"{n} client{'s' if n > 1 else ''}" + (" (threads)" if way == "threads" else "")
            ax.bar(xs, ys, width, label=label, alpha=0.55 + 0.45 * j / max(1, len(clients) - 1),
                   hatch="//" if way == "threads" else None)
        ax.set_xticks(range(len(targets)))
        ax.set_xticklabels(targets, rotation=20, ha="right", fontsize=8)
        ax.set_ylabel("calls that missed their deadline, %")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8)
        what = _rate_label(rate, key.of.arrivals)
        ax.set_title(f"deadline misses at {what} ({key.label})")
        figures.append(saved(
            fig, out_dir / f"deadline-misses-{key.slug}.png", f"Deadline misses at {what}, {key.label}",
            "Share of calls, over every client and trial, that completed after the next call's intended send time "
            "(latency from the intended send time above 1/rate). A late call sends the next one late, and that "
            "lateness is in the next sample too."))
    return figures


def interop(points: list[PointSummary], out_dir: Path) -> list[Figure]:
    pairs = [p for p in at_base_load(points) if p.interop and p.latency_ns]
    if not pairs:
        return []
    figures = []
    lookup = {p.point: p.latency_ns for p in points if p.latency_ns}
    for key, group in sorted(grouped(pairs, "target").items()):
        bars: list[tuple[str, Latency]] = []
        for p in sorted(group, key=lambda p: p.point.target):
            assert p.interop is not None
            for name in (p.interop.client_target, p.point.target, p.interop.server_target):
                same = lookup.get(p.point.group.with_target(name))
                if same is not None and name not in [b[0] for b in bars]:
                    bars.append((name, same))
        fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(bars)), 4.6))
        for i, (name, lat) in enumerate(bars):
            ax.bar(i, lat.p50 / 1e3, 0.6, color=colour(name.split("->")[0]),
                   hatch="//" if "->" in name else None, edgecolor="black" if "->" in name else None)
            ax.plot([i, i], [lat.p50 / 1e3, lat.p99 / 1e3], color="black", lw=1)
            ax.plot(i, lat.p99 / 1e3, marker="_", color="black", ms=12)
        ax.set_xticks(range(len(bars)))
        ax.set_xticklabels([b[0] for b in bars], rotation=20, ha="right", fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("latency per call, µs (log): bar p50, whisker to p99")
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.set_title(f"cross-ORB calls ({key.label})")
        _us_axis(ax)
        figures.append(saved(
            fig, out_dir / f"interop-{key.slug}.png", f"Cross-ORB calls, {key.label}",
            "Each interop pair (hatched, client->server) between the two homogeneous pairs of its ORBs (or socket "
            "baselines), measured at the same point in the same run, interleaved. No ORB-added latency for a pair: "
            "no single-language socket baseline removes exactly one side's share."))
    return figures


LOAD_FIGURES = (latency_vs_clients, throughput_vs_clients, deadline_misses, interop)


def make_load_figures(points: list[PointSummary], out_dir: Path) -> list[Figure]:
    figures: list[Figure] = []
    for make in LOAD_FIGURES:
        figures += make(points, out_dir)
    return figures
