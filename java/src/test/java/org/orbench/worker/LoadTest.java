package org.orbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import org.junit.jupiter.api.Test;

/** The load fields of {@code run}: validation, and the fixed-rate loop timed from intended send times. */
class LoadTest {
  @Test
  void takesTheLoadFieldsOutOfTheCommand() {
    JsonObject command = Json.parseObject("{\"cmd\":\"run\",\"mode\":\"twoway\",\"rate_hz\":1000,\"clients\":4}");
    LoadSpec load = LoadSpec.take(command);
    assertEquals(new LoadSpec(1000, 4), load);
    assertTrue(load.shared());
    assertFalse(command.has("rate_hz") || command.has("clients"));
    assertEquals(LoadSpec.CLOSED_LOOP, LoadSpec.take(Json.parseObject("{\"cmd\":\"run\"}")));
    for (String bad :
        new String[] {
          "{\"rate_hz\":-1}", "{\"rate_hz\":\"10\"}", "{\"rate_hz\":2000000}", "{\"clients\":0}",
          "{\"clients\":1.5}", "{\"clients\":\"2\"}"
        }) {
      assertEquals(
          ErrorKind.USAGE,
          assertThrows(WorkerException.class, () -> LoadSpec.take(Json.parseObject(bad))).kind(),
          bad);
    }
  }

  @Test
  void pacedLoopTimesFromTheIntendedSendTime() throws Exception {
    // 1 kHz, 60 calls; call 10 stalls 30 ms. Calls due during the stall go out late, at once, and their
    // samples count from their intended send times, so the stall shows in each of them.
    int[] index = {0};
    Invocation stallAtTen =
        new Invocation() {
          @Override
          public void call() throws Exception {
            if (index[0]++ == 10) {
              Thread.sleep(30);
            }
          }
        };
    long[] samples = new long[60];
    long started = System.nanoTime();
    RunSequence.TimedSpan span = RunSequence.pacedLoop(stallAtTen, samples, 1e6);
    assertTrue(System.nanoTime() - started >= 59_000_000L, "60 calls at 1 kHz take at least 59 ms");
    assertTrue(samples[10] >= 30_000_000L);
    assertTrue(samples[11] >= 28_000_000L, "due 1 ms after call 10, sent 30 ms after it");
    long above = java.util.Arrays.stream(samples).filter(s -> s > 1_000_000L).count();
    assertTrue(above >= 20, "the stall shows in every call due during it: " + above);
    assertEquals(above, span.deadlineMisses(), "a miss is a sample above one period");
    assertTrue(span.lastSendNs() > span.firstSendNs());
  }
}
