"""summary.json as types: every section a frozen dataclass, so the keys are written down here and nowhere else.

One codec turns them into JSON and back (`to_json`, `from_json`, orbench/results/codec.py, which the
manifest's soak records share). Its rules, which keep the keys older summary.json files have:
- a field's JSON key is its name, or the `key` its field gives where the name cannot be one (p99.9);
- a field with a default is an optional key: absent from the JSON when its value is None, unless it is
  `nullable()` (written as null: "no value" is the figure, e.g. a p99.99 from too few samples);
- a `flat` field (a Point, a PointGroup, the known answer of a row) spreads its keys into the object holding it;
- a class's `DERIVED` names are properties written into the JSON for its readers and ignored when read back.

`SUMMARY_VERSION` counts changes of this layout; `schema_version` beside it is the version of the results the
summary was computed from. A file of another version of either is recomputed from the raw samples
(summary.current_summary), never parsed as if it were current.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from orbench.results.codec import flat, from_json, nullable, optional, to_json
from orbench.results.integrity import Damage
from orbench.results.point import Point, PointGroup
from orbench.results.run_warnings import RunWarning, grouped_lines
from orbench.stats.launches import LaunchValue
from orbench.stats.phases import ModeAdded

# 2: written from these types (an optional key whose value is None is left out); 1 had no summary_version.
# 3: points carry the load-at-scale dimensions and load fields; the run gains `capacities` and
#    `queueing_checks`; a point's anatomy has the workers' send- and recv-family calls and the sums read+recv,
#    write+send.
# 4: points carry the invocation shape (`shape`); the run gains `shape_costs`, each shape's p50 over the same
#    ORB's `in` call at the same payload.
# 5: a point's skipped trials (a sweep step past saturation, a target that cannot run the point) are counted
#    in `trials_skipped`, no longer in `trials_failed`.
# 6: the run gains `instructions` (the counting mode: instructions per call by worker and function, against the
#    baseline, with the known answer in instructions).
# 7: the run gains `damaged`: each trial left out because its row or samples file is damaged (integrity.py).
# 8: `shape_costs` also holds a shape against another shape than `in` where its kind names one (pipelined over
#    chained: what promise pipelining saves), with `reference`.
# 9: ORB-added latency from slice pairs where the trials were sliced (running/slices.py; its ci_method says so),
#    with `by_host_speed` where the baseline's slices fall into two speed modes; the run gains `host_speed`.
# 10: an instruction count splits off glibc's allocator (its instructions and calls per call) from the rest.
# 11: ORB-added latency from the slice pairs taken with the host at its usual speed (`usual_speed`: how many of
#    how many, and the launches left out with none).
# 12: ORB-added latency's within-run standard error (`se_ns`) and its interval widened by the run-to-run variation
#    of earlier runs on the host (`run_to_run`, summary/run_to_run.py).
# 13: an ORB-added interval from at most 4 launches no narrower than its target's launch spread at its other sizes
#    gives (summary/pooled_spread.py; its ci_method says so).
# 14: ORB-added latency of a round trip from slice values read block by block at the host's usual speed
#    (`usual_blocks`, stats/phases.usual_blocks) where both sides have them and agree.
# 15: a round trip's slice-pair differences scaled to the host's usual speed by their baseline slices
#    (`usual_speed_ns`, stats/phases.speed_scaled) where the added cost is work, not a known answer's clock spin.
# 16: an ORB-added interval with earlier runs on the host is the runs' pooled one, narrower than the run's own
#    too, unless the run's launches spread beyond theirs (`run_to_run.unlike`, summary/run_to_run.py).
# 17: a round trip's slices valued by the middle mean of their calls, not their p50.
# 18: a round trip at rest on one CPU valued by the fast end of its calls (stats.fast_end), any other slice by
#    its p50 again: stats/phases.slice_values.
SUMMARY_VERSION = 18

# --- latency and intervals -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Latency:
    """Over every timed call of a point (stats.latency_summary, stats.tail_percentiles); a tail percentile is
    None where too few samples lie beyond it."""

    p50: float
    p90: float
    p99: float
    min: float
    max: float
    mean: float
    stdev: float
    count: int
    p99_9: float | None = nullable("p99.9")
    p99_99: float | None = nullable("p99.99")


@dataclass(frozen=True)
class TrialInterval:
    """A point's p50 (or p99) over its trials or launches: the estimate with its 95% interval (stats.trial_ci95;
    over launches `launches` says how many). Only `why_missing` when there is none."""

    estimate: float | None = None
    low: float | None = None
    high: float | None = None
    width_pct: float | None = None
    half_width: float | None = None
    method: str | None = None
    trials: int | None = None
    launches: int | None = None
    why_missing: str | None = None


@dataclass(frozen=True)
class VarianceSplit:
    """Between- and within-launch parts of the launch values' variance (stats/launches.variance_split)."""

    launch_values_sd_ns: float
    within_launch_sd_ns: float | None
    between_launch_sd_ns: float | None
    between_launch_share: float | None
    dominant: str | None
    trials_per_launch: float


@dataclass(frozen=True)
class Disagreement:
    """Launches that fall into two groups far apart (stats/launches.disagreement)."""

    text: str
    low_launches: tuple[int, ...]
    high_launches: tuple[int, ...]
    low_ns: float
    high_ns: float


@dataclass(frozen=True)
class Launches:
    """A point's p50 over two or more launches: each launch's value, the variance split, any disagreement."""

    n: int
    values: tuple[LaunchValue, ...]
    variance: VarianceSplit | None = nullable()
    disagreement: Disagreement | None = nullable()


@dataclass(frozen=True)
class TrialP50s:
    values: tuple[float, ...]            # in (launch, trial) order
    robust_cv_pct: float | None


@dataclass(frozen=True)
class Stall:
    """One trial where a few calls took most of its time (stats/stalls.py)."""

    launch: int
    trial: int
    calls: int
    of_calls: int
    share: float
    longest_ns: float


# --- load, oneway, interop --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Load:
    clients: int
    aggregate_calls_per_s: float | None
    client_p50s_ns: tuple[tuple[float, ...], ...] | None = optional()   # per trial, per client (N > 1)
    start_barrier_incomplete_trials: int | None = optional()
    # Load at scale (means over the point's trials; running/load_usage.py): how evenly the clients were served
    # (Jain's index, 1 = evenly), each side's CPU utilisation over the timed calls, the server's most threads,
    # which side saturated (the trials' most frequent answer), and for a sweep step or a rate what was offered
    # in all, what the clients sent, and whether the step's queue settled (its halves' mean latency ratio).
    aggregate_calls_per_s_ci95: TrialInterval | None = optional()   # over launches (or trials) of the point
    fairness: float | None = optional()
    server_cpu_util: float | None = optional()
    client_cpu_util: float | None = optional()
    server_threads_max: int | None = optional()
    bottleneck: str | None = optional()
    offered_rate_hz: float | None = optional()
    achieved_rate_hz: float | None = optional()
    settle_ratio: float | None = optional()


@dataclass(frozen=True)
class Rate:
    """A fixed-rate point's deadline misses and achieved rate."""

    rate_hz: float
    deadline_misses: int
    calls: int
    deadline_miss_pct: float | None
    achieved_rate_hz: float | None
    definition: str


@dataclass(frozen=True)
class Oneway:
    client_time_per_call_ns: Latency
    calls: int
    received_messages: int
    lost_messages: int
    receiver_throughput_msgs_per_s: float | None
    receiver_throughput_mb_per_s: float | None
    sync_incomplete_trials: int
    warmup_sync_incomplete_trials: int


@dataclass(frozen=True)
class Interop:
    """An interop point (client->server) beside the two homogeneous pairs of its point group."""

    client_target: str
    server_target: str
    client_pair_p50_ns: float | None
    minus_client_pair_p50_ns: float | None
    server_pair_p50_ns: float | None
    minus_server_pair_p50_ns: float | None


# --- anatomy ----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AnatomyFigure:
    """One per-call figure over a point's trials: their median, and their mean with its t interval."""

    median: float
    mean: float | None
    low: float | None
    high: float | None
    trials: int


@dataclass(frozen=True)
class Syscalls:
    """The traced trial's system calls by name, per worker."""

    client: dict[str, int]
    client_total: int | None
    server: dict[str, int]
    server_total: int | None
    traced_p50_ns: float | None


@dataclass(frozen=True)
class Anatomy:
    """A point's anatomy (anatomy/summary.py): per-call figures over trials, per-trial counts summed."""

    per_call: str
    tcp_events: dict[str, int]
    client_cpu_us: AnatomyFigure | None = optional()
    client_user_us: AnatomyFigure | None = optional()
    client_sys_us: AnatomyFigure | None = optional()
    server_cpu_us: AnatomyFigure | None = optional()
    server_user_us: AnatomyFigure | None = optional()
    server_sys_us: AnatomyFigure | None = optional()
    client_vcsw: AnatomyFigure | None = optional()
    client_ivcsw: AnatomyFigure | None = optional()
    server_vcsw: AnatomyFigure | None = optional()
    server_ivcsw: AnatomyFigure | None = optional()
    client_reads: AnatomyFigure | None = optional()
    client_writes: AnatomyFigure | None = optional()
    server_reads: AnatomyFigure | None = optional()
    server_writes: AnatomyFigure | None = optional()
    client_recvs: AnatomyFigure | None = optional()       # since summary 3: the send/recv counter's figures
    client_sends: AnatomyFigure | None = optional()
    server_recvs: AnatomyFigure | None = optional()
    server_sends: AnatomyFigure | None = optional()
    client_reads_recvs: AnatomyFigure | None = optional()   # read family + recv family (anatomy/summary.SUMS)
    client_writes_sends: AnatomyFigure | None = optional()  # write family + send family
    server_reads_recvs: AnatomyFigure | None = optional()
    server_writes_sends: AnatomyFigure | None = optional()
    wire_out_bytes: AnatomyFigure | None = optional()
    wire_in_bytes: AnatomyFigure | None = optional()
    wire_out_segs: AnatomyFigure | None = optional()
    wire_in_segs: AnatomyFigure | None = optional()
    client_allocs: AnatomyFigure | None = optional()
    client_alloc_bytes: AnatomyFigure | None = optional()
    client_thread_alloc_bytes: AnatomyFigure | None = optional()
    server_allocs: AnatomyFigure | None = optional()
    server_alloc_bytes: AnatomyFigure | None = optional()
    cpu_us: AnatomyFigure | None = optional()          # both workers
    tcp_retrans: int | None = optional()
    tcp_timeouts: int | None = optional()
    client_gc_count: int | None = optional()
    client_gc_ms: int | None = optional()
    server_gc_count: int | None = optional()
    server_gc_ms: int | None = optional()
    client_threads_ended: int | None = optional()
    server_threads_ended: int | None = optional()
    syscalls: Syscalls | None = optional()

    def figure(self, name: str) -> AnatomyFigure | None:
        """A per-call figure by its name (a trial field's name, anatomy/summary.PER_CALL)."""
        value = getattr(self, name, None)
        return value if isinstance(value, AnatomyFigure) else None

    def median(self, name: str) -> float | None:
        fig = self.figure(name)
        return None if fig is None else fig.median


# --- the pairing: ORB against its baseline ----------------------------------------------------------------------

@dataclass(frozen=True)
class HostSpeedSplit:
    """At a point whose baseline slices fall into two speed modes of the host (stats/phases.py): the modes and
    what the middleware adds in each, over the slice pairs whose baseline slice was taken in it."""

    threshold_ns: float       # a baseline slice value above it was taken in the slow mode
    slow_over_fast: float     # the slow mode's baseline p50 over the fast one's
    separation: float         # Ashman's D
    modes: tuple[ModeAdded, ...]
    # The slow-mode pairs' median difference less the fast ones' (stats/phases.slow_step): how much more the
    # middleware adds when the host is slow.
    step_ns: float = 0.0


@dataclass(frozen=True)
class UsualSpeed:
    """Of a point's slice pairs, those taken with the host at its usual speed (stats/phases.settled_pairs): the
    ORB-added estimate is theirs."""

    pairs: int                # kept
    of_pairs: int             # all the point's slice pairs
    limit_ns: float           # a baseline slice value above it was not at the usual speed
    launches_left_out: tuple[int, ...] = ()  # launches with no pair at the usual speed


@dataclass(frozen=True)
class UsualBlocksRead:
    """The slice values read block by block at the host's usual speed (stats/phases.usual_blocks): each slice's
    value is the median of its calls in blocks of `block_calls` whose median was at most the side's limit."""

    block_calls: int
    orb_kept: float           # share of the middleware's blocks at the usual speed
    base_kept: float          # share of the baseline's
    orb_limit_ns: float
    base_limit_ns: float


@dataclass(frozen=True)
class RunToRun:
    """How earlier runs of the campaign on this host set the interval (summary/run_to_run.py)."""

    runs: int                 # this one and its earlier runs with the point
    tau_ns: float             # the run-to-run standard deviation beyond the runs' own standard errors
    pooled_se_ns: float       # the root mean square of the runs' standard errors
    pooled_df: int            # the runs' degrees of freedom, summed
    within_ci95_low: float    # the interval from this run's launches alone
    within_ci95_high: float
    unlike: bool = False      # its launches spread beyond the earlier runs': its own interval kept where wider
    prior: bool = False       # too few runs on the host: tau is the prior share of the estimate (run_to_run.py)


@dataclass(frozen=True)
class OrbAdded:
    """ORB-added latency: the ORB's trial p50s minus its baseline's, paired (summary/pairing.py). Over launches
    the launch fields are set; without a paired trial only `why_missing`."""

    baseline: str
    estimate: float | None
    ci95_low: float | None = None
    ci95_high: float | None = None
    ci_method: str | None = None
    pairs: int | None = None
    unpaired: int | None = None
    per_pair: tuple[float, ...] | None = None
    mean: float | None = None
    n_launches: int | None = None
    launches: tuple[LaunchValue, ...] | None = None
    variance: VarianceSplit | None = None
    disagreement: Disagreement | None = None
    why_missing: str | None = None
    why_not_p50_difference: str | None = None
    by_host_speed: HostSpeedSplit | None = None
    usual_speed: UsualSpeed | None = None
    usual_blocks: UsualBlocksRead | None = optional()  # slice values read block by block (summary version 14)
    se_ns: float | None = optional()                 # the estimate's standard error over this run's launches
    se_df: int | None = optional()                   # its degrees of freedom
    run_to_run: RunToRun | None = optional()
    # The baseline's slice value at the host's usual speed each pair's difference was scaled to
    # (stats/phases.speed_scaled); None where the differences are as measured.
    usual_speed_ns: float | None = optional()

    def replace(self, **changes: Any) -> OrbAdded:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class OrbAddedCpu:
    """CPU per call (both workers) an ORB adds over its baseline (anatomy/summary.orb_added_cpu)."""

    baseline: str
    estimate: float | None
    ci95_low: float | None
    ci95_high: float | None
    pairs: int
    method: str
    unit: str


@dataclass(frozen=True)
class KnownAnswer:
    """A known-answer point: the known N against the recovered ORB-added latency X (summary.known_answer)."""

    known_ns: int
    recovered_ns: float
    ci95_low: float | None
    ci95_high: float | None
    text: str
    covered: bool
    error_ns: float
    within_tolerance: bool
    trials: int
    mean_p50_ns: float | None


@dataclass(frozen=True)
class Stopping:
    """Why the point group's trials stopped (running/stopping.py), as it concerns this point."""

    reason: str
    trials: int
    target_ci_pct: float | None
    p50_ci_width_pct: float | None
    target_added_ci_ns: float | None = optional()
    target_added_ci_pct: float | None = optional()
    orb_added_ci_half_width_ns: float | None = optional()


# --- one point ----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PointSummary:
    """One point of a run: its trials' outcome and, when any succeeded, its statistics."""

    point: Point = flat()
    kind: str | None = nullable()
    language: str | None = nullable()
    family: str | None = nullable()    # corba, grpc, ice; None: a baseline
    trials_ok: int = 0
    trials_failed: int = 0             # failed or given up
    trials_skipped: int = 0            # not run: past a sweep's saturation, or the target cannot run the point
    errors: tuple[str, ...] = ()
    status: str = "ok"
    skipped: str | None = optional()   # the point's remaining trials were given up after failures in a row
    latency_ns: Latency | None = optional()
    p50_ci95_ns: TrialInterval | None = optional()
    launches: Launches | None = optional()
    p99_ci95_ns: TrialInterval | None = optional()
    stalls: tuple[Stall, ...] | None = optional()
    client_throughput_mb_per_s: float | None = optional()
    load: Load | None = optional()
    rate: Rate | None = optional()
    anatomy: Anatomy | None = optional()
    trial_p50_ns: TrialP50s | None = optional()
    oneway: Oneway | None = optional()
    orb_added_latency_ns: OrbAdded | None = optional()
    known_answer: KnownAnswer | None = optional()
    orb_added_cpu_us: OrbAddedCpu | None = optional()
    interop: Interop | None = optional()
    stopping: Stopping | None = optional()

    @property
    def p50(self) -> float | None:
        """The point's p50: the mean over its trials (or launches), else the p50 over all its calls."""
        if self.p50_ci95_ns is not None and self.p50_ci95_ns.estimate is not None:
            return self.p50_ci95_ns.estimate
        return None if self.latency_ns is None else self.latency_ns.p50

    @property
    def added(self) -> float | None:
        """The ORB-added latency's estimate, None where there is none."""
        return None if self.orb_added_latency_ns is None else self.orb_added_latency_ns.estimate

    @property
    def measured(self) -> bool:
        return self.latency_ns is not None

    def replace(self, **changes: Any) -> PointSummary:
        return dataclasses.replace(self, **changes)


# --- run-level sections --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Moments:
    mean: float
    variance: float
    stdev: float
    p50: float
    count: int


@dataclass(frozen=True)
class Regression:
    beta: float
    pairs: int
    outlier_pairs_dropped: int
    ols_slope: float
    ols_intercept_ns: float
    pearson_r: float | None


@dataclass(frozen=True)
class Equivalence:
    """Krintz and Wolski's tests between two socket baselines of one point group (stats/equivalence.py); only
    `why_missing` when they could not run."""

    group: PointGroup = flat()
    a: str = ""
    b: str = ""
    paired_trials: int | None = optional()
    moments: dict[str, Moments] | None = optional()
    mean_ratio_b_over_a: float | None = optional()
    regression_b_on_a: Regression | None = optional()
    regression_trial_p50_b_on_a: Regression | None = optional()
    capture: dict[str, float] | None = optional()
    equivalent_by_capture: bool | None = optional()
    band: str | None = optional()
    why_missing: str | None = optional()

    def captured(self, of: str, in_band_of: str) -> float | None:
        """The share of `of`'s calls inside `in_band_of`'s band."""
        return None if self.capture is None else self.capture.get(f"{of} in {in_band_of}'s band")


@dataclass(frozen=True)
class MachineLoad:
    foreign_cpu_pct: float | None
    steal_pct: float | None


@dataclass(frozen=True)
class KnownAnswerFit:
    """Across N in one point group: X = slope N + intercept (stats/known_fit.py)."""

    group: PointGroup = flat()
    baseline: str | None = None
    slope: float = 0.0
    slope_ci95: tuple[float, float] = (0.0, 0.0)
    intercept_ns: float = 0.0
    intercept_ci95_ns: tuple[float, float] = (0.0, 0.0)
    values: int = 0
    residual_sd_ns: float = 0.0
    slope_ok: bool = False
    intercept_ok: bool = False
    known_ns: tuple[float, ...] = ()


@dataclass(frozen=True)
class ShapeCost:
    """One ORB point of an invocation shape other than `in` against the same target's `in` call at the same
    payload (summary/shape_costs.py): `ratio` is the shape's p50 over the in call's, paired by (launch, trial),
    a geometric mean with its interval over launches (or over the trials of one launch, `method` says);
    `added_ns` the same as a difference. Only `why_missing` when the in call was not measured. `reference`: the
    shape it is against when that is not `in` (pipelined against chained, results/shapes.py), whose p50 is then
    `in_p50_ns`."""

    point: Point = flat()
    reference: str | None = optional()
    in_p50_ns: float | None = optional()
    shape_p50_ns: float | None = optional()
    ratio: TrialInterval | None = optional()
    added_ns: TrialInterval | None = optional()
    why_missing: str | None = optional()


@dataclass(frozen=True)
class Capacity:
    """A target's capacity at one point (summary/capacity.py), its load shape left out of `point` (clients 1,
    closed loop). `kind` "closed-loop": the most calls/s it served over the campaign's client counts
    (`capacity_closed_loop_calls_per_s`, reached at `at_clients`); "slo": the highest offered load of a sweep
    whose p99 stayed under the SLO (`capacity_at_slo_calls_per_s`, and as a share of the launch's closed-loop
    capacity). Each with its interval over launches, each launch's value, and which side was saturated there:
    a capacity the clients' CPU limited describes the client machine, which `note` says."""

    point: Point = flat()
    kind: str = ""
    clients_as: str = "processes"
    capacity_closed_loop_calls_per_s: TrialInterval | None = optional()
    at_clients: int | None = optional()
    arrivals: str | None = optional()
    slo: str | None = optional()
    slo_bound_ns: float | None = optional()
    capacity_at_slo_calls_per_s: TrialInterval | None = optional()
    capacity_at_slo_share: float | None = optional()
    per_launch: tuple[float, ...] = ()
    censored: str | None = optional()
    launches_below: int = 0   # launches whose lightest step was already over the SLO's bound (in `censored`)
    bottleneck: str | None = optional()
    server_cpu_util: float | None = optional()
    client_cpu_util: float | None = optional()
    note: str | None = optional()

    @property
    def interval(self) -> TrialInterval | None:
        return self.capacity_closed_loop_calls_per_s if self.kind == "closed-loop" else self.capacity_at_slo_calls_per_s


@dataclass(frozen=True)
class QueueingCheck:
    """The queueing known answer of a serial server (summary/queueing.py), over launches. kind "wait": at one
    sweep step, the rise of the mean latency less the step's mean service time over the unloaded one, against
    Pollaczek-Khinchine's mean wait lambda E[S^2] / 2(1 - rho) from the server's own service times; kind
    "capacity": the closed-loop capacity at the sweep's clients against 1 / E[S]."""

    point: Point = flat()
    kind: str = "wait"
    service_ns: float = 0.0                   # E[S], the server's measured mean service time
    launches: int = 0
    within: bool = False
    tolerance: str = ""
    rho: float | None = optional()
    predicted_wait_ns: float | None = optional()
    measured_wait_ns: TrialInterval | None = optional()
    # the mean wait of the send times the clients drew (summary/queueing.py), and the rise checked against it
    sent_path_wait_ns: float | None = optional()
    within_sent_path: bool | None = optional()
    capacity_calls_per_s: float | None = optional()
    one_over_service_calls_per_s: float | None = optional()
    ratio: float | None = optional()


@dataclass(frozen=True)
class KnownAnswerRow:
    """One row of known_answers: a point and its known answer, side by side in one JSON object."""

    point: Point = flat()
    answer: KnownAnswer = flat()


# --- the counting mode (summary/instructions.py) ------------------------------------------------------------------

@dataclass(frozen=True)
class FunctionInstructions:
    """One function's instructions per call in a middleware's worker minus its baseline's (positive: added)."""

    function: str
    self_added: float            # in the function's own code
    inclusive_added: float       # in it and what it called
    self: float                  # the middleware worker's own self instructions per call
    baseline_self: float


@dataclass(frozen=True)
class JvmCounters:
    """A JVM worker's deterministic counters per call (the counting mode's difference of two runs)."""

    allocated_bytes: float                        # every thread's (the server: its whole process's)
    compiled_methods: float                       # methods the JIT compiled, per call
    thread_allocated_bytes: float | None = None   # the calling thread's (the client)


@dataclass(frozen=True)
class InstructionKnownAnswer:
    """The known answer in instructions: a server's loop of N turns of k instructions (c-socket-work@N)."""

    iterations: int
    instructions_per_iteration: int
    known: int                   # N x k
    recovered: float             # the server's instructions per call minus its baseline's
    error_pct: float
    within_tolerance: bool       # within INSTRUCTION_TOLERANCE_PCT


@dataclass(frozen=True)
class InstructionCount:
    """One worker of one target at one point, counted (callgrind's Ir in user space, or a JVM's counters)."""

    point: Point = flat()
    role: str = ""
    counter: str = ""                          # callgrind, jvm
    method: str = ""
    calls: int = 0                             # the differenced calls the figures are over
    per_call: float | None = None              # instructions per call (the repeats' mean)
    repeats: tuple[float, ...] = ()            # each differenced pair's instructions per call
    spread_pct: float | None = None            # the repeats' range, % of their mean (0: exact)
    # Of per_call, the instructions in the allocators and the calls into them per call, and the rest with its
    # repeats' range (% of per_call): the allocator's instructions hang on thread timing, its calls do not.
    allocator_per_call: float | None = None
    allocator_calls_per_call: float | None = None
    allocator_calls_spread: float | None = None  # the repeats' range of allocator calls per call (calls)
    outside_allocator_per_call: float | None = None
    outside_allocator_spread_pct: float | None = None
    baseline: str | None = None
    baseline_per_call: float | None = None
    added_per_call: float | None = None        # the middleware's minus the baseline's, same point and role
    top_added: tuple[FunctionInstructions, ...] = ()
    jvm: JvmCounters | None = None
    known_answer: InstructionKnownAnswer | None = None
    not_counted: str | None = None             # what the figure leaves out (kernel work; a JVM's instructions)
    why_missing: str | None = None


@dataclass(frozen=True)
class HostSpeed:
    """How the host's speed varied over the run, read off the baselines' slices (stats/phases.py)."""

    baseline_points: int            # baseline points with sliced trials
    two_mode_points: int            # of them, those whose slices split into two speed modes
    slow_share: float | None        # the slow mode's share of those points' slices, pooled
    slow_over_fast: float | None    # the median over those points of the slow mode's p50 over the fast one's
    text: str


@dataclass(frozen=True)
class RunSummary:
    """summary.json: a run's points in table order and what the run as a whole says."""

    DERIVED: ClassVar[tuple[str, ...]] = ("known_answers", "warnings")

    schema_version: int
    campaign: str | None
    run_id: str
    status: str | None
    units: str
    points: tuple[PointSummary, ...]
    equivalence: tuple[Equivalence, ...]
    machine: MachineLoad
    # Across N per point group: X = slope N + intercept; slope within 1% of 1 and an intercept interval that
    # covers 0 (known_fit.py).
    known_answer_fits: tuple[KnownAnswerFit, ...]
    # Every warning; `warnings` is one line per kind (the worst case and how many more).
    warnings_detail: tuple[RunWarning, ...]
    summary_version: int = SUMMARY_VERSION
    # Closed-loop capacity over client counts, and capacity at the SLO of each load sweep (capacity.py).
    capacities: tuple[Capacity, ...] = ()
    # The queueing known answer of serial known-answer servers under a sweep (queueing.py).
    queueing_checks: tuple[QueueingCheck, ...] = ()
    # Each invocation shape's cost over the same ORB's `in` call at the same payload (shape_costs.py).
    shape_costs: tuple[ShapeCost, ...] = ()
    # The counting mode's instructions per call by point and worker (summary/instructions.py).
    instructions: tuple[InstructionCount, ...] = ()
    # Trials left out of every figure above: a damaged row or samples file, named by file and row (integrity.py).
    damaged: tuple[Damage, ...] = ()
    # The host's speed modes over the run, from the baselines' slices (None: no sliced trial).
    host_speed: HostSpeed | None = None

    @property
    def known_answers(self) -> tuple[KnownAnswerRow, ...]:
        """Known-answer targets: known N, recovered ORB-added latency X [95% CI] (one row per point)."""
        return tuple(KnownAnswerRow(p.point, p.known_answer) for p in self.points if p.known_answer is not None)

    @property
    def warnings(self) -> list[str]:
        return grouped_lines(self.warnings_detail)

    def measured(self) -> list[PointSummary]:
        """The points with latency figures (at least one ok trial)."""
        return [p for p in self.points if p.latency_ns is not None]

    def to_json(self) -> dict[str, Any]:
        return to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunSummary:
        return from_json(cls, data)
