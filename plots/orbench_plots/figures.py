"""The per-payload figures of a run, each a function from summary.json's points to PNGs: ORB-added latency,
latency, the socket baselines side by side, throughput."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
from orbench.results.point import PointSlice
from orbench.summary.model import PointSummary
from orbench.targets.families import read_families
from orbench.targets.languages import read_languages

from orbench_plots.style import Figure, _bytes_label, _us_axis, added_bars, colour, grouped, saved


def _groups(points: list[PointSummary]) -> dict[PointSlice, list[PointSummary]]:
    return grouped([p for p in points if p.latency_ns], "payload_bytes", "target")


def _by_target(points: list[PointSummary]) -> dict[str, list[PointSummary]]:
    out: dict[str, list[PointSummary]] = defaultdict(list)
    for p in sorted(points, key=lambda p: p.point.payload_bytes):
        out[p.point.target].append(p)
    return out


def _by_place(points: list[PointSummary]) -> dict[PointSlice, list[PointSummary]]:
    return grouped(points, "mode", "payload_bytes", "target")


def _mode_panels(points: list[PointSummary]) -> tuple[object, list[tuple[object, str, list[tuple[str, list[PointSummary]]]]]]:
    """One panel per mode of points, side by side: the figure, and each panel's axes, mode and per-target series."""
    modes = sorted({p.point.mode for p in points}, key=["twoway", "oneway", "echo"].index)
    fig, axes = plt.subplots(1, len(modes), figsize=(6.5 * len(modes), 4.8), squeeze=False)
    return fig, [(ax, mode, sorted(_by_target([p for p in points if p.point.mode == mode]).items()))
                 for ax, mode in zip(axes[0], modes)]


def _p50_band(ax, target: str, series: list[PointSummary], style: str, alpha: float) -> tuple[list[int], list[float]]:
    """A target's p50 per payload (the mean of its trials' p50s, as in the table), shaded up to its p99 (over every
    call); returns the payloads and the p99s."""
    x = [p.point.payload_bytes for p in series]
    p50 = [(p.p50 or 0.0) / 1e3 for p in series]
    p99 = [p.latency_ns.p99 / 1e3 for p in series if p.latency_ns]
    ax.plot(x, p50, style, marker="o", ms=4, color=colour(target), label=f"{target} p50 (band: to p99)")
    ax.fill_between(x, p50, p99, color=colour(target), alpha=alpha, lw=0)
    return x, p99


def _payload_axis(ax, sizes: list[int]) -> None:
    # symlog from 1 byte: a payload of 0 stays on the axis, larger sizes spread as on a log scale. Ticks at powers
    # of four (1 B, 4 B, ... 64 KiB) keep labels apart where campaign sizes such as 1000 and 1024 sit together.
    ax.set_xscale("symlog", linthresh=1, base=2)
    ax.set_xlim(left=max(min(sizes) * 0.8, 0), right=max(sizes) * 1.25)
    ticks = [4**k for k in range(16) if min(sizes) * 0.8 <= 4**k <= max(sizes) * 1.25]
    ax.xaxis.set_major_locator(FixedLocator(ticks or sorted(set(sizes))))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(_bytes_label))
    ax.set_xlabel("payload")
    ax.grid(True, which="both", alpha=0.3)


def _finish_payload_panel(ax, sizes: list[int], ylabel: str, title: str, log_y: bool = True) -> None:
    """The payload x axis, a log µs-style y axis (drawn data first: it reads the y range), labels and legend."""
    _payload_axis(ax, sizes)
    if log_y:
        ax.set_yscale("log")
        _us_axis(ax)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)


def latency_vs_payload(points: list[PointSummary], out_dir: Path) -> list[Figure]:
    figures = []
    for key, pts in sorted(_groups(points).items()):
        mode = key.of.mode
        fig, ax = plt.subplots(figsize=(8, 5))
        sizes = []
        for target, series in sorted(_by_target(pts).items()):
            x, p99 = _p50_band(ax, target, series, "-" if series[0].kind == "orb" else "--", 0.10)
            sizes += x
            ax.plot(x, p99, ":", lw=0.8, color=colour(target))
        what = "client time per oneway call" if mode == "oneway" else f"{mode} round trip"
        _finish_payload_panel(ax, sizes, f"{what} (µs)", f"{what} vs payload ({key.label})")
        figures.append(saved(fig, out_dir / f"latency-{key.slug}.png", f"Latency, {key.label}",
                             f"p50 per call (solid = middleware: {family_labels()}; dashed = socket baseline), shaded up to the p99 (dotted); log axes; "
                             f"lower is better. {'Oneway: time for the client to hand the call over, not delivery.' if mode == 'oneway' else ''}"))
    return figures


# The headline's rows: one per language, each middleware of any family beside the others of its language, over
# the baseline of that language; the languages, their order and their labels are harness/targets/languages.toml.
def language_rows() -> dict[str, str]:
    """Row label by language, in the registry's order ("C++ middleware − C sockets")."""
    return {name: lang.row_label for name, lang in read_languages().items()}


def family_labels() -> str:
    """The middleware families, as harness/targets/families.toml names them: "CORBA, gRPC, Ice or Thrift"."""
    labels = [f.label for f in read_families().values()]
    return ", ".join(labels[:-1]) + f" or {labels[-1]}" if len(labels) > 1 else "".join(labels)


def orb_added(points: list[PointSummary], out_dir: Path) -> list[Figure]:
    """The headline: middleware latency (every family's) minus the same-language socket baseline, per payload,
    with 95% intervals; one row of panels per language, one panel per mode."""
    figures = []
    # A sweep step's ORB-added latency (at the same offered rate) is drawn against the offered load instead.
    added = [p for p in points if p.added is not None and not p.point.is_sweep_step]
    for key, pts in sorted(_by_place(added).items()):
        rows = language_rows()
        order = list(rows)
        languages = sorted({p.language or "?" for p in pts},
                           key=lambda lang: (order.index(lang) if lang in rows else len(order), lang))
        modes = sorted({p.point.mode for p in pts}, key=["twoway", "oneway", "echo"].index)
        fig, axes = plt.subplots(len(languages), len(modes), figsize=(6.5 * len(modes), 4.6 * len(languages)),
                                 squeeze=False)
        for row, language in zip(axes, languages):
            for ax, mode in zip(row, modes):
                here = [p for p in pts if p.point.mode == mode and (p.language or "?") == language]
                sizes = []
                for target, series in sorted(_by_target(here).items()):
                    sizes += _added_series(ax, target, series)
                ax.axhline(0, color="black", lw=0.8)
                if sizes:
                    _finish_payload_panel(ax, sizes, "middleware-added latency, p50 (µs)",
                                          f"{mode}: {rows.get(language, language)} ({key.label})",
                                          log_y=False)
                else:
                    ax.set_axis_off()
        figures.append(saved(fig, out_dir / f"orb-added-{key.slug}.png", f"Middleware-added latency, {key.label}",
                             f"Each middleware's p50 ({family_labels()}) minus the p50 of the socket baseline of "
                             "its language, trial by paired trial, with the 95% confidence interval: what the "
                             "middleware itself costs per call. One row per language, every family side by side. "
                             "gRPC's oneway is a message on an open stream, not a request (PROTOCOL.md, \"gRPC and "
                             "Ice\"). Lower is better."))
    return figures


def _added_series(ax, target: str, series: list[PointSummary]) -> list[int]:
    """One target's added latency per payload with its interval as error bars; returns the payloads."""
    x = [p.point.payload_bytes for p in series]
    added = [p.orb_added_latency_ns for p in series if p.orb_added_latency_ns and p.orb_added_latency_ns.estimate is not None]
    est, bars = added_bars(added)
    family = read_families().get(series[0].family) if series[0].family else None
    ax.errorbar(x, est, yerr=bars, marker="o", ms=4, capsize=3, color=colour(target),
                label=f"{target}{f' ({family.label})' if family else ''} − {added[0].baseline}")
    return x


def throughput(points: list[PointSummary], out_dir: Path) -> list[Figure]:
    """Payload MB/s: oneway as the receiver counted it, twoway as the client's timed calls carried it."""
    figures = []
    by: dict[PointSlice, dict[str, list[PointSummary]]] = defaultdict(dict)
    for key, pts in _by_place([p for p in points if p.latency_ns]).items():
        for p in pts:
            by[key].setdefault(p.point.mode, []).append(p)
    for key, modes in sorted(by.items()):
        panels = [m for m in ("oneway", "twoway") if m in modes]
        fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.8), squeeze=False)
        drawn = False
        for ax, mode in zip(axes[0], panels):
            sizes = []
            for target, series in sorted(_by_target(modes[mode]).items()):
                if mode == "oneway":
                    y = [p.oneway.receiver_throughput_mb_per_s for p in series if p.oneway and p.oneway.receiver_throughput_mb_per_s]
                    series = [p for p in series if p.oneway and p.oneway.receiver_throughput_mb_per_s]
                else:
                    y = [p.client_throughput_mb_per_s for p in series if p.client_throughput_mb_per_s]
                    series = [p for p in series if p.client_throughput_mb_per_s]
                if not series:
                    continue
                x = [p.point.payload_bytes for p in series]
                sizes += x
                style = "-" if series[0].kind == "orb" else "--"
                ax.plot(x, y, style, marker="o", ms=4, color=colour(target), label=target)
            if not sizes:
                continue
            drawn = True
            _finish_payload_panel(ax, sizes, "payload throughput (MB/s)",
                                  f"{mode}: " + ("receiver, to the sync barrier" if mode == "oneway" else
                                                 "one client, call after call"))
        if not drawn:
            plt.close(fig)
            continue
        figures.append(saved(fig, out_dir / f"throughput-{key.slug}.png", f"Throughput, {key.label}",
                             "Payload megabytes (10^6 B) per second: oneway as the server counted them up to the "
                             "closing sync barrier, twoway as one client's back-to-back calls carried them; higher "
                             "is better."))
    return figures


def socket_baselines(points: list[PointSummary], out_dir: Path) -> list[Figure]:
    """The socket baselines alone, side by side: how far apart the languages' plain sockets already are."""
    sockets = [p for p in points if p.kind == "socket" and p.latency_ns]
    if len({p.point.target for p in sockets}) < 2:
        return []
    figures = []
    for key, pts in sorted(_by_place(sockets).items()):
        fig, panels = _mode_panels(pts)
        for ax, mode, by_target in panels:
            sizes = []
            for target, series in by_target:
                sizes += _p50_band(ax, target, series, "-", 0.12)[0]
            _finish_payload_panel(ax, sizes,
                                  "client time per call (µs)" if mode == "oneway" else f"{mode} round trip (µs)",
                                  f"{mode}: socket baselines")
        figures.append(saved(fig, out_dir / f"socket-baselines-{key.slug}.png",
                             f"Socket baselines side by side, {key.label}",
                             "The plain-socket targets of each language, p50 with a band up to p99, same wire bytes; "
                             "the gap is the language's socket cost, which no ORB-added number contains."))
    return figures


ALL_FIGURES = (orb_added, latency_vs_payload, socket_baselines, throughput)
