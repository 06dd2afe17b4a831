package org.orbench.worker;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.function.Consumer;

/**
 * A soak run (PROTOCOL.md, "Soak runs"): the run sequence with timed calls for a duration instead of a count,
 * aggregated into one fixed-size {@link LatencyHistogram} per interval; each interval goes to {@code emit}
 * as an event the moment it closes, so memory stays flat over hours and a crash loses at most the open one.
 */
public final class SoakSequence {
  private SoakSequence() {}

  public static JsonObject run(
      BenchClient client, RunSpec spec, LoadSpec load, SoakSpec soak, Consumer<JsonObject> emit)
      throws Exception {
    boolean oneway = spec.mode() == Mode.ONEWAY;
    if (oneway && load.shared()) {
      // The clients' call counts differ in a soak: no client knows what a closing barrier should wait for.
      throw WorkerException.usage("a oneway soak (duration_s) takes one client: \"clients\" must be 1");
    }
    if (load.threads() > 1 || load.objects() > 1) {
      // Soaks run through one thread's loop, on object 0: a pool of threads and objects is for runs of calls.
      throw new WorkerException(
          ErrorKind.UNSUPPORTED, "a soak run (duration_s) takes no \"threads\" or \"objects\" above 1");
    }
    Invocation invocation = client.prepare(spec);
    RunSequence.Prelude prelude = RunSequence.beforeTimedCalls(client, invocation, spec, load);

    long seed = load.effectiveSeed();
    ArrivalSchedule schedule = load.schedule(seed);
    long t0 = System.nanoTime();
    long end = t0 + soak.durationNs();
    Intervals intervals = new Intervals(t0, soak, emit);
    long calls = 0;
    long firstSendNs = 0;
    long sendNs = 0;
    long afterNs = t0;
    if (schedule != null) {
      // Paced: a call belongs to the interval of its intended send time.
      schedule.startAt(t0);
      long period = (long) schedule.periodNs();
      while (true) {
        long intendedNs = schedule.peek();
        if (intendedNs >= end) {
          break;
        }
        intervals.closeUntil(intendedNs);
        schedule.next();
        Pacing.waitToSend(intendedNs, period);
        sendNs = System.nanoTime();
        invocation.call();
        afterNs = System.nanoTime();
        long sample = afterNs - intendedNs;
        intervals.record(sample, sample > period);
        if (calls++ == 0) {
          firstSendNs = sendNs;
        }
        invocation.check();
      }
    } else {
      // Closed loop: a call belongs to the interval it completes in (the last one: the soak's last call).
      while (afterNs < end) {
        long beforeNs = System.nanoTime();
        invocation.call();
        afterNs = System.nanoTime();
        intervals.closeUntil(Math.min(afterNs, end - 1));
        intervals.record(afterNs - beforeNs, false);
        calls++;
        invocation.check();
      }
    }
    intervals.closeUntil(end);

    long endNs = afterNs;
    JsonObject sync = null;
    if (oneway) {
      long syncStartNs = System.nanoTime();
      SyncOutcome outcome = client.sync(calls, spec.syncTimeoutMs());
      endNs = System.nanoTime();
      sync = RunSequence.barrier(outcome, endNs - syncStartNs);
    }
    Counts received = client.counters();

    JsonObject answer = new JsonObject();
    answer.addProperty("calls", calls);
    answer.addProperty("elapsed_ns", endNs - t0);
    answer.add("received", Json.counts(received));
    answer.addProperty("duration_ns", soak.durationNs());
    answer.addProperty("interval_ns", soak.intervalNs());
    answer.addProperty("intervals", intervals.closed);
    intervals.total.addStats(answer);
    if (sync != null) {
      answer.add("sync", sync);
    }
    if (prelude.warmupSync() != null) {
      answer.add("warmup_sync", prelude.warmupSync());
    }
    if (load.shared()) {
      answer.addProperty("clients", load.clients());
      answer.add("start_barrier", prelude.startBarrier());
      answer.addProperty("start_ns", t0);
      answer.addProperty("end_ns", endNs);
    }
    if (schedule != null) {
      answer.addProperty("rate_hz", load.rateHz());
      answer.addProperty("arrivals", load.arrivals().wireName());
      if (load.arrivals() == Arrivals.POISSON) {
        answer.addProperty("seed", seed);
      }
      answer.addProperty("deadline_misses", intervals.totalMisses);
      long sending = sendNs - firstSendNs;
      if (calls > 1 && sending > 0) {
        answer.addProperty("achieved_rate_hz", (calls - 1) * 1e9 / sending);
      } else {
        answer.add("achieved_rate_hz", com.google.gson.JsonNull.INSTANCE);
      }
    }
    return answer;
  }

  /** The intervals of one soak: t_0 + k * interval .. t_0 + (k + 1) * interval, the last one cut at the end. */
  static final class Intervals {
    private final long t0;
    private final long intervalNs;
    private final long endNs;
    private final Consumer<JsonObject> emit;
    private final LatencyHistogram current = new LatencyHistogram();
    final LatencyHistogram total = new LatencyHistogram();
    private final GcPauses gc = new GcPauses();
    private long misses;
    long totalMisses;
    long closed;

    Intervals(long t0, SoakSpec soak, Consumer<JsonObject> emit) {
      this.t0 = t0;
      this.intervalNs = soak.intervalNs();
      this.endNs = t0 + soak.durationNs();
      this.emit = emit;
    }

    long boundary() {
      return Math.min(t0 + (closed + 1) * intervalNs, endNs);
    }

    void record(long sampleNs, boolean miss) {
      current.record(sampleNs);
      if (miss) {
        misses++;
      }
    }

    /** Emits every interval that ended at or before {@code now}, empty ones too (a stall). */
    void closeUntil(long now) {
      while (closed * intervalNs < endNs - t0 && boundary() <= now) {
        close();
      }
    }

    private void close() {
      JsonObject event = new JsonObject();
      event.addProperty("event", "interval");
      event.addProperty("index", closed);
      event.addProperty("start_ns", t0 + closed * intervalNs);
      event.addProperty("end_ns", boundary());
      event.addProperty("calls", current.count());
      event.addProperty("deadline_misses", misses);
      current.addStats(event);
      event.add("buckets", current.sparseBuckets());
      event.addProperty("rss_bytes", ProcessStats.residentBytes());
      event.addProperty("cpu_ns", ProcessStats.cpuNs());
      event.add("gc", gc.sinceLast());
      emit.accept(event);
      total.add(current);
      totalMisses += misses;
      current.clear();
      misses = 0;
      closed++;
    }
  }

  /** An emitter that adds the command's id to each event, as to the answer. */
  static Consumer<JsonObject> withId(Consumer<JsonObject> emit, JsonElement id) {
    return event -> {
      if (id != null) {
        event.add("id", id);
      }
      emit.accept(event);
    };
  }
}
