"""Figures drawn from a run's raw samples (not only summary.json): CDFs, percentile spectra, the per-call time
line with the JVM's GC pauses, and the equivalence of two socket baselines (Krintz and Wolski's tests)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter
from orbench.results.point import Point, PointSlice
from orbench.results.store import RunStore
from orbench.results.trial import Trial
from orbench.stats import stats
from orbench.stats.equivalence import empirical_band
from orbench.summary.model import RunSummary

from orbench_plots.gclog import GcPause, gc_logs, parse_gc_log
from orbench_plots.load_figures import base_load, is_at_base
from orbench_plots.style import Figure, _bytes_label, _us_axis, colour, saved

# A CDF curve is drawn through at most this many of its sorted samples, evenly spaced in rank, the first and last
# always among them: a panel is about 300 pixels tall, so a step of 1/2000 in y is under a pixel, and drawing
# every sample of a point (tens of thousands, 12 curves a figure) made the two CDF figures 1.7 s of quick's
# report on a 2-vCPU VM.
CDF_POINTS = 2000

# The percentile spectrum's points; 100 is the maximum and is drawn at the end of the axis.
SPECTRUM = (0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99)


class RunSamples:
    """The ok trials of a run at its lightest load (1 client, closed loop, where measured; load_figures.base_load),
    by point, with their raw samples read on demand."""

    def __init__(self, run_dir: Path):
        self.store = RunStore(run_dir)
        self.trials: dict[Point, list[Trial]] = defaultdict(list)
        trials = self.store.read_trials()
        base = base_load(t.point for t in trials)
        for t in trials:
            if t.ok and is_at_base(t.point, base):
                self.trials[t.point].append(t)

    def samples(self, point: Point) -> np.ndarray:
        return np.concatenate([stats.read_samples(self.store.path / str(t.samples_file)) for t in self.trials[point]])

    def groups(self) -> dict[PointSlice, dict[int, list[Point]]]:
        """One figure per everything but payload size and target: payload -> the points at that size."""
        out: dict[PointSlice, dict[int, list[Point]]] = defaultdict(lambda: defaultdict(list))
        for point in sorted(self.trials):
            out[point.without("payload_bytes", "target")][point.payload_bytes].append(point)
        return out


def chosen_payloads(sizes: list[int]) -> list[int]:
    """The smallest, the one nearest 1 KiB, and the largest payload of a campaign."""
    sizes = sorted(set(sizes))
    picks = [sizes[0], min(sizes, key=lambda s: abs(np.log2(max(s, 1)) - 10)), sizes[-1]]
    return sorted(set(picks))


def _tidy_log_axis(ax) -> None:
    """Plain numbers on a log latency axis; minor ticks unlabelled once the range spans more than a decade."""
    _us_axis(ax)  # majors, plus minors at 2x and 5x on a wide range


def _saved(fig, path: Path, title: str, caption: str) -> Figure:
    return saved(fig, path, title, caption, dpi=100)


def _payload_panels(by_size: dict[int, list[Point]]) -> tuple[object, list[tuple[object, int, list[Point]]]]:
    """One panel per chosen payload, side by side: the figure, and each panel's axes, payload and targets."""
    sizes = chosen_payloads(list(by_size))
    fig, axes = plt.subplots(1, len(sizes), figsize=(5 * len(sizes), 4.2), squeeze=False)
    return fig, [(ax, size, by_size[size]) for ax, size in zip(axes[0], sizes)]


def _finish_payload_panels(fig, panels: list, ylabel: str, title: str) -> None:
    for ax, _size, _targets in panels:
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    panels[0][0].set_ylabel(ylabel)
    fig.suptitle(title)


def cdfs(run: RunSamples, out_dir: Path) -> list[Figure]:
    figures = []
    for key, by_size in sorted(run.groups().items()):
        fig, panels = _payload_panels(by_size)
        for ax, size, points in panels:
            for point in points:
                x, y = cdf_curve(run.samples(point))
                ax.plot(x, y, color=colour(point.target), lw=1.2, label=point.target)
            ax.set_xscale("log")
            ax.set_title(f"{_bytes_label(size)}")
            ax.set_xlabel("latency per call (µs)")
        _finish_payload_panels(fig, panels, "fraction of calls at or below", f"latency CDF ({key.label})")
        figures.append(_saved(fig, out_dir / f"cdf-{key.slug}.png", f"CDF, {key.label}",
                              "Share of calls (y) that took at most x µs, at the smallest, ~1 KiB and largest "
                              "payload; a curve further left is faster, a long flat top is a tail."))
    return figures


def cdf_curve(samples: np.ndarray, points: int = CDF_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """A CDF's points to draw, x in µs: the sorted samples at up to `points` ranks evenly spaced from the first
    to the last (the maximum), each with its share of calls at or below it."""
    x = np.sort(samples)
    ranks = np.unique(np.linspace(0, x.size - 1, min(points, x.size)).round().astype(np.int64))
    return x[ranks] / 1e3, (ranks + 1) / x.size


def _nines(q: float) -> float:
    return -np.log10(1 - q / 100) if q < 100 else 5.0


TICKS = (50, 90, 99, 99.9, 99.99, 100)


def _nines_label(v: float, _pos: int = 0) -> str:
    labels = {round(_nines(q), 3): ("max" if q == 100 else f"p{q:g}") for q in TICKS}
    return labels.get(round(v, 3), "")


def spectra(run: RunSamples, out_dir: Path) -> list[Figure]:
    figures = []
    for key, by_size in sorted(run.groups().items()):
        fig, panels = _payload_panels(by_size)
        for ax, size, points in panels:
            for point in points:
                target = point.target
                x = run.samples(point)
                qs = [q for q in SPECTRUM]
                vals = np.percentile(x, qs) / 1e3
                ok = [x.size >= stats.samples_needed(q) or q <= 99 for q in qs]
                xs = [_nines(q) for q in qs]
                ax.plot([a for a, k in zip(xs, ok) if k], [v for v, k in zip(vals, ok) if k], "-o", ms=3,
                        color=colour(target), label=target)
                thin = [(a, v) for a, v, k in zip(xs, vals, ok) if not k]
                if thin:  # tails the samples do not support: hollow, dashed
                    last = [(a, v) for a, v, k in zip(xs, vals, ok) if k][-1:]
                    px, py = zip(*(last + thin))
                    ax.plot(px, py, "--o", ms=4, mfc="white", color=colour(target), lw=0.8)
                ax.plot([_nines(100)], [x.max() / 1e3], "x", color=colour(target))
            ax.xaxis.set_major_locator(FixedLocator([_nines(q) for q in TICKS]))
            ax.xaxis.set_major_formatter(FuncFormatter(_nines_label))
            ax.set_yscale("log")
            _tidy_log_axis(ax)
            ax.set_title(_bytes_label(size))
        _finish_payload_panels(fig, panels, "latency per call (µs)", f"percentile spectrum ({key.label})")
        figures.append(_saved(fig, out_dir / f"spectrum-{key.slug}.png", f"Percentile spectrum, {key.label}",
                              "Latency at each percentile from p0 to p99.99 (x: number of nines), max as x; hollow "
                              "dashed points are percentiles with fewer than 10 samples beyond them. Flat is good."))
    return figures


def _call_times_ms(samples: np.ndarray, elapsed_ns: float) -> np.ndarray:
    """When each timed call started, in ms after the first, spreading the loop's own overhead evenly."""
    starts = np.concatenate(([0.0], np.cumsum(samples[:-1], dtype=float)))
    scale = elapsed_ns / float(samples.sum()) if samples.sum() > 0 else 1.0
    return starts * scale / 1e6


def _window(t: Trial) -> tuple[float, float]:
    """A trial's timed calls in wall-clock seconds: they end when the answer came back."""
    end = float(t.trial_end_unix or 0)
    return end - (t.elapsed_ns or 0) / 1e9, end


def _overlapping(t: Trial, pauses: dict[str, list[GcPause]]) -> list[tuple[str, GcPause]]:
    a, b = _window(t)
    return [(r, p) for r, ps in pauses.items() for p in ps if p.end_unix >= a and p.start_unix <= b]


def gc_timelines(run: RunSamples, out_dir: Path, manifest: dict) -> list[Figure]:
    """For each Java target, the twoway trial at its largest payload that overlaps the most GC pauses."""
    figures = []
    java = [t for t, info in manifest.get("targets", {}).items() if info.get("language") == "java"]
    for target in java:
        keys = [k for k in run.trials if k.target == target and k.mode == "twoway"] or \
               [k for k in run.trials if k.target == target]
        if not keys:
            continue
        key = max(keys, key=lambda k: (k.payload_bytes, k.host_pair == "local", k.options == ""))
        logs = gc_logs(run.store.logs_dir, key.workers_slug)
        pauses: dict[str, list[GcPause]] = {role: [p for f in files for p in parse_gc_log(f)]
                                            for role, files in logs.items()}
        if not any(logs.values()):
            continue

        trials = [t for t in run.trials[key] if t.trial_end_unix is not None and t.elapsed_ns]
        if not trials:
            continue

        trial = max(trials, key=lambda t: (len(_overlapping(t, pauses)), t.max_ns or 0))
        x = stats.read_samples(run.store.path / str(trial.samples_file))
        times = _call_times_ms(x, trial.elapsed_ns or 0)
        start, _end = _window(trial)
        fig, ax = plt.subplots(figsize=(10, 4.2))
        ax.plot(times, x / 1e3, lw=0.5, color=colour(target))
        for role, p in _overlapping(trial, pauses):
            c = "#d62728" if role == "client" else "#ff7f0e"
            ax.axvspan((p.start_unix - start) * 1e3, max((p.end_unix - start) * 1e3, (p.start_unix - start) * 1e3
                       + 0.05), color=c, alpha=0.35, lw=0)
        ax.plot([], [], color="#d62728", alpha=0.5, lw=6, label="client GC pause")
        ax.plot([], [], color="#ff7f0e", alpha=0.5, lw=6, label="server GC pause")
        ax.set_yscale("log")
        _tidy_log_axis(ax)
        ax.set_xlabel("time since the first timed call (ms)")
        ax.set_ylabel("latency per call (µs)")
        n = len(_overlapping(trial, pauses))
        total = sum(len(v) for v in pauses.values())
        ax.set_title(f"{key.label}, trial {trial.trial}: {n} GC pause(s) in the trial, {total} in the workers' "
                     "logs")
        ax.legend(fontsize=8, loc="upper right")
        ax.grid(True, alpha=0.3)
        figures.append(_saved(fig, out_dir / f"timeline-gc-{key.slug}.png",
                              f"Per-call latency over time with GC pauses, {key.label}",
                              "Each call's latency in call order; shaded spans are stop-the-world GC pauses from the "
                              "client's (red) and server's (orange) GC logs, placed by wall clock to about 1 ms. "
                              "A spike under a span is a GC pause."))
    return figures


def equivalence_figure(run: RunSamples, summary: RunSummary, out_dir: Path) -> list[Figure]:
    """CDF overlay and empirical band of two socket baselines at the largest twoway payload (Krintz and
    Wolski's equivalence tests)."""
    rows = [e for e in summary.equivalence if e.capture is not None
            and e.group.with_target(e.a) in run.trials and e.group.with_target(e.b) in run.trials]
    if not rows:
        return []
    pick = max(rows, key=lambda e: (e.group.mode == "twoway", e.group.host_pair == "local", e.group.options == "",
                                    e.group.payload_bytes))
    group, name_a, name_b = pick.group, pick.a, pick.b
    a, b = run.samples(group.with_target(name_a)), run.samples(group.with_target(name_b))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.4))
    for name, x in ((name_a, a), (name_b, b)):
        ax1.plot(*cdf_curve(x), color=colour(name), label=name)
    ax1.set_xscale("log")
    ax1.set_xlabel("latency per call (µs)")
    ax1.set_ylabel("fraction of calls at or below")
    ax1.set_title("CDF overlay")
    ax1.legend(fontsize=8)
    ax1.grid(True, which="both", alpha=0.3)
    n = min(600, a.size, b.size)
    lo, hi, first = empirical_band(a[:n])
    idx = np.arange(first, first + lo.size)
    floor = float(min(a[:n].min(), b[:n].min())) * 0.5  # a band reaching below 0 is drawn to the axis' floor
    ax2.fill_between(idx, np.maximum(lo, floor) / 1e3, hi / 1e3, color=colour(name_a), alpha=0.2, lw=0,
                     label=f"{name_a} empirical 95% band")
    ax2.plot(np.arange(n), b[:n] / 1e3, ".", ms=2, color=colour(name_b), label=f"{name_b} calls")
    ax2.set_yscale("log")
    _tidy_log_axis(ax2)
    ax2.set_xlabel("call index (trial 0)")
    ax2.set_ylabel("latency per call (µs)")
    ax2.set_title(f"{name_b} in {name_a}'s band: {pick.captured(name_b, name_a) or 0.0:.0%}")
    ax2.legend(fontsize=8)
    per_trial = pick.regression_trial_p50_b_on_a
    fig.suptitle(f"{name_a} vs {name_b}, {group.label}"
                 + ("" if per_trial is None else f"; beta per trial p50 = {per_trial.beta:.3f}"))
    return [_saved(fig, out_dir / f"equivalence-{name_a}-{name_b}.png",
                   f"Equivalence of {name_a} and {name_b}",
                   "Left: the two traces' CDFs, overlaid (equivalent traces mask each other). Right: one trace's calls "
                   "against the other's empirical 95% band (sliding-mean forecast ± 2√MSE); Krintz and Wolski call "
                   "them equivalent when each captures ≥ 95% of the other.")]


def make_sample_figures(run_dir: Path, summary: RunSummary, manifest: dict, out_dir: Path) -> list[Figure]:
    run = RunSamples(run_dir)
    figures: list[Figure] = []
    figures += cdfs(run, out_dir)
    figures += spectra(run, out_dir)
    figures += equivalence_figure(run, summary, out_dir)
    figures += gc_timelines(run, out_dir, manifest)
    return figures
