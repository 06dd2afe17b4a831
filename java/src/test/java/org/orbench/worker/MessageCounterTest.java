package org.orbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MessageCounterTest {
  @Test
  void syncWaitsForMessagesCountedOnOtherThreads() throws Exception {
    MessageCounter counter = new MessageCounter();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      Future<SyncOutcome> sync = pool.submit(() -> counter.await(40_000, 10_000));
      for (int t = 0; t < 4; t++) {
        pool.submit(() -> {
          for (int i = 0; i < 10_000; i++) {
            counter.count(3);
          }
        });
      }
      SyncOutcome outcome = sync.get(10, TimeUnit.SECONDS);
      assertTrue(outcome.complete());
      assertEquals(40_000, outcome.received().messages());
      assertEquals(120_000, outcome.received().bytes());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void syncReturnsIncompleteAfterItsTimeout() throws Exception {
    MessageCounter counter = new MessageCounter();
    counter.count(5);
    long start = System.nanoTime();
    SyncOutcome outcome = counter.await(2, 50);
    long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertFalse(outcome.complete());
    assertEquals(new Counts(1, 5), outcome.received());
    assertTrue(waitedMs >= 45, "waited " + waitedMs + " ms");
    counter.reset();
    assertEquals(new Counts(0, 0), counter.snapshot());
  }
}
