"""report.html of a run of soak points (`orbench soak`, or a campaign with duration_s): each soak over time, one
point per interval: latency percentiles, deadline misses and calls, the resident memory and CPU of the harness,
the server and each client (read on the host each runs on), and for Java the GC pauses (the clients' own counts
per interval, the server's from its GC log). Runs of every schema load: the store upgrades their manifest."""

from __future__ import annotations

import html
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from orbench.results.soak import SoakRecord, read_jsonl, soak_records  # noqa: E402
from orbench.results.store import RunStore, write_text_atomic  # noqa: E402

from orbench_plots.gclog import parse_gc_log  # noqa: E402
from orbench_plots.report import IMAGE_CHECK, STYLE  # noqa: E402
from orbench_plots.staging import staged_figures  # noqa: E402
from orbench_plots.style import save  # noqa: E402

MIB = 1 << 20


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _minutes(rows: list[dict]) -> dict[int, list[float]]:
    """Per client, when each interval arrived, in minutes from the start of the first (wall clock, so a
    resumed soak's gap shows)."""
    first = min(r["wall_time"] - (r["end_ns"] - r["start_ns"]) / 1e9 for r in rows if r["index"] == 0) \
        if any(r["index"] == 0 for r in rows) else min(r["wall_time"] for r in rows)
    out: dict[int, list[float]] = {}
    for r in rows:
        out.setdefault(r["client"], []).append((r["wall_time"] - first) / 60)
    return out


def _latency_figure(rows: list[dict], path: Path) -> str:
    fig, ax = plt.subplots(figsize=(11, 4))
    minutes = _minutes(rows)
    for k in sorted(minutes):
        mine = [r for r in rows if r["client"] == k]
        for key, label, colour in (("p50_ns", "p50", "#1f77b4"), ("p99_ns", "p99", "#ff7f0e"),
                                   ("p999_ns", "p99.9", "#d62728"), ("max_ns", "max", "#7f7f7f")):
            ys = [r[key] / 1000 if r["calls"] else float("nan") for r in mine]
            ax.plot(minutes[k], ys, color=colour, lw=1.2 if k == 0 else 0.5, alpha=1 if k == 0 else 0.5,
                    label=label if k == 0 else None)
    ax.set_yscale("log")
    ax.set_xlabel("minutes since the start")
    ax.set_ylabel("latency per interval (us)")
    ax.set_title("Latency percentiles per interval (client 0 bold, the others thin)", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    save(fig, path)
    return path.name


def _misses_figure(rows: list[dict], path: Path) -> str:
    fig, ax = plt.subplots(figsize=(11, 3))
    minutes = _minutes(rows)
    by_index: dict[int, list[dict]] = {}
    for r in rows:
        by_index.setdefault(r["index"], []).append(r)
    first = [r for r in rows if r["client"] == 0]
    at = {r["index"]: x for r, x in zip(first, minutes[0])}
    xs = [at[i] for i in sorted(by_index) if i in at]
    misses = [sum(r.get("deadline_misses") or 0 for r in by_index[i]) for i in sorted(by_index) if i in at]
    calls = [sum(r["calls"] for r in by_index[i]) for i in sorted(by_index) if i in at]
    width = (xs[1] - xs[0]) * 0.8 if len(xs) > 1 else 0.1
    ax.bar(xs, misses, width=width, color="#d62728", label="deadline misses (all clients)")
    ax.set_ylabel("misses per interval")
    ax.set_xlabel("minutes since the start")
    twin = ax.twinx()
    twin.plot(xs, calls, color="#1f77b4", lw=1, label="calls (all clients)")
    twin.set_ylabel("calls per interval")
    twin.set_ylim(bottom=0)
    ax.set_title(f"Deadline misses and calls per interval: {sum(misses)} misses in {sum(calls)} calls", fontsize=10)
    fig.legend(fontsize=8, loc="upper right")
    save(fig, path)
    return path.name


def _resources_figure(resources: list[dict], path: Path) -> str:
    fig, (ax, cpu_ax) = plt.subplots(1, 2, figsize=(11, 3.6))
    t0 = resources[0]["wall_time"]
    xs = [(r["wall_time"] - t0) / 60 for r in resources]
    def named(role: str, values: list[dict | None]) -> str:
        host = next((v.get("host") for v in values if v and v.get("host")), "local")
        return role if host == "local" else f"{role} ({host})"

    series = {"harness": [r["harness"] for r in resources]}
    series[named("server", [r["server"] for r in resources])] = [r["server"] for r in resources]
    for k in range(len(resources[0]["clients"])):
        values = [r["clients"][k] for r in resources]
        series[named(f"client {k}", values)] = values
    for name, values in series.items():
        ax.plot(xs, [v["rss_bytes"] / MIB if v else float("nan") for v in values], label=name, lw=1)
        cpu = [float("nan")]
        for a, b, ta, tb in zip(values, values[1:], resources, resources[1:]):
            dt = tb["wall_time"] - ta["wall_time"]
            cpu.append((b["cpu_ns"] - a["cpu_ns"]) / 1e9 / dt * 100 if a and b and dt > 0 else float("nan"))
        cpu_ax.plot(xs, cpu, label=name, lw=1)
    ax.set_title("Resident memory (from /proc on each process's host)", fontsize=10)
    ax.set_ylabel("MiB")
    ax.set_yscale("log")
    cpu_ax.set_title("CPU per interval (% of one CPU)", fontsize=10)
    for a in (ax, cpu_ax):
        a.set_xlabel("minutes since the start")
        a.grid(alpha=0.3, which="both")
        a.legend(fontsize=7)
    save(fig, path)
    return path.name


def _gc_figure(rows: list[dict], run_dir: Path, record: SoakRecord, path: Path) -> str | None:
    # Worker logs are named by the workers' slug (before schema 10 a soak's by its target alone).
    logs = run_dir / "logs"
    server_logs = sorted({*logs.glob(f"{record.point.workers_slug}-server-gc*.log"),
                          *(logs.glob(f"{record.point.target}-server-gc*.log") if record.dir == "soak" else [])})
    if not any("gc" in r for r in rows) and not server_logs:
        return None
    fig, ax = plt.subplots(figsize=(11, 3))
    minutes = _minutes(rows)
    for k in sorted(minutes):
        mine = [r for r in rows if r["client"] == k]
        ax.plot(minutes[k], [(r.get("gc") or {}).get("time_ms", 0) for r in mine], lw=1,
                label=f"client {k} (its MXBeans)")
    wall0 = min(r["wall_time"] for r in rows) - (rows[0]["end_ns"] - rows[0]["start_ns"]) / 1e9
    pauses = [p for log in server_logs for p in parse_gc_log(log)]
    if pauses:
        ax.scatter([(p.end_unix - wall0) / 60 for p in pauses], [p.duration_ms for p in pauses], s=10,
                   color="#d62728", label="server pauses (its GC log, each pause)")
    ax.set_xlabel("minutes since the start")
    ax.set_ylabel("ms")
    ax.set_title("GC pauses: the clients' pause time per interval, the server's pauses one by one", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, path)
    return path.name


def _soak_section(run_dir: Path, record: SoakRecord, stem: str, fig_dir: Path) -> str:
    """One soak point's heading, answers and figures (drawn into fig_dir, shown from figures/)."""
    folder = record.path(run_dir)
    rows = read_jsonl(folder / "intervals.jsonl")
    resources = read_jsonl(folder / "resources.jsonl")
    figures: list[tuple[str, str]] = []
    if rows:
        figures.append((_latency_figure(rows, fig_dir / f"{stem}-latency.png"),
                        "Each interval's p50, p99, p99.9 and max, from the worker's histogram (at most 1/128 above "
                        "the exact value; max exact). A leak or a slowly growing tail shows as a trend."))
        figures.append((_misses_figure(rows, fig_dir / f"{stem}-misses.png"),
                        "A deadline miss is a call that completed more than one period after its intended send "
                        "time (fixed rate or Poisson: the mean period)."))
        gc = _gc_figure(rows, run_dir, record, fig_dir / f"{stem}-gc.png")
        if gc:
            figures.append((gc, "Java: stop-the-world pauses. Clients: per interval, from their "
                                "GarbageCollectorMXBeans (ms resolution); server: each pause of its GC log."))
    if len(resources) > 1:
        figures.append((_resources_figure(resources, fig_dir / f"{stem}-resources.png"),
                        "Resident set size and CPU time of every process, read from /proc each interval on the "
                        "host it runs on: flat memory means nothing grows with the number of calls."))
    answer_rows = "".join(
        f"<tr><td>{_esc(k)}</td><td class='num'>{a.get('calls', '')}</td><td class='num'>"
        f"{a.get('p50_ns', 0) / 1000:.1f}</td><td class='num'>{a.get('p999_ns', 0) / 1000:.1f}</td>"
        f"<td class='num'>{a.get('max_ns', 0) / 1000:.1f}</td><td class='num'>{_esc(a.get('deadline_misses', '-'))}"
        f"</td><td class='num'>{_esc(a.get('achieved_rate_hz') and round(a['achieved_rate_hz'], 3))}</td></tr>"
        for k, a in record.answers.items() if a.get("ok"))
    failures = "".join(f"<p class='warn'>client {_esc(k)}: {_esc(v)}</p>" for k, v in record.failures.items())
    body = "".join(f"<figure><img src='figures/{_esc(name)}' alt='{_esc(name)}'><figcaption>{_esc(caption)}"
                   f"</figcaption></figure>" for name, caption in figures)
    p = record.point
    hosts = record.hosts
    where = "" if set(hosts.values()) <= {"local"} else \
        f" Server on {_esc(hosts.get('server'))}, clients on {_esc(hosts.get('client'))}."
    return f"""<h2>{_esc(p.label)}: {record.duration_s:g} s, {_esc(record.status)}</h2>
<p>{p.clients} client(s), {_esc(p.mode)} {p.payload_bytes} B,
{'closed loop' if not p.rate_hz else f"{p.rate_hz:g} calls/s per client, {_esc(record.arrivals)} arrivals"},
one histogram per {record.interval_s:g} s, placement {_esc(p.placement)};{where} {len(rows)} interval line(s),
in <code>{_esc(record.dir)}/</code>.</p>
{failures}
<table><tr><th>client</th><th>calls</th><th>p50 us</th><th>p99.9 us</th><th>max us</th><th>deadline misses</th>
<th>achieved calls/s</th></tr>{answer_rows}</table>
{body}
"""


def make_soak_report(run_dir: Path | str) -> Path:
    run_dir = Path(run_dir)
    manifest = RunStore(run_dir).read_manifest()
    records = soak_records(manifest)
    with staged_figures(run_dir) as fig_dir:  # the old figures and page stay until the new ones are whole
        sections = "".join(_soak_section(run_dir, r, "soak" if len(records) == 1 else f"soak-{r.point.slug}-l{r.launch}",
                                         fig_dir) for r in records)
    title = ", ".join(sorted({r.point.target for r in records})) or "(no soak points)"
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>orbench soak {_esc(title)}</title><style>{STYLE}</style></head>
<body>
<h1>Soak: {_esc(title)}</h1>
<p>Run <code>{_esc(manifest['run_id'])}</code>, status <b>{_esc(manifest['status'])}</b>, started
{_esc(manifest['started_at'])}; {len(records)} soak point(s).</p>
{sections}
{IMAGE_CHECK}
</body></html>
"""
    out = run_dir / "report.html"
    write_text_atomic(out, page)
    return out
