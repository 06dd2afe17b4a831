package org.orbench.worker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import org.junit.jupiter.api.Test;

/** The JVM's allocation and GC counters (the run answer's and the stats line's {@code memory}). */
class HeapCountersTest {
  // Kept reachable so the JIT cannot drop the allocations.
  static volatile Object sink;

  @Test
  void countsWhatThisThreadAllocates() {
    HeapCounters.Snapshot before = HeapCounters.now();
    for (int i = 0; i < 1000; i++) {
      sink = new byte[1000];
    }
    JsonObject between = HeapCounters.between(before, HeapCounters.now());
    long thread = between.get("thread_allocated_bytes").getAsLong();
    // 1000 arrays of 1000 bytes plus their headers; the snapshot itself allocates a little.
    assertTrue(thread >= 1_000_000 && thread < 1_100_000, between.toString());
    // Every thread's total is an approximation (the JVM's own word): it holds this thread's, to within 1%.
    assertTrue(between.get("allocated_bytes").getAsLong() >= thread * 0.99, between.toString());
  }

  @Test
  void countsCollections() {
    HeapCounters.Snapshot before = HeapCounters.now();
    System.gc();
    JsonObject between = HeapCounters.between(before, HeapCounters.now());
    assertTrue(between.get("gc_count").getAsLong() >= 1, between.toString());
  }

  @Test
  void readsTheJitsCompileTime() {
    // HotSpot keeps compile times: a fresh method made hot enough for a compilation moves them, never back.
    HeapCounters.Snapshot before = HeapCounters.now();
    long sum = 0;
    for (int i = 0; i < 200_000; i++) {
      sum += hot(i);
    }
    sink = sum;
    HeapCounters.Snapshot after = HeapCounters.now();
    JsonObject between = HeapCounters.between(before, after);
    assertTrue(before.jitTimeMs() >= 0 && after.jitTimeMs() >= before.jitTimeMs(), between.toString());
    assertTrue(between.has("jit_ms"), between.toString());
    assertTrue(HeapCounters.cumulative(after).get("jit_ms").getAsLong() >= 0);
  }

  private static long hot(int i) {
    return (i * 31L) ^ (i >>> 3);
  }
}
