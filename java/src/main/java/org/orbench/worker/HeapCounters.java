package org.orbench.worker;

import com.google.gson.JsonObject;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * The JVM's own accounting of heap allocation and garbage collection, for the {@code memory} object of a run
 * answer and of a server's stats line (PROTOCOL.md). Allocated bytes come from HotSpot's per-thread TLAB
 * accounting ({@code com.sun.management.ThreadMXBean}), which is always on and costs nothing per allocation;
 * reading it costs a few microseconds, so it is read only around the timed calls, never inside them.
 */
public final class HeapCounters {
  private static final com.sun.management.ThreadMXBean THREADS = threads();
  // Collectors whose time is pause time: every bean but the concurrent-cycle ones ("ZGC Cycles",
  // "Shenandoah Cycles"), whose time is mostly spent beside the application, not stopping it.
  private static final List<GarbageCollectorMXBean> PAUSING = ManagementFactory.getGarbageCollectorMXBeans()
      .stream().filter(bean -> !bean.getName().endsWith("Cycles")).toList();
  // The JIT's accumulated compile time: the harness warms a JVM point until a chunk of calls finishes no
  // compilation (a compile still running at a point's first trial slowed it 1.1-1.7x).
  private static final CompilationMXBean JIT = jit();

  private HeapCounters() {}

  /**
   * Counters at one moment, since the JVM started: bytes allocated by the calling thread and by every thread
   * (ended ones included; -1 when the JVM cannot say), collections and their accumulated time in ms, the
   * JIT's accumulated compile time in ms (-1 when the JVM cannot say).
   */
  public record Snapshot(long threadAllocatedBytes, long allocatedBytes, long gcCount, long gcTimeMs,
                         long jitTimeMs) {
    /** Nothing counted yet: the start of a sum of spans ({@link #plusSpan}). */
    public static final Snapshot ZERO = new Snapshot(0, 0, 0, 0, 0);

    /**
     * These counts plus what happened from {@code before} to {@code after}: {@code between(ZERO, sum)} is then
     * the sum of several spans (a run's turns). A counter the JVM cannot read stays -1, so it is left out.
     */
    public Snapshot plusSpan(Snapshot before, Snapshot after) {
      return new Snapshot(
          grown(threadAllocatedBytes, before.threadAllocatedBytes, after.threadAllocatedBytes),
          grown(allocatedBytes, before.allocatedBytes, after.allocatedBytes),
          grown(gcCount, before.gcCount, after.gcCount),
          grown(gcTimeMs, before.gcTimeMs, after.gcTimeMs),
          grown(jitTimeMs, before.jitTimeMs, after.jitTimeMs));
    }

    private static long grown(long sum, long before, long after) {
      return sum < 0 || before < 0 || after < 0 ? -1 : sum + after - before;
    }
  }

  public static Snapshot now() {
    long count = 0;
    long timeMs = 0;
    for (GarbageCollectorMXBean bean : PAUSING) {
      count += Math.max(0, bean.getCollectionCount());
      timeMs += Math.max(0, bean.getCollectionTime());
    }
    long thread = THREADS == null ? -1 : THREADS.getCurrentThreadAllocatedBytes();
    long total = THREADS == null ? -1 : THREADS.getTotalThreadAllocatedBytes();
    long jit = JIT == null ? -1 : JIT.getTotalCompilationTime();
    return new Snapshot(thread, total, count, timeMs, jit);
  }

  /** The run answer's {@code memory}: what happened between two snapshots taken on the measuring thread. */
  public static JsonObject between(Snapshot before, Snapshot after) {
    JsonObject json = new JsonObject();
    if (before.threadAllocatedBytes() >= 0 && after.threadAllocatedBytes() >= 0) {
      json.addProperty("thread_allocated_bytes", after.threadAllocatedBytes() - before.threadAllocatedBytes());
    }
    if (before.allocatedBytes() >= 0 && after.allocatedBytes() >= 0) {
      json.addProperty("allocated_bytes", after.allocatedBytes() - before.allocatedBytes());
    }
    json.addProperty("gc_count", after.gcCount() - before.gcCount());
    json.addProperty("gc_time_ms", after.gcTimeMs() - before.gcTimeMs());
    if (before.jitTimeMs() >= 0 && after.jitTimeMs() >= 0) {
      json.addProperty("jit_ms", after.jitTimeMs() - before.jitTimeMs());
    }
    return json;
  }

  /** A server's stats line {@code memory}: the process's counters since the JVM started. */
  public static JsonObject cumulative(Snapshot now) {
    JsonObject json = new JsonObject();
    if (now.allocatedBytes() >= 0) {
      json.addProperty("allocated_bytes", now.allocatedBytes());
    }
    json.addProperty("gc_count", now.gcCount());
    json.addProperty("gc_time_ms", now.gcTimeMs());
    if (now.jitTimeMs() >= 0) {
      json.addProperty("jit_ms", now.jitTimeMs());
    }
    return json;
  }

  private static CompilationMXBean jit() {
    CompilationMXBean bean = ManagementFactory.getCompilationMXBean();
    return bean != null && bean.isCompilationTimeMonitoringSupported() ? bean : null;
  }

  private static com.sun.management.ThreadMXBean threads() {
    if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean bean)
        || !bean.isThreadAllocatedMemorySupported()) {
      return null;
    }
    bean.setThreadAllocatedMemoryEnabled(true);
    return bean;
  }
}
