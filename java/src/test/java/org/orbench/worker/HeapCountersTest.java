package org.orbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

  @Test
  void sumsSpansAndLeavesOutWhatTheJvmCannotCount() {
    // A run with turns: what happened inside each turn, not between them; a -1 counter stays out of the answer.
    HeapCounters.Snapshot sum = HeapCounters.Snapshot.ZERO
        .plusSpan(new HeapCounters.Snapshot(100, 1000, 1, 5, -1), new HeapCounters.Snapshot(150, 1500, 1, 5, -1))
        .plusSpan(new HeapCounters.Snapshot(900, 9000, 3, 9, -1), new HeapCounters.Snapshot(920, 9100, 4, 12, -1));
    JsonObject memory = HeapCounters.between(HeapCounters.Snapshot.ZERO, sum);
    assertEquals(70, memory.get("thread_allocated_bytes").getAsLong());
    assertEquals(600, memory.get("allocated_bytes").getAsLong());
    assertEquals(1, memory.get("gc_count").getAsLong());
    assertEquals(3, memory.get("gc_time_ms").getAsLong());
    assertFalse(memory.has("jit_ms"), memory.toString());
  }

  private static long hot(int i) {
    return (i * 31L) ^ (i >>> 3);
  }
}
