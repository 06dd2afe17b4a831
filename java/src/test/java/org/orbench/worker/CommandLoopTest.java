package org.orbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command loop against an in-memory transport: parsing, answers, ids, errors as data. */
class CommandLoopTest {
  @TempDir Path dir;

  /** Counts calls like a server would; fails the next call with an IOException when asked to. */
  private static final class FakeClient implements BenchClient {
    long messages;
    long bytes;
    boolean failNext;

    @Override
    public WorkerInfo info() {
      return WorkerInfo.client("fake", null, null);
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
    public void connect(String endpoint, JsonObject options) {
      if (!options.keySet().isEmpty()) {
        throw WorkerException.usage("unknown option");
      }
    }

    @Override
    public Invocation prepare(RunSpec spec) {
      return new Invocation() {
        @Override
        public void call() throws IOException {
          if (failNext) {
            throw new IOException("connection reset");
          }
          messages++;
          bytes += spec.payloadBytes();
        }
      };
    }

    @Override
    public void resetCounters() {
      messages = 0;
      bytes = 0;
    }

    @Override
    public SyncOutcome sync(long expected, long timeoutMs) {
      return new SyncOutcome(messages >= expected, counters());
    }

    @Override
    public Counts counters() {
      return new Counts(messages, bytes);
    }

    @Override
    public WorkerException translate(Exception failure) {
      return new WorkerException(ErrorKind.TRANSPORT, failure.getMessage());
    }

    @Override
    public void close() {}
  }

  private final FakeClient client = new FakeClient();
  private final CommandLoop loop = new CommandLoop(client);

  private String run(String mode, Path samples) {
    return "{\"cmd\":\"run\",\"mode\":\"" + mode + "\",\"payload_type\":\"octets\",\"payload_bytes\":10,"
        + "\"calls\":50,\"warmup\":5,\"samples_file\":\"" + samples + "\",\"id\":\"r1\"}";
  }

  @Test
  void helloDescribesTheWorker() {
    JsonObject answer = loop.handle("{\"cmd\":\"hello\",\"id\":[1,2]}");
    assertEquals(ProcessHandle.current().pid(), answer.get("pid").getAsLong());
    assertTrue(answer.get("ok").getAsBoolean());
    assertEquals("[1,2]", answer.get("id").toString());
    assertEquals("java", answer.getAsJsonObject("worker").get("language").getAsString());
    assertEquals("[\"twoway\",\"oneway\"]", answer.get("modes").toString());
    assertTrue(answer.get("turns").getAsBoolean(), "every Java client takes turns");
    double cost = answer.getAsJsonObject("timer").get("cost_ns").getAsDouble();
    assertTrue(cost > 0 && cost < 10_000, "timer cost " + cost);
  }

  @Test
  void runAnswersWithCountsAndWritesOneSamplePerCall() throws Exception {
    assertTrue(loop.handle("{\"cmd\":\"connect\",\"endpoint\":\"x\"}").get("ok").getAsBoolean());
    Path samples = dir.resolve("t.i64");
    JsonObject answer = loop.handle(run("oneway", samples));
    assertTrue(answer.get("ok").getAsBoolean(), answer.toString());
    assertEquals("r1", answer.get("id").getAsString());
    assertEquals(50, answer.get("calls").getAsInt());
    assertEquals(50, answer.getAsJsonObject("received").get("messages").getAsLong());
    assertEquals(500, answer.getAsJsonObject("received").get("bytes").getAsLong());
    assertTrue(answer.getAsJsonObject("sync").get("complete").getAsBoolean());
    assertTrue(answer.get("elapsed_ns").getAsLong() > 0);
    assertEquals(8 * 50, Files.size(samples));
  }

  @Test
  void failuresAreAnswersOfTheRightKind() {
    assertEquals("usage", loop.handle("not json").get("error_kind").getAsString());
    assertEquals("usage", loop.handle("[1]").get("error_kind").getAsString());
    assertEquals("usage", loop.handle("{\"cmd\":\"fly\",\"id\":3}").get("error_kind").getAsString());
    assertEquals("usage", loop.handle("{\"cmd\":\"hello\",\"extra\":1}").get("error_kind").getAsString());
    assertEquals("usage", loop.handle("{\"cmd\":\"connect\"}").get("error_kind").getAsString());
    assertEquals("usage",
        loop.handle("{\"cmd\":\"connect\",\"endpoint\":\"x\",\"options\":{\"a\":1}}").get("error_kind").getAsString());
    // Run before a successful connect.
    assertEquals("usage", loop.handle(run("twoway", dir.resolve("a.i64"))).get("error_kind").getAsString());
    loop.handle("{\"cmd\":\"connect\",\"endpoint\":\"x\"}");
    assertEquals("unsupported", loop.handle(run("echo", dir.resolve("b.i64"))).get("error_kind").getAsString());
    client.failNext = true;
    JsonObject lost = loop.handle(run("twoway", dir.resolve("c.i64")));
    assertFalse(lost.get("ok").getAsBoolean());
    assertEquals("transport", lost.get("error_kind").getAsString());
    assertEquals("connection reset", lost.get("error").getAsString());
    assertEquals("r1", lost.get("id").getAsString());
    // The loop stays usable after an error.
    client.failNext = false;
    assertTrue(loop.handle(run("twoway", dir.resolve("d.i64"))).get("ok").getAsBoolean());
  }

  @Test
  void runsLineByLineUntilQuitAndSkipsBlankLines() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    String input = "{\"cmd\":\"hello\"}\n\n{\"cmd\":\"quit\",\"id\":9}\n{\"cmd\":\"hello\"}\n";
    loop.run(new BufferedReader(new StringReader(input)), new ProtocolOut(bytes));
    String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
    assertEquals(2, lines.length);
    assertEquals("{\"ok\":true,\"id\":9}", lines[1]);
    assertTrue(loop.quitRequested());
  }
}
