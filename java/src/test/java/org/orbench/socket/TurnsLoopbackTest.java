package org.orbench.socket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.orbench.testing.ClientDriver;
import org.orbench.testing.ServerProcess;
import org.orbench.worker.Json;

/**
 * {@code run} with {@code turns} (PROTOCOL.md, "Turns"): two socket clients, each with its own server process,
 * hand the turn to each other through two named pipes inside one {@code run} each, as a middleware and its
 * baseline do in a sliced trial.
 */
class TurnsLoopbackTest {
  private static final String SERVER = "org.orbench.socket.SocketServer";

  @TempDir Path dir;

  @Test
  void twoClientsTakeTurnsThroughTwoPipes() throws Exception {
    Path pipeA = mkfifo("a");
    Path pipeB = mkfifo("b");
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try (ServerProcess serverA = start("a"); ServerProcess serverB = start("b")) {
      ClientDriver a = connected(serverA);
      ClientDriver b = connected(serverB);
      assertTrue(a.send("{\"cmd\":\"hello\"}").get("turns").getAsBoolean());
      // A's turns and B's alternate: A0 B0 A1 B1 A2 B2. A gives every turn to B; B gives its first two to A
      // and its last to no one. Neither run can finish unless every byte went where it should.
      Path samplesA = dir.resolve("a.i64");
      Path samplesB = dir.resolve("b.i64");
      String runA = run("twoway", 350, samplesA,
          turns(pipeA, List.of(pipeB.toString(), pipeB.toString(), pipeB.toString()), List.of(100, 200, 50), true,
              20_000));
      String runB = run("echo", 240, samplesB,
          turns(pipeB, List.of(pipeA.toString(), pipeA.toString(), ""), List.of(80, 80, 80), false, 20_000));
      Future<JsonObject> answerA = threads.submit(() -> a.send(runA));
      Future<JsonObject> answerB = threads.submit(() -> b.send(runB));
      // B took the trial's last turn; A, whose last turn handed on, answers once the harness's end byte came.
      JsonObject doneB = answerB.get(60, TimeUnit.SECONDS);
      try (FileChannel ender = FileChannel.open(pipeA, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        ender.write(ByteBuffer.wrap(new byte[] {1}));
        JsonObject doneA = answerA.get(60, TimeUnit.SECONDS);
        checkTurns(doneA, samplesA, 350, 3);
        assertTrue(doneA.getAsJsonObject("turns").get("waited_ns").getAsLong() > 0, doneA.toString());
        assertTrue(doneA.getAsJsonObject("memory").has("gc_count"), doneA.toString());
      }

      checkTurns(doneB, samplesB, 240, 3);
      // Each waited for its turns 1 and 2 while the other made its calls.
      assertTrue(doneB.getAsJsonObject("turns").get("waited_ns").getAsLong() > 0, doneB.toString());
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void aTurnNotGivenFailsTheRunAfterItsTimeoutAndTheClientGoesOn() throws Exception {
    Path pipe = mkfifo("w");
    try (ServerProcess server = start("w")) {
      ClientDriver client = connected(server);
      // The first turn goes at once; the second waits for a byte no one writes.
      long startNs = System.nanoTime();
      JsonObject late = client.send(run("twoway", 100, dir.resolve("late.i64"),
          turns(pipe, List.of("", ""), List.of(50, 50), true, 300)));
      long tookMs = (System.nanoTime() - startNs) / 1_000_000;
      assertFalse(late.get("ok").getAsBoolean(), late.toString());
      assertEquals("transport", late.get("error_kind").getAsString(), late.toString());
      assertEquals("no turn within 300 ms", late.get("error").getAsString());
      assertTrue(tookMs >= 300 && tookMs < 10_000, "failed after " + tookMs + " ms");

      JsonObject plain = client.send(run("twoway", 100, dir.resolve("plain.i64"), null));
      assertTrue(plain.get("ok").getAsBoolean(), plain.toString());
      // The timeout left no byte behind in the pipe: a first turn that must wait still waits.
      JsonObject again = client.send(run("echo", 10, dir.resolve("again.i64"),
          turns(pipe, List.of(""), List.of(10), false, 300)));
      assertEquals("transport", again.get("error_kind").getAsString(), again.toString());
      // Given a byte, the same run goes. Written through a descriptor of our own for reading and writing: a write
      // only open waits for a reader, and a pipe drops its bytes when its last descriptor closes.
      try (FileChannel giver = FileChannel.open(pipe, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        giver.write(ByteBuffer.wrap(new byte[] {1}));
        JsonObject given = client.send(run("echo", 10, dir.resolve("given.i64"),
            turns(pipe, List.of(""), List.of(10), false, 20_000)));
        checkTurns(given, dir.resolve("given.i64"), 10, 1);
        assertEquals(0, given.getAsJsonObject("turns").get("waited_ns").getAsLong(), "the first wait is not counted");
      }
    }
  }

  @Test
  void aOnewayTurnEndsWithItsBarrier() throws Exception {
    Path pipe = mkfifo("o");
    Path samples = dir.resolve("o.i64");
    try (ServerProcess server = start("o")) {
      ClientDriver client = connected(server);
      // Handing the turn to itself, one client takes both turns; each ends once the server has all it sent.
      JsonObject flood = client.send(run("oneway", 100, samples,
          turns(pipe, List.of(pipe.toString(), ""), List.of(60, 40), true, 10_000)));
      checkTurns(flood, samples, 100, 2);
      assertTrue(flood.getAsJsonObject("sync").get("complete").getAsBoolean(), flood.toString());
      assertTrue(flood.getAsJsonObject("warmup_sync").get("complete").getAsBoolean(), flood.toString());
    }
  }

  @Test
  void turnsTakeAClosedLoopTwowayOrEchoWhoseCallsAddUp() throws Exception {
    Path pipe = mkfifo("p");
    Path samples = dir.resolve("s.i64");
    JsonObject ok = turns(pipe, List.of("", ""), List.of(60, 40), true, 300);
    try (ServerProcess server = start("p")) {
      ClientDriver client = connected(server);
      String needs = "turns need a closed-loop run of one client on one thread";
      // Twoway runs with one load field each.
      String[] extras = {",\"threads\":2", ",\"rate_hz\":1000", ",\"clients\":2", ",\"objects\":2"};
      for (String extra : extras) {
        JsonObject answer = client.send(run("twoway", 100, samples, ok).replace(",\"id\"", extra + ",\"id\""));
        assertEquals("unsupported", answer.get("error_kind").getAsString(), extra + ": " + answer);
        assertTrue(answer.get("error").getAsString().startsWith(needs), answer.toString());
      }
      JsonObject soak = client.send("{\"cmd\":\"run\",\"mode\":\"twoway\",\"payload_type\":\"octets\","
          + "\"payload_bytes\":1,\"duration_s\":1,\"turns\":" + Json.line(ok) + "}");
      assertEquals("unsupported", soak.get("error_kind").getAsString(), soak.toString());

      JsonObject sum = client.send(run("twoway", 101, samples, ok));
      assertEquals("usage", sum.get("error_kind").getAsString(), sum.toString());
      assertTrue(sum.get("error").getAsString().contains("\"turns\""), sum.toString());
      JsonObject fewerGives = turns(pipe, List.of(""), List.of(60, 40), true, 300);
      assertEquals("usage", client.send(run("twoway", 100, samples, fewerGives)).get("error_kind").getAsString());
      JsonObject unknown = ok.deepCopy();
      unknown.addProperty("id", 1);
      JsonObject unknownAnswer = client.send(run("twoway", 100, samples, unknown));
      assertEquals("usage", unknownAnswer.get("error_kind").getAsString(), unknownAnswer.toString());
      assertEquals("field \"turns\": unknown field \"id\"", unknownAnswer.get("error").getAsString());
      JsonObject badFirst = ok.deepCopy();
      badFirst.addProperty("first", "yes");
      assertEquals("usage", client.send(run("twoway", 100, samples, badFirst)).get("error_kind").getAsString());
      JsonObject badCount = ok.deepCopy();
      badCount.getAsJsonArray("calls").set(1, new JsonPrimitive(-40));
      JsonObject badCountAnswer = client.send(run("twoway", 20, samples, badCount));
      assertEquals("field \"turns\": field \"calls[1]\" must be a non-negative integer",
          badCountAnswer.get("error").getAsString());

      // A pipe the harness did not make is a usage error, and the client makes no file in its place.
      Path missing = dir.resolve("missing");
      JsonObject absent = client.send(run("twoway", 100, samples, turns(missing, List.of("", ""), List.of(60, 40),
          true, 300)));
      assertEquals("usage", absent.get("error_kind").getAsString(), absent.toString());
      assertFalse(Files.exists(missing));
      Path regular = Files.writeString(dir.resolve("regular"), "x");
      JsonObject notPipe = client.send(run("twoway", 100, samples, turns(pipe, List.of(regular.toString(), ""),
          List.of(60, 40), true, 300)));
      assertEquals("usage", notPipe.get("error_kind").getAsString(), notPipe.toString());
      assertFalse(Files.exists(samples), "no failed run wrote samples");
    }
  }

  private static void checkTurns(JsonObject answer, Path samples, int calls, int turns) throws IOException {
    assertTrue(answer.get("ok").getAsBoolean(), answer.toString());
    assertEquals(calls, answer.get("calls").getAsInt(), answer.toString());
    assertEquals(turns, answer.getAsJsonObject("turns").get("count").getAsInt(), answer.toString());
    // The server counted the later turns' rewarm calls too; received is the timed calls'.
    assertEquals(calls, answer.getAsJsonObject("received").get("messages").getAsLong(), answer.toString());
    assertEquals(calls, answer.getAsJsonObject("received").get("bytes").getAsLong(), answer.toString());
    assertEquals(8L * calls, Files.size(samples));
    long[] values = new long[calls];
    ByteBuffer.wrap(Files.readAllBytes(samples)).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(values);
    assertTrue(Arrays.stream(values).allMatch(v -> v > 0), Arrays.toString(values));
    // The turns' spans hold their calls and none of the waits between them.
    long elapsed = answer.get("elapsed_ns").getAsLong();
    assertTrue(elapsed >= Arrays.stream(values).sum(), answer.toString());
  }

  private Path mkfifo(String name) throws Exception {
    Path path = dir.resolve(name);
    Process mkfifo = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
    assertEquals(0, mkfifo.waitFor());
    return path;
  }

  private ServerProcess start(String name) throws IOException {
    return ServerProcess.start(SERVER, "java-socket", List.of(), dir.resolve("server-" + name + ".err"));
  }

  private static ClientDriver connected(ServerProcess server) {
    ClientDriver driver = new ClientDriver(new SocketBenchClient("java-socket"));
    JsonObject answer = driver.connect(server.endpoint(), "{}");
    assertTrue(answer.get("ok").getAsBoolean(), answer.toString());
    return driver;
  }

  /** The {@code turns} field; every later turn makes 5 untimed calls first. */
  private static JsonObject turns(Path wait, List<String> give, List<Integer> calls, boolean first, long timeoutMs) {
    JsonObject turns = new JsonObject();
    turns.addProperty("wait", wait.toString());
    turns.add("give", Json.strings(give));
    JsonArray counts = new JsonArray();
    calls.forEach(counts::add);
    turns.add("calls", counts);
    turns.addProperty("rewarm", 5);
    turns.addProperty("first", first);
    turns.addProperty("timeout_ms", timeoutMs);
    return turns;
  }

  /** A run of {@code calls} 1-byte calls after 100 warm-up calls, with {@code turns} unless null. */
  private static String run(String mode, int calls, Path samples, JsonObject turns) {
    JsonObject run = Json.parseObject(String.format(
        "{\"cmd\":\"run\",\"mode\":\"%s\",\"payload_type\":\"octets\",\"payload_bytes\":1,\"calls\":%d,"
            + "\"warmup\":100,\"samples_file\":\"%s\",\"sync_timeout_ms\":10000}",
        mode, calls, samples));
    if (turns != null) {
      run.add("turns", turns);
    }
    run.addProperty("id", "t");
    return Json.line(run);
  }
}
