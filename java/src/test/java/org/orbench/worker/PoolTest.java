package org.orbench.worker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Load at scale (PROTOCOL.md): the threads and objects fields, the object order (the C++ workers draw the same),
 * calls to several objects picked by their number, and the pool of numbered calls shared by threads.
 */
class PoolTest {
  @TempDir Path dir;

  @Test
  void takesTheScaleFields() {
    JsonObject command = Json.parseObject("{\"mode\":\"twoway\",\"threads\":16,\"objects\":1000,"
        + "\"object_order\":\"random\"}");
    LoadSpec load = LoadSpec.take(command);
    assertEquals(16, load.threads());
    assertEquals(1000, load.objects());
    assertSame(ObjectOrder.RANDOM, load.objectOrder());
    assertEquals(Set.of("mode"), command.keySet());
    LoadSpec defaults = LoadSpec.take(Json.parseObject("{}"));
    assertEquals(1, defaults.threads());
    assertEquals(1, defaults.objects());
    assertSame(ObjectOrder.ROUND_ROBIN, defaults.objectOrder());
    for (String bad : new String[] {"{\"threads\":0}", "{\"threads\":257}", "{\"threads\":2.5}",
        "{\"threads\":\"4\"}", "{\"objects\":0}", "{\"objects\":100001}", "{\"object_order\":\"sorted\"}",
        "{\"object_order\":1}"}) {
      assertEquals(ErrorKind.USAGE,
          assertThrows(WorkerException.class, () -> LoadSpec.take(Json.parseObject(bad))).kind(), bad);
    }
  }

  @Test
  void drawsTheObjectOrder() {
    assertArrayEquals(new int[] {0, 1, 2, 0, 1, 2, 0}, ObjectOrder.ROUND_ROBIN.draw(3, 7, 99));
    // SplitMix64 from seed 0 starts 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4: unsigned, mod 50, 35 and 0.
    assertArrayEquals(new int[] {35, 0, 29, 44, 47}, ObjectOrder.RANDOM.draw(50, 5, 0));
    int[] counts = new int[10];
    for (int k : ObjectOrder.RANDOM.draw(10, 100_000, 7)) {
      counts[k]++;
    }
    for (int n : counts) {
      assertTrue(n > 9000 && n < 11000, "each object about as often as the others: " + n);
    }
  }

  /** An object that records the calls it received. */
  private static final class Target {
    final List<String> received = new ArrayList<>();

    void push(byte[] payload) {
      received.add("push");
    }

    void send(byte[] payload) {
      received.add("send");
    }

    byte[] echo(byte[] payload) {
      received.add("echo");
      return payload.clone();
    }
  }

  @Test
  void callsToSeveralObjectsGoByTheirNumber() throws Exception {
    List<Target> targets = List.of(new Target(), new Target(), new Target());
    Calls<Target, byte[]> calls = Calls.<Target, byte[]>of(new byte[] {1, 2}, t -> t::push, t -> t::send,
        t -> t::echo);
    int[] order = {2, 0, 1, 1};
    Invocation[] each = calls.invocations(Mode.TWOWAY, PayloadType.OCTETS, targets, order, 2);
    each[0].startAt(0);
    each[0].call(); // call 0: object 2
    each[0].call(); // call 1: object 0
    each[1].startAt(3);
    each[1].call(); // call 3: object 1
    assertEquals(List.of("send"), targets.get(0).received);
    assertEquals(List.of("send"), targets.get(1).received);
    assertEquals(List.of("send"), targets.get(2).received);
    Invocation echo = calls.invocations(Mode.ECHO, PayloadType.OCTETS, targets, order, 1)[0];
    echo.startAt(2);
    echo.call();
    echo.check();
    assertEquals(List.of("send", "echo"), targets.get(1).received);
  }

  /** A client whose calls only count: which numbered calls were made, and the run sequence as words. */
  private static final class CountingClient implements BenchClient {
    final List<String> log = new ArrayList<>();
    volatile AtomicIntegerArray made = new AtomicIntegerArray(0);
    long messages;
    boolean threads = true; // false: a client without threads, BenchClient's default

    @Override
    public WorkerInfo info() {
      return WorkerInfo.client("counting", null, null);
    }

    @Override
    public Set<Mode> modes() {
      return EnumSet.allOf(Mode.class);
    }

    @Override
    public Set<PayloadType> payloadTypes() {
      return EnumSet.of(PayloadType.OCTETS);
    }

    @Override
    public void connect(String endpoint, JsonObject options) {}

    @Override
    public Invocation prepare(RunSpec spec) {
      log.add("one thread");
      return invocation();
    }

    @Override
    public Invocation[] prepare(RunSpec spec, int threads, int objects, int[] order) throws Exception {
      if (!this.threads) {
        return BenchClient.super.prepare(spec, threads, objects, order);
      }
      log.add("threads " + threads);
      Invocation[] out = new Invocation[threads];
      for (int t = 0; t < threads; t++) {
        out[t] = invocation();
      }
      return out;
    }

    private Invocation invocation() {
      return new Invocation() {
        private long number;

        @Override
        public void startAt(long first) {
          number = first;
        }

        @Override
        public void call() {
          AtomicIntegerArray calls = made;
          if (number < calls.length()) {
            calls.incrementAndGet((int) number);
          }
          number++;
        }
      };
    }

    @Override
    public void resetCounters() {
      log.add("reset");
    }

    @Override
    public SyncOutcome sync(long expected, long timeoutMs) {
      log.add("sync " + expected);
      return new SyncOutcome(messages >= expected, new Counts(messages, 0));
    }

    @Override
    public Counts counters() {
      return new Counts(messages, 0);
    }

    @Override
    public WorkerException translate(Exception failure) {
      return new WorkerException(ErrorKind.INTERNAL, failure.toString(), failure);
    }

    @Override
    public void close() {}
  }

  private RunSpec spec(Mode mode, int calls, int warmup) {
    return new RunSpec(mode, PayloadType.OCTETS, 8, calls, warmup, dir.resolve("pool.i64"), 1000);
  }

  @Test
  void everyNumberedCallIsMadeOnceByTheThreads() throws Exception {
    CountingClient client = new CountingClient();
    client.made = new AtomicIntegerArray(4 * 500);
    client.messages = 4 * 500;
    JsonObject answer = RunSequence.run(client, spec(Mode.TWOWAY, 500, 20),
        new LoadSpec(0, 1, Arrivals.FIXED, null, 4, 1, ObjectOrder.ROUND_ROBIN));
    // One process: reset, the warm-up pool of 4 x 20, its barrier, reset, the pool, the closing barrier.
    assertEquals(List.of("threads 4", "reset", "sync 80", "reset", "sync 2000"), client.log);
    // Every timed call once; warm-up call i has the number of timed call i (it goes to the same object).
    for (int i = 0; i < 2000; i++) {
      assertEquals(i < 80 ? 2 : 1, client.made.get(i), "call " + i);
    }
    assertEquals(2000, answer.get("calls").getAsInt());
    assertEquals(4, answer.get("threads").getAsInt());
    long sum = 0;
    for (JsonElement n : answer.getAsJsonArray("thread_calls")) {
      sum += n.getAsLong();
    }
    assertEquals(4, answer.getAsJsonArray("thread_calls").size());
    assertEquals(2000, sum);
    assertEquals(answer.get("end_ns").getAsLong() - answer.get("start_ns").getAsLong(),
        answer.get("elapsed_ns").getAsLong());
    assertEquals(2000 * 8, Files.size(dir.resolve("pool.i64")));
  }

  @Test
  void aGroupOfProcessesWaitsForTheGroupsSums() throws Exception {
    CountingClient client = new CountingClient();
    client.messages = 3 * 4 * 520;
    JsonObject answer = RunSequence.run(client, spec(Mode.ONEWAY, 500, 20),
        new LoadSpec(0, 3, Arrivals.FIXED, null, 4, 1, ObjectOrder.ROUND_ROBIN));
    assertEquals(List.of("threads 4", "sync 240", "sync 6240"), client.log);
    assertTrue(answer.getAsJsonObject("start_barrier").get("complete").getAsBoolean());
    assertEquals(3, answer.get("clients").getAsInt());
  }

  @Test
  void aPacedPoolKeepsOneScheduleForTheProcess() throws Exception {
    CountingClient client = new CountingClient();
    client.messages = 3 * 40;
    long started = System.nanoTime();
    JsonObject answer = RunSequence.run(client, spec(Mode.TWOWAY, 40, 0),
        new LoadSpec(1000, 1, Arrivals.FIXED, null, 3, 1, ObjectOrder.ROUND_ROBIN));
    assertTrue(System.nanoTime() - started >= 119_000_000L, "120 calls at 1 kHz over the process take 119 ms");
    assertEquals(1000.0, answer.get("rate_hz").getAsDouble());
    assertTrue(answer.get("achieved_rate_hz").getAsDouble() < 1100, answer.toString());
  }

  @Test
  void aFailingThreadEndsTheRunWithItsError() {
    Invocation[] invocations = new Invocation[3];
    for (int t = 0; t < 3; t++) {
      boolean fails = t == 1;
      invocations[t] = new Invocation() {
        @Override
        public void call() throws Exception {
          if (fails) {
            throw new java.io.IOException("lost");
          }
        }
      };
    }
    PoolSequence.CallPool pool = new PoolSequence.CallPool(new long[1_000_000], null, 0);
    assertThrows(java.io.IOException.class, () -> PoolSequence.runPool(invocations, pool));
  }

  @Test
  void aClientWithoutThreadsRefusesThem() {
    CountingClient plain = new CountingClient();
    plain.threads = false;
    assertEquals(ErrorKind.UNSUPPORTED, assertThrows(WorkerException.class, () -> RunSequence.run(plain,
        spec(Mode.TWOWAY, 10, 0), new LoadSpec(0, 1, Arrivals.FIXED, null, 2, 1, ObjectOrder.ROUND_ROBIN))).kind());
  }
}
