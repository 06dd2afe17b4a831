"""A worker's interval events (harness/PROTOCOL.md, "Soak runs") as HdrHistogram interval logs.

The workers' buckets are HdrHistogram's counts layout at 2 significant digits, so bucket i becomes counts
index i without loss: recording the bucket's lowest value lands it there. HdrHistogram's own tools
(HistogramLogProcessor, the plotter) read the logs.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import IO, Any

from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogWriter

SOAK_DIGITS = 2
SOAK_HIGHEST_NS = 2**62  # the workers' top bucket starts at 2^62 - 2^55 (PROTOCOL.md)
SUB_BUCKETS = 128


def bucket_lowest(index: int) -> int:
    """The lowest value of the protocol's bucket `index`."""
    if index < 2 * SUB_BUCKETS:
        return index
    shift = index // SUB_BUCKETS - 1
    return (index - shift * SUB_BUCKETS) << shift


def histogram_of(event: dict[str, Any]) -> HdrHistogram:
    h = HdrHistogram(1, SOAK_HIGHEST_NS, SOAK_DIGITS)
    for index, count in event["buckets"]:
        h.record_value(max(1, bucket_lowest(index)), count)
    return h


class IntervalLog:
    """One client's interval log, one line per interval, flushed as it comes: a crash loses nothing written.

    Time stamps are seconds since the soak's t_0 (the first interval's start on the worker's clock); the
    log's StartTime is the wall-clock time the harness saw the soak begin."""

    def __init__(self, path: Path, start_wall_s: float, legend: str):
        self.path = path
        self._file: IO[str] = open(path, "a")
        self._writer = HistogramLogWriter(self._file)
        self._t0_ns: int | None = None
        if path.stat().st_size == 0:
            self._writer.output_comment(legend)
            self._writer.output_log_format_version()
            # hdrh's output_start_time is broken (it takes ms for seconds): the line HdrHistogram writes.
            self._writer.output_comment(f"[StartTime: {start_wall_s:.3f} (seconds since epoch), "
                                        f"{time.ctime(start_wall_s)}]")
            self._writer.output_legend()
            self._file.flush()

    def write(self, event: dict[str, Any], t0_ns: int, offset_s: float = 0.0) -> None:
        """`offset_s`: where this worker's t_0 falls after the log's start (a resumed soak's new workers)."""
        h = histogram_of(event)
        start = offset_s + (event["start_ns"] - t0_ns) / 1e9
        end = offset_s + (event["end_ns"] - t0_ns) / 1e9
        # max_value_unit_ratio 1e6: values in ns, the log's Max column in ms as HdrHistogram's tools print it.
        self._writer.output_interval_histogram(h, start, end, 1e6)
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def keep_intervals(path: Path, count: int) -> None:
    """Cut an interval log after its first `count` intervals (a resumed soak redoes the rest)."""
    if not path.exists():
        return
    kept, seen = [], 0
    for line in path.read_text().splitlines(keepends=True):
        if line.startswith(("#", '"')):
            kept.append(line)
        elif seen < count:
            kept.append(line)
            seen += 1
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(kept))
    tmp.replace(path)
