package org.orbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.util.concurrent.atomic.AtomicReference;
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

  /** An invocation that records when each call was made. */
  private static final class Recording extends Invocation {
    final long[] sentAt;
    int calls;

    Recording(int capacity) {
      sentAt = new long[capacity];
    }

    @Override
    public void call() {
      sentAt[calls++] = System.nanoTime();
    }
  }

  @Test
  void warmUpAtAFixedRateRunsThePacedLoop() throws Exception {
    // 1 kHz: up to 1000 warm-up calls (1 s) are paced, so all 500 here are, two per invocation: the second
    // call of each pair waits one period after the first.
    Recording warm = new Recording(500);
    RunSequence.warmUp(warm, 500, new LoadSpec(1000, 1));
    assertEquals(500, warm.calls, "every warm-up call is made");
    long waited = 0;
    for (int i = 1; i < 500; i += 2) {
      if (warm.sentAt[i] - warm.sentAt[i - 1] >= 900_000L) {
        waited++;
      }
    }
    // A pair whose first call was held up past the period (a loaded machine) sends its second at once, so not
    // every pair shows the wait; the whole span does: pair k starts after pair k - 1 waited its period.
    assertTrue(waited >= 200, "the second call of (almost) each paced pair waits one period: " + waited);
    assertTrue(warm.sentAt[499] - warm.sentAt[0] >= 249 * 1_000_000L, "250 pairs, one period each");

    Recording closed = new Recording(500);
    RunSequence.warmUp(closed, 500, LoadSpec.CLOSED_LOOP);
    assertEquals(500, closed.calls);
    assertTrue(closed.sentAt[499] - closed.sentAt[0] < 200_000_000L, "a closed-loop warm-up never waits");
  }

  @Test
  void aLongWarmUpAtAFixedRatePacesOnlyItsLastSecond() throws Exception {
    // 10 kHz: at most 10000 paced calls; of 12000 the first 2000 run closed loop, the rest in 5000 pairs,
    // each waiting one 100 us period.
    Recording warm = new Recording(12000);
    RunSequence.warmUp(warm, 12000, new LoadSpec(10_000, 1));
    assertEquals(12000, warm.calls);
    long closedSpan = warm.sentAt[1999] - warm.sentAt[0];
    long pacedSpan = warm.sentAt[11999] - warm.sentAt[2000];
    assertTrue(pacedSpan >= 490_000_000L, "5000 paced pairs at 10 kHz take at least 0.5 s: " + pacedSpan);
    assertTrue(closedSpan < pacedSpan / 2, "the first 2000 calls are not paced: " + closedSpan);
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
    RunSequence.TimedSpan span = RunSequence.pacedLoop(stallAtTen, samples, ArrivalSchedule.fixed(1000));
    assertTrue(System.nanoTime() - started >= 59_000_000L, "60 calls at 1 kHz take at least 59 ms");
    assertTrue(samples[10] >= 30_000_000L);
    assertTrue(samples[11] >= 28_000_000L, "due 1 ms after call 10, sent 30 ms after it");
    long above = java.util.Arrays.stream(samples).filter(s -> s > 1_000_000L).count();
    assertTrue(above >= 20, "the stall shows in every call due during it: " + above);
    assertEquals(above, span.deadlineMisses(), "a miss is a sample above one period");
    assertTrue(span.lastSendNs() > span.firstSendNs());
  }

  /**
   * The spin before a paced call: all of SPIN_NS at a low rate, no more than SPIN_CPU_SHARE of the CPUs at a high
   * one (Pacing says why).
   */
  @Test
  void aPacedSpinKeepsToItsShareOfTheCpus() {
    assertEquals(Pacing.SPIN_NS, Pacing.spinNs(10_000_000));
    long period = 20_000;
    long spin = Pacing.spinNs(period);
    assertTrue(spin > 0);
    assertTrue(spin <= Pacing.SPIN_CPU_SHARE * Runtime.getRuntime().availableProcessors() * period);
    assertEquals(0, Pacing.spinNs(0));
  }

  /** A paced wait sets its thread's timer slack to 1 ns (Pacing says why); another thread keeps its own. */
  @Test
  void aPacedWaitSetsAPreciseTimerSlack() throws Exception {
    AtomicReference<String> before = new AtomicReference<>();
    AtomicReference<String> after = new AtomicReference<>();
    AtomicReference<String> other = new AtomicReference<>();
    Thread paced =
        new Thread(
            () -> {
              try {
                Files.writeString(Pacing.threadSlack(), "50000");
                before.set(Files.readString(Pacing.threadSlack()).trim());
                Pacing.waitUntil(System.nanoTime() + 100_000);
                after.set(Files.readString(Pacing.threadSlack()).trim());
              } catch (java.io.IOException e) {
                throw new AssertionError(e);
              }
            });
    paced.start();
    paced.join();
    Thread idle =
        new Thread(
            () -> {
              try {
                Files.writeString(Pacing.threadSlack(), "50000");
                other.set(Files.readString(Pacing.threadSlack()).trim());
              } catch (java.io.IOException e) {
                throw new AssertionError(e);
              }
            });
    idle.start();
    idle.join();
    assertEquals("50000", before.get());
    assertEquals("1", after.get());
    assertEquals("50000", other.get());
  }
}
