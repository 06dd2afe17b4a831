package org.orbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Soak runs: field validation, intervals (contiguous, every call in exactly one, empty ones after a stall,
 * sent before the answer with the command's id), paced and Poisson arrivals; the same cases as the C++
 * workers' test_soak.
 */
class SoakTest {
  /** Calls that spin {@code callNs}; call number {@code stallAt} sleeps {@code stallMs} first. */
  private static final class SpinClient implements BenchClient {
    long callNs = 20_000;
    long stallAt = Long.MAX_VALUE;
    long stallMs;
    long made;
    long messages;

    @Override
    public WorkerInfo info() {
      return WorkerInfo.client("spin", null, null);
    }

    @Override
    public Set<Mode> modes() {
      return EnumSet.of(Mode.TWOWAY, Mode.ONEWAY);
    }

    @Override
    public Set<PayloadType> payloadTypes() {
      return EnumSet.of(PayloadType.OCTETS);
    }

    @Override
    public void connect(String endpoint, JsonObject options) {}

    @Override
    public Invocation prepare(RunSpec spec) {
      return new Invocation() {
        @Override
        public void call() throws Exception {
          if (made++ == stallAt) {
            Thread.sleep(stallMs);
          }
          long until = System.nanoTime() + callNs;
          while (System.nanoTime() < until) {
            Thread.onSpinWait();
          }
          messages++;
        }
      };
    }

    @Override
    public void resetCounters() {
      messages = 0;
    }

    @Override
    public SyncOutcome sync(long expected, long timeoutMs) {
      return new SyncOutcome(messages >= expected, counters());
    }

    @Override
    public Counts counters() {
      return new Counts(messages, 0);
    }

    @Override
    public WorkerException translate(Exception failure) {
      return new WorkerException(ErrorKind.INTERNAL, failure.toString());
    }

    @Override
    public void close() {}
  }

  private static final RunSpec TWOWAY = new RunSpec(Mode.TWOWAY, PayloadType.OCTETS, 8, 0, 10, null, 1000);

  private static SoakSpec soak(double seconds, double intervalSeconds) {
    return new SoakSpec((long) (seconds * 1e9), (long) (intervalSeconds * 1e9));
  }

  private static void checkIntervals(List<JsonObject> events, JsonObject answer, int expected) {
    assertEquals(expected, events.size());
    assertEquals(expected, answer.get("intervals").getAsInt());
    long calls = 0;
    for (int k = 0; k < events.size(); k++) {
      JsonObject e = events.get(k);
      assertEquals("interval", e.get("event").getAsString());
      assertEquals(k, e.get("index").getAsInt());
      if (k > 0) {
        assertEquals(events.get(k - 1).get("end_ns").getAsLong(), e.get("start_ns").getAsLong());
      }
      long inBuckets = 0;
      for (JsonElement bucket : e.getAsJsonArray("buckets")) {
        inBuckets += ((JsonArray) bucket).get(1).getAsLong();
      }
      assertEquals(e.get("calls").getAsLong(), inBuckets);
      assertTrue(e.get("rss_bytes").getAsLong() > 0 && e.get("cpu_ns").getAsLong() > 0);
      assertTrue(e.getAsJsonObject("gc").get("collections").getAsLong() >= 0);
      calls += e.get("calls").getAsLong();
    }
    assertEquals(answer.get("calls").getAsLong(), calls);
    assertEquals(
        answer.get("duration_ns").getAsLong(),
        events.get(events.size() - 1).get("end_ns").getAsLong() - events.get(0).get("start_ns").getAsLong());
  }

  @Test
  void soakFields() {
    JsonObject command = Json.parseObject("{\"cmd\":\"run\",\"duration_s\":90,\"interval_s\":10}");
    assertEquals(new SoakSpec(90_000_000_000L, 10_000_000_000L), SoakSpec.take(command));
    assertTrue(!command.has("duration_s") && !command.has("interval_s"));
    assertNull(SoakSpec.take(Json.parseObject("{\"calls\":5}")));
    assertEquals(500_000_000L, SoakSpec.take(Json.parseObject("{\"duration_s\":0.5}")).intervalNs());
    for (String bad :
        new String[] {
          "{\"duration_s\":0}", "{\"duration_s\":\"1h\"}", "{\"duration_s\":-3}", "{\"interval_s\":1}",
          "{\"duration_s\":10,\"interval_s\":20}", "{\"duration_s\":10,\"interval_s\":0}", "{\"duration_s\":1e12}"
        }) {
      assertEquals(
          ErrorKind.USAGE,
          assertThrows(WorkerException.class, () -> SoakSpec.take(Json.parseObject(bad))).kind(),
          bad);
    }
    String run = "{\"cmd\":\"run\",\"mode\":\"twoway\",\"payload_type\":\"octets\",\"payload_bytes\":8";
    Set<Mode> modes = EnumSet.of(Mode.TWOWAY);
    Set<PayloadType> types = EnumSet.of(PayloadType.OCTETS);
    assertEquals(0, RunSpec.parse(Json.parseObject(run + "}"), modes, types, true).calls());
    assertThrows(WorkerException.class, () -> RunSpec.parse(Json.parseObject(run + "}"), modes, types));
    assertThrows(
        WorkerException.class,
        () -> RunSpec.parse(Json.parseObject(run + ",\"calls\":3}"), modes, types, true));
    assertThrows(WorkerException.class, () -> LoadSpec.take(Json.parseObject("{\"arrivals\":\"poisson\"}")));
    assertThrows(
        WorkerException.class, () -> LoadSpec.take(Json.parseObject("{\"rate_hz\":10,\"arrivals\":\"bursty\"}")));
    LoadSpec poisson = LoadSpec.take(Json.parseObject("{\"rate_hz\":10,\"arrivals\":\"poisson\",\"seed\":7}"));
    assertEquals(new LoadSpec(10, 1, Arrivals.POISSON, 7L), poisson);
  }

  @Test
  void closedLoopSoak() throws Exception {
    List<JsonObject> events = new ArrayList<>();
    JsonObject answer = SoakSequence.run(new SpinClient(), TWOWAY, LoadSpec.CLOSED_LOOP, soak(0.35, 0.1), events::add);
    checkIntervals(events, answer, 4);
    for (int k = 0; k < 3; k++) {
      long calls = events.get(k).get("calls").getAsLong();
      assertTrue(calls > 50 && calls < 5500, "interval " + k + ": " + calls);
      assertTrue(events.get(k).get("p50_ns").getAsLong() >= 20_000);
    }
    assertEquals(answer.get("calls").getAsLong(), answer.getAsJsonObject("received").get("messages").getAsLong());
    assertTrue(!answer.has("rate_hz"));
  }

  @Test
  void stallLeavesEmptyIntervals() throws Exception {
    SpinClient client = new SpinClient();
    client.stallAt = 100;
    client.stallMs = 250;
    List<JsonObject> events = new ArrayList<>();
    JsonObject answer = SoakSequence.run(client, TWOWAY, LoadSpec.CLOSED_LOOP, soak(0.5, 0.1), events::add);
    checkIntervals(events, answer, 5);
    assertTrue(events.stream().anyMatch(e -> e.get("calls").getAsLong() == 0));
    assertTrue(answer.get("max_ns").getAsLong() >= 250_000_000L);
  }

  @Test
  void pacedSoakCountsMissesInTheirInterval() throws Exception {
    // 200 Hz, 100 ms intervals: 20 calls in each (by intended send time); call 30 stalls 30 ms.
    SpinClient client = new SpinClient();
    client.callNs = 50_000;
    client.stallAt = 30 + 10; // after the 10 warm-up calls
    client.stallMs = 30;
    List<JsonObject> events = new ArrayList<>();
    JsonObject answer = SoakSequence.run(client, TWOWAY, new LoadSpec(200, 1), soak(0.3, 0.1), events::add);
    checkIntervals(events, answer, 3);
    long misses = 0;
    for (JsonObject e : events) {
      assertEquals(20, e.get("calls").getAsLong());
      misses += e.get("deadline_misses").getAsLong();
    }
    assertTrue(events.get(1).get("deadline_misses").getAsLong() >= 5, events.get(1).toString());
    assertTrue(events.get(1).get("max_ns").getAsLong() >= 30_000_000L);
    assertEquals(misses, answer.get("deadline_misses").getAsLong());
    assertEquals("fixed", answer.get("arrivals").getAsString());
  }

  @Test
  void poissonArrivals() throws Exception {
    ArrivalSchedule a = new ArrivalSchedule(1000, Arrivals.POISSON, 7);
    ArrivalSchedule b = new ArrivalSchedule(1000, Arrivals.POISSON, 7);
    a.startAt(0);
    b.startAt(0);
    long last = 0;
    for (int i = 0; i < 20000; i++) {
      last = a.next();
      assertEquals(last, b.next());
    }
    assertTrue(last > 19_300_000_000L && last < 20_700_000_000L, "20000 gaps of mean 1 ms: " + last);
    ArrivalSchedule fixed = ArrivalSchedule.fixed(1000);
    fixed.startAt(5);
    assertEquals(5, fixed.next());
    assertEquals(1_000_005, fixed.next());

    SpinClient client = new SpinClient();
    client.callNs = 10_000;
    List<JsonObject> events = new ArrayList<>();
    LoadSpec load = new LoadSpec(1000, 1, Arrivals.POISSON, 42L);
    JsonObject answer = SoakSequence.run(client, TWOWAY, load, soak(0.5, 0.25), events::add);
    checkIntervals(events, answer, 2);
    assertEquals(42, answer.get("seed").getAsLong());
    long calls = answer.get("calls").getAsLong();
    assertTrue(calls > 380 && calls < 620, "calls " + calls);
  }

  @Test
  void eventsGoOutBeforeTheAnswerWithTheCommandsId() {
    SpinClient client = new SpinClient();
    CommandLoop loop = new CommandLoop(client);
    List<JsonObject> lines = new ArrayList<>();
    loop.setEvents(lines::add);
    loop.handle("{\"cmd\":\"connect\",\"endpoint\":\"x\"}");
    JsonObject answer =
        loop.handle(
            "{\"cmd\":\"run\",\"mode\":\"oneway\",\"payload_type\":\"octets\",\"payload_bytes\":8,\"warmup\":5,"
                + "\"duration_s\":0.2,\"interval_s\":0.1,\"id\":\"soak-1\"}");
    assertTrue(answer.get("ok").getAsBoolean(), answer.toString());
    assertEquals("soak-1", answer.get("id").getAsString());
    assertEquals(2, lines.size());
    assertEquals("soak-1", lines.get(0).get("id").getAsString());
    assertTrue(answer.getAsJsonObject("sync").get("complete").getAsBoolean());
    JsonObject refused =
        loop.handle(
            "{\"cmd\":\"run\",\"mode\":\"oneway\",\"payload_type\":\"octets\",\"payload_bytes\":8,"
                + "\"duration_s\":1,\"clients\":2}");
    assertEquals("usage", refused.get("error_kind").getAsString());
  }
}
