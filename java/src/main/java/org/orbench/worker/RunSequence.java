package org.orbench.worker;

import com.google.gson.JsonObject;
import java.io.IOException;

/**
 * The {@code run} sequence of PROTOCOL.md: reset; warm-up calls (oneway: then sync); reset; timed calls
 * (oneway: then sync); counters; write the samples file. Returns the answer's fields.
 */
public final class RunSequence {
  private RunSequence() {}

  public static JsonObject run(BenchClient client, RunSpec spec) throws Exception {
    boolean oneway = spec.mode() == Mode.ONEWAY;
    Invocation invocation = client.prepare(spec);
    // Allocated (and zeroed, so touched) before timing: no page fault lands inside a sample.
    long[] samples = new long[spec.calls()];

    client.resetCounters();
    if (spec.warmup() > 0) {
      // The warm-up goes through the same loop as the timed calls, so the JIT has compiled the loop
      // itself, not only the call, by the time samples count. Its samples are dropped.
      timedLoop(invocation, new long[spec.warmup()]);
      if (oneway) {
        // Warm-up oneways may still be queued at the server; without this barrier they would be counted
        // after the next reset. A failed barrier here is reported on stderr: the timed counts stay honest
        // only if stragglers do not arrive later, which the harness sees as received > calls.
        SyncOutcome warmupSync = client.sync(spec.warmup(), spec.syncTimeoutMs());
        if (!warmupSync.complete()) {
          System.err.printf(
              "orbench: warm-up sync incomplete: %d of %d messages%n",
              warmupSync.received().messages(), spec.warmup());
        }
      }
    }
    client.resetCounters();

    TimedSpan span = timedLoop(invocation, samples);
    long endNs = span.lastAfterNs();
    JsonObject sync = null;
    if (oneway) {
      long syncStartNs = System.nanoTime();
      SyncOutcome outcome = client.sync(spec.calls(), spec.syncTimeoutMs());
      endNs = System.nanoTime();
      sync = new JsonObject();
      sync.addProperty("complete", outcome.complete());
      sync.addProperty("wait_ns", endNs - syncStartNs);
    }
    Counts received = client.counters();

    writeSamples(spec, samples);

    JsonObject answer = new JsonObject();
    answer.addProperty("calls", spec.calls());
    answer.addProperty("elapsed_ns", endNs - span.firstBeforeNs());
    answer.add("received", Json.counts(received));
    if (sync != null) {
      answer.add("sync", sync);
    }
    return answer;
  }

  /** First clock read of the first call and last clock read of the last call. */
  record TimedSpan(long firstBeforeNs, long lastAfterNs) {}

  /**
   * One sample per call: the clock read just before {@link Invocation#call()} and just after it returns.
   * The reply check runs outside that window. The call is virtual (a few ns, the same for every Java
   * target, so it cancels in ORB-added latency).
   */
  static TimedSpan timedLoop(Invocation invocation, long[] samples) throws Exception {
    long firstBeforeNs = 0;
    long afterNs = 0;
    for (int i = 0; i < samples.length; i++) {
      long beforeNs = System.nanoTime();
      invocation.call();
      afterNs = System.nanoTime();
      samples[i] = afterNs - beforeNs;
      if (i == 0) {
        firstBeforeNs = beforeNs;
      }
      invocation.check();
    }
    return new TimedSpan(firstBeforeNs, afterNs);
  }

  private static void writeSamples(RunSpec spec, long[] samples) {
    try {
      SamplesFile.write(spec.samplesFile(), samples);
    } catch (IOException e) {
      throw new WorkerException(
          ErrorKind.INTERNAL, "cannot write samples file " + spec.samplesFile() + ": " + e, e);
    }
  }
}
