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
}
