"""The report's "server under load" section, from summary.json's points, `capacities` and `queueing_checks`:

- throughput against the number of clients, one figure per middleware (with its baseline): a line per target,
  way of making clients and server threading setting, with intervals, each point's bottleneck, and Jain's
  fairness index below;
- latency against offered load, one figure per middleware, a panel per sweep (threading, arrivals): p50 and p99
  with the SLO bound, the capacity at the SLO and the closed-loop capacity marked, and the baseline's p50 at the
  middleware's rates (its paired steps); and the added latency under load from those pairs;
- latency (and throughput) against the number of objects the server activates;
- the capacity table and the queueing known answer.
"""

from __future__ import annotations

import html
from collections import defaultdict
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.ticker import NullLocator
from orbench.results.point import Point, PointSlice
from orbench.summary.model import Capacity, PointSummary, QueueingCheck, RunSummary, TrialInterval
from orbench.summary.table import columns

from orbench_plots.load_figures import clients_axis
from orbench_plots.style import Figure, _us_axis, added_bars, colour, grouped, saved

# The file names of this section's figures start with it (report.py shows them in this section).
SCALE_PREFIX = "scale-"
# The load shape of a point: what the sweep and the client counts vary, left open to draw one curve.
LOAD_DIMS = ("clients", "clients_as", "rate_hz", "arrivals", "offered_load")
# A point measured with these sides' CPU full describes the client machine (or a CPU shared with it).
CLIENT_LIMITED = ("client", "shared-cpu")
MARKERS = ("o", "s", "D", "^", "v", "P", "X")
WAY_STYLE = {"processes": "-", "threads": "--"}


def shape_key(point: Point) -> Point:
    """The point without its load shape, as summary/capacity.py keys a capacity. A capacity read back from
    summary.json has its own clients_as and arrivals in its point's place (the same JSON keys): matched through
    this key, and those two through the capacity's own fields."""
    return point.replace(clients=1, clients_as="processes", rate_hz=0.0, arrivals="fixed", offered_load=0.0)


def _where(key: PointSlice) -> str:
    """A figure key's label without its target (the title names the target first)."""
    return key.of.label_of(*[n for n in key.names if n != "target"])


def _yerr(values: list[float], intervals: list[TrialInterval | None], scale: float) -> list[list[float]]:
    """Error bar lengths below and above each value (0 where there is no interval)."""
    lows, highs = [], []
    for v, ci in zip(values, intervals, strict=True):
        if ci is None or ci.low is None or ci.high is None:
            lows.append(0.0)
            highs.append(0.0)
        else:
            lows.append(max(0.0, v - ci.low / scale))
            highs.append(max(0.0, ci.high / scale - v))
    return [lows, highs]


def client_limited(p: PointSummary) -> bool:
    """Whether the point's clients' CPU (or the one CPU they shared with the server) was full."""
    return p.load is not None and p.load.bottleneck in CLIENT_LIMITED


def _cut_intervals(ax, estimates: list[float]) -> None:
    """The y axis from 0 to well above the estimates: an interval of few launches can reach far beyond them, and
    would flatten every line; its bar runs off the top."""
    top = max(estimates, default=0.0) * 1.6
    ax.set_ylim(0, min(ax.get_ylim()[1], top) if top > 0 else None)


def _middlewares(points: list[PointSummary]) -> list[tuple[str, list[str]]]:
    """Each target that is no other's baseline, with its baseline beside it when the run measured it."""
    baseline = {p.point.target: p.orb_added_latency_ns.baseline for p in points if p.orb_added_latency_ns}
    targets = sorted({p.point.target for p in points})
    return [(t, [t] + ([baseline[t]] if baseline.get(t) in targets else []))
            for t in targets if t not in baseline.values()]


def _series(points: list[PointSummary], along: str) -> dict[tuple[str, str, str], list[PointSummary]]:
    """(target, threading, way of making clients) -> its points in order of `along`. One client is one process
    and one thread: that point starts every way's series of its target and setting."""
    ways = sorted({p.point.clients_as for p in points if p.point.clients > 1}) or ["processes"]
    out: dict[tuple[str, str, str], list[PointSummary]] = defaultdict(list)
    for p in sorted(points, key=lambda p: getattr(p.point, along)):
        for way in ways if p.point.clients == 1 else [p.point.clients_as]:
            out[(p.point.target, p.point.threading, way)].append(p)
    return dict(sorted(out.items()))


def throughput_vs_clients(points: list[PointSummary], out_dir: Path) -> list[Figure]:
    closed = [p for p in points if p.load and p.load.aggregate_calls_per_s and not p.point.rate_hz
              and not p.point.is_sweep_step]
    figures = []
    for key, group in sorted(grouped(closed, "clients", "clients_as", "threading", "target").items()):
        clients = sorted({p.point.clients for p in group})
        if len(clients) < 2:
            continue
        for middleware, targets in _middlewares(group):
            mine = [p for p in group if p.point.target in targets]
            settings = sorted({p.point.threading for p in mine})
            fig, (ax, fair) = plt.subplots(2, 1, figsize=(8.5, 6.4), sharex=True, height_ratios=(3, 1))
            estimates: list[float] = []
            limited_at: list[str] = []
            lines = _series(mine, "clients")
            for i, ((target, threading, way), series) in enumerate(lines.items()):
                # Each line a little aside (a few % of a doubling), so that intervals at one count stay apart.
                x = [p.point.clients * 2 ** (0.04 * (i - (len(lines) - 1) / 2)) for p in series]
                y = [(p.load.aggregate_calls_per_s or 0.0) / 1e3 for p in series if p.load]
                cis = [p.load.aggregate_calls_per_s_ci95 for p in series if p.load]
                estimates += y
                marker = MARKERS[settings.index(threading) % len(MARKERS)]
                style = WAY_STYLE.get(way, "-")
                alpha = 1.0 if target == middleware else 0.5  # the baseline is the reference, drawn lighter
                ax.errorbar(x, y, yerr=_yerr(y, cis, 1e3), fmt="none", capsize=2, color=colour(target),
                            alpha=alpha * 0.7, lw=1)
                ax.plot(x, y, style, marker=marker, ms=6, color=colour(target), alpha=alpha,
                        label=f"{target}, {threading}, clients as {way}")
                # A point whose clients' CPU (or the CPU they shared with the server) was full: hollow.
                limited = [(xi, yi) for p, xi, yi in zip(series, x, y) if client_limited(p)]
                limited_at += [f"{target} {threading} at {p.point.load_label or 'c1'}" for p in series
                               if client_limited(p)]
                if limited:
                    ax.plot(*zip(*limited), marker, ms=6, color=colour(target), markerfacecolor="white", ls="none")
                fairness = [(xi, p.load.fairness) for p, xi in zip(series, x) if p.load and p.load.fairness]
                if fairness:
                    fair.plot(*zip(*fairness), style, marker=marker, ms=5, color=colour(target), alpha=alpha)
            clients_axis(fair, clients)
            ax.set_ylabel("calls per second, all clients (thousands)")
            _cut_intervals(ax, estimates)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), handlelength=4)
            ax.set_title(f"{middleware}: closed-loop throughput ({key.label})")
            fair.set_ylabel("Jain's fairness")
            fair.set_ylim(0, 1.05)
            fair.grid(True, alpha=0.3)
            figures.append(saved(
                fig, out_dir / f"{SCALE_PREFIX}throughput-{middleware}-{key.slug}.png",
                f"{middleware}: throughput vs number of clients, {key.label}",
                "Calls per second of all clients together, closed loop, against the number of clients (log 2), one "
                "line per target, server threading setting (marker) and way of making the clients (solid: "
                "processes; dashed: threads of one client process sharing its ORB; the baseline lighter, each "
                "line a little aside from the client count it was measured at), with 95% intervals over "
                "launches (over trials with one launch; a bar beyond the axis is cut). A hollow marker: the "
                "clients' CPU, or the one CPU they shared with the server, was full there, so that throughput is "
                "what the client machine could send, a fact about that machine, not a capacity of the middleware"
                + (f" (here: {', '.join(sorted(set(limited_at)))})" if limited_at else " (none here)")
                + ". Below: Jain's fairness index of the clients' calls per second (1: served evenly; 1/N: one "
                "client got everything)."))
    return figures


def _capacity(capacities: tuple[Capacity, ...], key: Point, kind: str, **match: str) -> Capacity | None:
    return next((c for c in capacities if c.kind == kind and shape_key(c.point) == key
                 and all(getattr(c, k) == v for k, v in match.items())), None)


def _vertical(ax, ci: TrialInterval | None, style: str, colour_: str, label: str) -> None:
    """A capacity as a vertical line at its estimate, its interval shaded."""
    if ci is None or ci.estimate is None:
        return
    ax.axvline(ci.estimate, ls=style, color=colour_, lw=1.2, label=label)
    if ci.low is not None and ci.high is not None:
        ax.axvspan(ci.low, ci.high, color=colour_, alpha=0.12, lw=0)


def _calls(value: float | None) -> str:
    return "" if value is None else f"{value:,.0f}"


def latency_vs_offered_load(points: list[PointSummary], capacities: tuple[Capacity, ...],
                            out_dir: Path) -> list[Figure]:
    steps = [p for p in points if p.point.is_sweep_step and p.latency_ns and p.load and p.load.offered_rate_hz]
    # A baseline's paired steps, by the middleware step they ran beside (same rate): drawn in its panel.
    paired = {p.point.replace(target=p.point.load_of, load_of=""): p for p in steps if not p.point.own_load}
    steps = [p for p in steps if p.point.own_load]
    figures = []
    for key, group in sorted(grouped(steps, *LOAD_DIMS, "threading").items()):
        target = key.of.target
        sweeps = sorted({(p.point.threading, p.point.arrivals, p.point.clients, p.point.clients_as) for p in group})
        fig, axes = plt.subplots(1, len(sweeps), figsize=(7.0 * len(sweeps) + 2.0, 4.8), squeeze=False)
        for ax, (threading, arrivals, clients, way) in zip(axes[0], sweeps, strict=True):
            series = sorted((p for p in group if (p.point.threading, p.point.arrivals, p.point.clients,
                                                   p.point.clients_as) == (threading, arrivals, clients, way)),
                            key=lambda p: p.point.offered_load)
            x = [(p.load.offered_rate_hz or 0.0) if p.load else 0.0 for p in series]
            for name, value, ci, marker, alpha in (
                    ("p50", lambda p: p.p50, lambda p: p.p50_ci95_ns, "o", 1.0),
                    ("p99", lambda p: p.latency_ns.p99, lambda p: p.p99_ci95_ns, "^", 0.6)):
                y = [value(p) / 1e3 for p in series]
                ax.errorbar(x, y, yerr=_yerr(y, [ci(p) for p in series], 1e3), marker=marker, capsize=3,
                            color=colour(target), alpha=alpha, label=f"{name} ({threading})")
            beside = [(p.load.offered_rate_hz, paired[p.point]) for p in series if p.point in paired and p.load]
            if beside:
                y = [b.p50 / 1e3 for _, b in beside]
                ax.errorbar([r for r, _ in beside], y, yerr=_yerr(y, [b.p50_ci95_ns for _, b in beside], 1e3),
                            marker="o", mfc="none", capsize=3, color=colour(beside[0][1].point.target), alpha=0.8,
                            ls=":", label=f"p50 of {beside[0][1].point.target} at these rates")
            shape = shape_key(series[0].point)
            slo = _capacity(capacities, shape, "slo", arrivals=arrivals)
            closed = _capacity(capacities, shape, "closed-loop", clients_as=way)
            if slo is not None and slo.slo_bound_ns:
                ax.axhline(slo.slo_bound_ns / 1e3, color="black", ls=":", lw=1,
                           label=f"SLO: p99 under {slo.slo} ({slo.slo_bound_ns / 1e3:.0f} µs)")
                _vertical(ax, slo.interval, "-.", "#444444",
                          f"capacity at the SLO, {_calls(slo.interval and slo.interval.estimate)} calls/s"
                          + (" (censored)" if slo.censored else ""))
            if closed is not None:
                _vertical(ax, closed.interval, "--", "#999999",
                          f"closed-loop capacity, {_calls(closed.interval and closed.interval.estimate)} calls/s "
                          f"({closed.at_clients} clients)")
            skipped = sorted(p.point.offered_load for p in points if p.point.is_sweep_step and not p.latency_ns
                             and shape_key(p.point) == shape and p.point.arrivals == arrivals)
            ax.set_yscale("log")
            _us_axis(ax)
            # The axis spans the steps and the capacities' estimates; a wide interval is cut at its edge.
            ends = [c.interval.estimate for c in (slo, closed) if c and c.interval and c.interval.estimate]
            ax.set_xlim(0, max(x + ends) * 1.1)
            ax.set_xlabel("offered load, calls per second (all clients)")
            ax.set_ylabel("latency from the intended send time, µs (log)")
            ax.set_title(f"{threading}, {arrivals} arrivals, {clients} clients as {way}"
                         + ("\nnot run past saturation: " + ", ".join(f"{v:g}x" for v in skipped) if skipped else ""),
                         fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        fig.suptitle(f"{target}: latency vs offered load ({_where(key)})")
        figures.append(saved(
            fig, out_dir / f"{SCALE_PREFIX}offered-load-{key.slug}.png",
            f"{target}: latency vs offered load, {_where(key)}",
            "Open loop: the clients send at an offered rate (a share of the closed-loop capacity measured in the "
            "same launch) and each call is timed from its intended send time, so a queue shows in full. p50 "
            "(circles) and p99 (triangles) of each step with 95% intervals over launches; the dotted line is the "
            "SLO's p99 bound, the dash-dot line and its shade the capacity at the SLO (where the p99 crosses "
            "the bound, interpolated per launch; censored: beyond the steps run), the dashed line and shade the "
            "closed-loop capacity. A step past saturation was not run once the target's latency had run away "
            "(its clients could not keep up, or its p99 was far over the bound twice in a row): such steps are "
            "absent, not zero. Open circles, dotted: the socket baseline's p50 at the middleware's own offered "
            "rates, run beside each step (the paired steps the ORB-added latency under load comes from)."))
    return figures + orb_added_vs_offered_load(points, out_dir)


def orb_added_vs_offered_load(points: list[PointSummary], out_dir: Path) -> list[Figure]:
    """Per middleware, its p50 less its baseline's at the same offered rate (the paired steps), against the
    offered rate, with 95% intervals over launches; below its closed-loop capacity, where both queues settle."""
    steps = [p for p in points if p.point.is_sweep_step and p.point.own_load and p.point.offered_load < 1
             and p.load and p.load.offered_rate_hz and p.added is not None]
    figures = []
    for key, group in sorted(grouped(steps, *LOAD_DIMS, "threading").items()):
        target, base = key.of.target, group[0].orb_added_latency_ns.baseline
        sweeps = sorted({(p.point.threading, p.point.arrivals, p.point.clients, p.point.clients_as) for p in group})
        fig, axes = plt.subplots(1, len(sweeps), figsize=(6.0 * len(sweeps) + 1.5, 4.2), squeeze=False)
        for ax, sweep in zip(axes[0], sweeps, strict=True):
            series = sorted((p for p in group if (p.point.threading, p.point.arrivals, p.point.clients,
                                                   p.point.clients_as) == sweep), key=lambda p: p.point.offered_load)
            x = [p.load.offered_rate_hz for p in series if p.load]
            y, bars = added_bars([p.orb_added_latency_ns for p in series])
            ax.errorbar(x, y, yerr=bars, marker="o", capsize=3, color=colour(target))
            ax.axhline(0, color="black", lw=0.8)
            # Linear to 10 µs, log beyond: a few µs at light load and milliseconds near capacity both read.
            ax.set_yscale("symlog", linthresh=10.0)
            ax.set_xlim(0, max(x) * 1.1)
            ax.set_xlabel("offered load, calls per second (all clients)")
            ax.set_ylabel(f"p50 of {target} − p50 of {base}, µs (log beyond 10)")
            threading, arrivals, clients, way = sweep
            ax.set_title(f"{threading}, {arrivals} arrivals, {clients} clients as {way}", fontsize=9)
            ax.grid(True, alpha=0.3)
        fig.suptitle(f"{target}: added latency under load ({_where(key)})")
        figures.append(saved(
            fig, out_dir / f"{SCALE_PREFIX}added-under-load-{key.slug}.png",
            f"{target}: added latency under load, {_where(key)}",
            f"At each sweep step below {target}'s closed-loop capacity, {target}'s p50 less the p50 of {base} "
            f"offered the same rate right before or after it in the same launch (a paired step), with the 95% "
            "interval over launches: what the middleware adds at that load, queueing in its own threads "
            "included. A step at or past its capacity is left out: there the queues do not settle."))
    return figures


def latency_vs_objects(points: list[PointSummary], out_dir: Path) -> list[Figure]:
    measured = [p for p in points if p.latency_ns and not p.point.is_sweep_step]
    figures = []
    for key, group in sorted(grouped(measured, "objects", "object_order", "threading", "target", *LOAD_DIMS).items()):
        shapes = sorted({(p.point.clients, p.point.rate_hz, p.point.clients_as, p.point.arrivals) for p in group
                         if len({q.point.objects for q in group if q.point.load_label == p.point.load_label}) >= 2})
        if not shapes:
            continue
        shapes = sorted({shapes[0], shapes[-1]})  # the lightest and the heaviest load: columns stay readable
        tput = any(p.load and p.load.aggregate_calls_per_s for p in group)
        fig, axes = plt.subplots(2 if tput else 1, len(shapes), figsize=(7.0 * len(shapes) + 2.5, 8.2 if tput else 4.8),
                                 squeeze=False, sharex=True)
        objects = sorted({p.point.objects for p in group})
        settings = sorted({p.point.threading for p in group})
        for col, shape in enumerate(shapes):
            here = [p for p in group if (p.point.clients, p.point.rate_hz, p.point.clients_as, p.point.arrivals) == shape]
            orders = sorted({p.point.object_order for p in here if p.point.objects > 1}) or ["round-robin"]
            lat = axes[0][col]
            for (target, threading), series in sorted(_object_series(here, orders).items()):
                marker = MARKERS[settings.index(threading) % len(MARKERS)]
                for order, line in series.items():
                    x = [p.point.objects for p in line]
                    style = "-" if order == "round-robin" else "--"
                    label = f"{target}, {threading}" + (f", {order}" if len(orders) > 1 else "")
                    lat.plot(x, [(p.p50 or 0.0) / 1e3 for p in line], style, marker=marker, color=colour(target),
                             label=f"{label} p50")
                    lat.plot(x, [p.latency_ns.p99 / 1e3 for p in line if p.latency_ns], style, marker=marker,
                             alpha=0.4, lw=0.8, color=colour(target), label=f"{label} p99")
                    if tput:
                        y = [(p.load.aggregate_calls_per_s or 0.0) / 1e3 if p.load else 0.0 for p in line]
                        axes[1][col].errorbar(x, y, yerr=_yerr(y, [p.load and p.load.aggregate_calls_per_s_ci95
                                                                    for p in line], 1e3),
                                              fmt=style, marker=marker, capsize=3, color=colour(target))
            lat.set_yscale("log")
            _us_axis(lat)
            lat.set_ylabel("latency per call, µs (log)")
            lat.set_title(here[0].point.load_label or "1 client, closed loop", fontsize=9)
            if col == len(shapes) - 1:
                lat.legend(fontsize=7, handlelength=4, loc="upper left", bbox_to_anchor=(1.01, 1.0))
            for ax in axes[:, col]:
                ax.set_xscale("log")
                ax.set_xticks(objects, [str(k) for k in objects])
                ax.xaxis.set_minor_locator(NullLocator())
                ax.grid(True, which="both", alpha=0.3)
            axes[-1][col].set_xlabel("objects the server activates")
            if tput:
                axes[1][col].set_ylabel("calls per second, all clients (thousands)")
                _cut_intervals(axes[1][col], [(p.load.aggregate_calls_per_s or 0.0) / 1e3 for p in here if p.load])
        fig.suptitle(f"latency vs number of objects ({key.label})")
        figures.append(saved(
            fig, out_dir / f"{SCALE_PREFIX}objects-{key.slug}.png", f"Latency vs number of objects, {key.label}",
            "The server activates K objects of one servant class and the calls go round them (solid) or to a "
            "random one (dashed): what the middleware's object-key demultiplexing costs as K grows. p50 and "
            "(lighter) p99 over every call, one line per target and server threading setting (marker), "
            "at the lightest and the heaviest load measured at two numbers of objects or more"
            + ("; below, calls per second of all clients with 95% intervals (a bar beyond the axis is cut)." if tput else ".")
            + " Socket baselines have no object keys and run unchanged; gRPC has no objects and is not run above "
            "one."))
    return figures


def _object_series(points: list[PointSummary], orders: list[str]) -> dict[tuple[str, str], dict[str, list[PointSummary]]]:
    """(target, threading) -> object order -> points by objects; one object has no order and starts each."""
    out: dict[tuple[str, str], dict[str, list[PointSummary]]] = defaultdict(lambda: defaultdict(list))
    for p in sorted(points, key=lambda p: p.point.objects):
        for order in orders if p.point.objects == 1 else [p.point.object_order]:
            out[(p.point.target, p.point.threading)][order].append(p)
    return out


# --- tables ------------------------------------------------------------------------------------------------------

def _ci_text(ci: TrialInterval | None) -> str:
    if ci is None or ci.estimate is None:
        return "" if ci is None else (ci.why_missing or "")
    if ci.low is None or ci.high is None:
        return _calls(ci.estimate)
    return f"{_calls(ci.estimate)} [{_calls(ci.low)}, {_calls(ci.high)}]"


def _side(c: Capacity | None) -> str:
    if c is None or c.bottleneck is None:
        return ""
    utils = [f"{name} {u:.0%}" for name, u in (("server", c.server_cpu_util), ("clients", c.client_cpu_util))
             if u is not None]
    return c.bottleneck + (f" ({', '.join(utils)})" if utils else "")


def capacity_rows(capacities: tuple[Capacity, ...]) -> list[tuple[Capacity | None, Capacity | None]]:
    """(closed-loop row, SLO row) pairs of one target, point and way of making clients: each SLO row beside the
    closed-loop capacity its share is of, and every closed-loop row without a sweep on its own."""
    closed = {(shape_key(c.point), c.clients_as): c for c in capacities if c.kind == "closed-loop"}
    out: list[tuple[Capacity | None, Capacity | None]] = []
    used = set()
    for s in (c for c in capacities if c.kind == "slo"):
        key = (shape_key(s.point), s.clients_as)
        used.add(key)
        out.append((closed.get(key), s))
    out += [(c, None) for k, c in closed.items() if k not in used]
    return sorted(out, key=lambda r: (shape_key((r[0] or r[1]).point), (r[0] or r[1]).clients_as))  # type: ignore[union-attr]


def capacity_table(capacities: tuple[Capacity, ...]) -> str:
    head = ("placement", "mode", "payload", "target", "clients as", "closed-loop capacity, calls/s [95%]",
            "at clients", "bottleneck there (CPU)", "arrivals", "SLO (p99 bound µs)", "capacity at the SLO, calls/s [95%]",
            "share of closed loop", "censored", "bottleneck at the SLO capacity (CPU)", "launches", "note")
    rows = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for closed, slo in capacity_rows(capacities):
        any_row = closed or slo
        assert any_row is not None
        notes = sorted({c.note for c in (closed, slo) if c is not None and c.note})
        launches = max(len(c.per_launch) for c in (closed, slo) if c is not None)
        cells = [*columns(shape_key(any_row.point)), any_row.clients_as,
                 _ci_text(closed.interval) if closed else "", "" if closed is None else str(closed.at_clients or ""),
                 _side(closed), slo.arrivals or "" if slo else "",
                 f"{slo.slo} ({slo.slo_bound_ns / 1e3:.1f})" if slo and slo.slo_bound_ns else "",
                 _ci_text(slo.interval) if slo else "",
                 "" if slo is None or slo.capacity_at_slo_share is None else f"{slo.capacity_at_slo_share:.0%}",
                 slo.censored or "" if slo else "", _side(slo), str(launches), "; ".join(notes)]
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    return "<table>" + "\n".join(rows) + "</table>"


def _us(ns: float | None) -> str:
    return "" if ns is None else f"{ns / 1e3:.2f}"


def queueing_table(checks: tuple[QueueingCheck, ...]) -> str:
    head = ("placement", "mode", "payload", "target", "check", "E[S] µs", "rho", "predicted",
            "for the arrivals sent", "measured [95%]", "within", "within (arrivals sent)", "tolerance", "launches")
    rows = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for q in checks:
        if q.kind == "wait":
            m = q.measured_wait_ns
            measured = "" if m is None else _us(m.estimate) + (f" [{_us(m.low)}, {_us(m.high)}]" if m.low is not None else "")
            what, predicted = "mean wait, µs", _us(q.predicted_wait_ns)
        else:
            what, predicted = "capacity vs 1/E[S], calls/s", _calls(q.one_over_service_calls_per_s)
            measured = _calls(q.capacity_calls_per_s) + ("" if q.ratio is None else f" ({q.ratio:.3f} of 1/E[S])")
        sent = "" if q.within_sent_path is None else ("yes" if q.within_sent_path else "NO")
        cells = [*columns(q.point), what, _us(q.service_ns), "" if q.rho is None else f"{q.rho:.2f}", predicted,
                 _us(q.sent_path_wait_ns), measured, "yes" if q.within else "NO", sent, q.tolerance, str(q.launches)]
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    return "<table>" + "\n".join(rows) + "</table>"


def section(summary: RunSummary, figures: list[Figure], run_dir: Path) -> str:
    """The section's HTML around its figures (make_figures below); empty when the run has nothing under load."""
    if not figures and not summary.capacities and not summary.queueing_checks:
        return ""
    parts = ["<h2>The server under load</h2>",
             "<p>Several clients against one server, closed loop (as fast as each can), and open-loop sweeps of "
             "offered load to past saturation (harness/campaigns/README.md, \"Load at scale\" and \"Load "
             "sweeps\"). Every load trial records each side's CPU utilisation over its timed calls and which side "
             "was saturated: <b>server</b>, <b>client</b> (the clients' CPU was full), <b>shared-cpu</b> (server "
             "and clients on one CPU, which was full) or <b>none</b> (the limit was waiting). A throughput or a "
             "capacity the client machine limited describes that machine, not the middleware: it is marked as "
             "such and must not rank middleware.</p>"]
    for f in figures:
        rel = f.path.relative_to(run_dir)
        parts.append(f"<figure><img src='{html.escape(str(rel))}' alt='{html.escape(f.title)}'>"
                     f"<figcaption><b>{html.escape(f.title)}.</b> {html.escape(f.caption)}</figcaption></figure>")
    if summary.capacities:
        parts.append("<h3>Capacities</h3><p>Per target and point: the <b>closed-loop capacity</b>, the most calls/s "
                     "over the run's client counts (its interval over launches, the client count it was reached at "
                     "in most launches); with a sweep, the <b>capacity at the SLO</b>, the offered load where the "
                     "p99 crosses the SLO's bound (a relative SLO such as 10x is a multiple of the target's unloaded "
                     "p50), and its share of the capacity the sweep offered its shares of (closed loop at the sweep's "
                     "clients, the same launches). "
                     "Censored: in some launches every step stayed under the bound (the capacity lies above the "
                     "value) or the first was already over (below it). Bottleneck and CPU utilisation are those of "
                     "the trials at each capacity.</p>" + capacity_table(summary.capacities))
    if summary.queueing_checks:
        parts.append("<h3>Queueing known answer</h3><p>A server that serves one request at a time is a "
                     "single-server queue: under Poisson arrivals its mean wait is Pollaczek-Khinchine's "
                     "lambda E[S²] / 2(1 − rho), from the server's own measured service times S, and its capacity "
                     "is 1/E[S]. The measured wait is a step's mean latency less its own mean service time, minus "
                     "the same for the lightest step of the launch (less that step's own small wait). A step draws "
                     "one path of arrivals, whose own mean wait differs from that expectation by chance: \"for the "
                     "arrivals sent\" is the mean wait of the very send times the clients drew "
                     "(Lindley's recursion at the mean service time).</p>" + queueing_table(summary.queueing_checks))
    return "\n".join(parts)


def make_figures(summary: RunSummary, out_dir: Path) -> list[Figure]:
    points = list(summary.points)
    out_dir.mkdir(parents=True, exist_ok=True)
    return (throughput_vs_clients(points, out_dir) + latency_vs_offered_load(points, summary.capacities, out_dir)
            + latency_vs_objects(points, out_dir))


def not_made(figures: list[Figure]) -> list[tuple[str, str]]:
    """This section's figures the run has no data for, and why."""
    names = " ".join(f.path.name for f in figures)
    out = []
    if f"{SCALE_PREFIX}throughput-" not in names:
        out.append(("Throughput vs number of clients, per middleware",
                    "no closed-loop point of this run was measured with two or more client counts (campaign key "
                    "clients)"))
    if f"{SCALE_PREFIX}offered-load-" not in names:
        out.append(("Latency vs offered load", "no load sweep step was measured in this run (campaign table [sweep])"))
    if f"{SCALE_PREFIX}objects-" not in names:
        out.append(("Latency vs number of objects", "no point of this run was measured at two numbers of objects or "
                    "more (campaign key objects)"))
    return out
