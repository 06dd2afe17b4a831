package org.orbench.socket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.orbench.testing.ClientDriver;
import org.orbench.testing.ServerProcess;

/** The socket pair over loopback: a real server process, the client through its command loop. */
class SocketLoopbackTest {
  private static final String SERVER = "org.orbench.socket.SocketServer";

  @TempDir Path dir;

  @Test
  void everyModeDeliversEveryMessage() throws Exception {
    try (ServerProcess server = ServerProcess.start(SERVER, "java-socket", List.of(), dir.resolve("server.err"))) {
      assertTrue(server.endpoint().matches("tcp://127\\.0\\.0\\.1:\\d+"), server.endpoint());
      SocketBenchClient client = new SocketBenchClient("java-socket");
      ClientDriver driver = new ClientDriver(client);
      assertTrue(driver.connect(server.endpoint(), "{\"tcp_nodelay\":false}").get("ok").getAsBoolean());
      assertTrue(driver.connect(server.endpoint(), "{\"tcp_nodelay\":true}").get("ok").getAsBoolean());
      for (String mode : new String[] {"twoway", "oneway", "echo"}) {
        for (int bytes : new int[] {0, 1, 32768}) {
          Path samples = dir.resolve(mode + bytes + ".i64");
          JsonObject answer = driver.run(mode, "octets", bytes, 300, samples);
          assertTrue(answer.get("ok").getAsBoolean(), answer.toString());
          assertEquals(300, answer.getAsJsonObject("received").get("messages").getAsLong(), answer.toString());
          assertEquals(300L * bytes, answer.getAsJsonObject("received").get("bytes").getAsLong());
          assertEquals(8 * 300, Files.size(samples));
        }
      }
      // A socket baseline has no sync scope; every payload type is the bytes an ORB counts for it (1000 B of
      // records: 62 records, 992 bytes).
      assertEquals("unsupported",
          driver.connect(server.endpoint(), "{\"sync_scope\":\"none\"}").get("error_kind").getAsString());
      assertTrue(driver.connect(server.endpoint(), "{\"socket_buffer_bytes\":65536}").get("ok").getAsBoolean());
      JsonObject records = driver.run("echo", "records", 1000, 300, dir.resolve("r.i64"));
      assertEquals(300L * 992, records.getAsJsonObject("received").get("bytes").getAsLong(), records.toString());
      client.close();
      server.closeStdin();
      assertEquals("{\"event\":\"exit\",\"received\":{\"messages\":300,\"bytes\":297600}}", server.nextLine());
      assertEquals(0, server.waitForExit());
    }
  }

  @Test
  void aKnownAnswerServerSpinsItsDelayBeforeEveryReply() throws Exception {
    long delayNs = 300_000;  // far above a loopback call, so no sample can be shorter by luck
    try (ServerProcess server = ServerProcess.start(
        SERVER, "java-socket", List.of(), List.of("--delay-ns", Long.toString(delayNs)), dir.resolve("server.err"))) {
      assertEquals(delayNs, server.ready().getAsJsonObject("worker").get("delay_ns").getAsLong());
      SocketBenchClient client = new SocketBenchClient("java-socket");
      ClientDriver driver = new ClientDriver(client);
      assertTrue(driver.connect(server.endpoint(), "{}").get("ok").getAsBoolean());
      Path samples = dir.resolve("delayed.i64");
      JsonObject answer = driver.run("twoway", "octets", 100, 50, samples);
      assertTrue(answer.get("ok").getAsBoolean(), answer.toString());
      long[] values = new long[50];
      ByteBuffer.wrap(Files.readAllBytes(samples)).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(values);
      assertTrue(Arrays.stream(values).min().getAsLong() >= delayNs, Arrays.toString(values));
      client.close();
    }
  }

  @Test
  void aBadDelayIsAStartError() throws Exception {
    try (ServerProcess server = ServerProcess.start(
        SERVER, "java-socket", List.of(), List.of("--delay-ns", "-3"), dir.resolve("server.err"))) {
      assertEquals("error", server.ready().get("event").getAsString());
      assertTrue(server.ready().get("error").getAsString().contains("--delay-ns"), server.ready().toString());
      assertEquals(1, server.waitForExit());
    }
  }

  @Test
  void aRunReportsItsTimedCallsHeapAndTheServerAnswersStats() throws Exception {
    try (ServerProcess server = ServerProcess.start(
        SERVER, "java-socket", List.of(), dir.resolve("server.err"))) {
      assertEquals("[\"stats\"]", server.ready().get("stdin_commands").toString());
      ClientDriver driver = new ClientDriver(new SocketBenchClient("java-socket"));
      assertTrue(driver.connect(server.endpoint(), "{}").get("ok").getAsBoolean());
      JsonObject answer = driver.run("twoway", "octets", 100, 2000, dir.resolve("s.i64"));
      JsonObject memory = answer.getAsJsonObject("memory");
      // The socket baseline's timed loop writes from a preallocated buffer; a JVM this cold (100 warm-up calls,
      // interpreted) still allocates some tens of bytes per call.
      long allocated = memory.get("thread_allocated_bytes").getAsLong();
      assertTrue(allocated >= 0 && allocated < 100 * 2000, answer.toString());
      assertTrue(memory.has("gc_count") && memory.has("gc_time_ms"), answer.toString());

      server.writeLine("not a command");
      server.writeLine("{\"cmd\": \"stats\"}");
      JsonObject first = JsonParser.parseString(server.nextLine()).getAsJsonObject();
      assertEquals("stats", first.get("event").getAsString());
      // The message counters since the last reset, which the harness's progress watchdog reads.
      assertTrue(first.getAsJsonObject("received").get("messages").getAsLong() >= 0, first.toString());
      server.writeLine("{\"cmd\": \"stats\"}");
      JsonObject second = JsonParser.parseString(server.nextLine()).getAsJsonObject();
      long grew = second.getAsJsonObject("memory").get("allocated_bytes").getAsLong()
          - first.getAsJsonObject("memory").get("allocated_bytes").getAsLong();
      assertTrue(grew > 0, first + " then " + second);
      server.closeStdin();
      assertEquals(0, server.waitForExit());
    }
  }

  @Test
  void aDeadServerIsATransportErrorNotAHang() throws Exception {
    SocketBenchClient client = new SocketBenchClient("java-socket");
    ClientDriver driver = new ClientDriver(client);
    String endpoint;
    try (ServerProcess server = ServerProcess.start(SERVER, "java-socket", List.of(), dir.resolve("server.err"))) {
      endpoint = server.endpoint();
      assertTrue(driver.connect(endpoint, "{}").get("ok").getAsBoolean());
      server.kill();
    }
    for (String mode : new String[] {"twoway", "oneway"}) {
      JsonObject answer = driver.run(mode, "octets", 1024, 1000, dir.resolve("x.i64"));
      assertFalse(answer.get("ok").getAsBoolean(), answer.toString());
      assertEquals("transport", answer.get("error_kind").getAsString(), answer.toString());
    }
    JsonObject refused = driver.connect(endpoint, "{}");
    assertEquals("transport", refused.get("error_kind").getAsString(), refused.toString());
    client.close();
  }

  @Test
  void anUnknownKindGetsAnErrorStatusAndTheConnectionGoesOn() throws Exception {
    try (ServerProcess server = ServerProcess.start(SERVER, "java-socket", List.of(), dir.resolve("server.err"));
        Socket socket = connect(server)) {
      byte[] request = new byte[Wire.HEADER_BYTES + 3];
      Wire.putHeader(request, 0, 9, 3);
      socket.getOutputStream().write(request);
      byte[] reply = socket.getInputStream().readNBytes(Wire.HEADER_BYTES + Wire.PREAMBLE_BYTES);
      assertEquals(new Wire.Header(0x89, Wire.PREAMBLE_BYTES), Wire.parseHeader(reply, 0));
      assertEquals(0, Wire.getU32(reply, Wire.HEADER_BYTES)); // request id: the first on this connection
      assertEquals(Wire.STATUS_ERROR, Wire.getU32(reply, Wire.HEADER_BYTES + 4));

      Wire.putHeader(request, 0, Kind.RESET.code, 0);
      socket.getOutputStream().write(request, 0, Wire.HEADER_BYTES);
      reply = socket.getInputStream().readNBytes(Wire.HEADER_BYTES + Wire.PREAMBLE_BYTES);
      assertEquals(new Wire.Header(Kind.RESET.replyCode(), Wire.PREAMBLE_BYTES), Wire.parseHeader(reply, 0));
      assertEquals(1, Wire.getU32(reply, Wire.HEADER_BYTES));
      assertEquals(Wire.STATUS_OK, Wire.getU32(reply, Wire.HEADER_BYTES + 4));
    }
  }

  private static Socket connect(ServerProcess server) throws IOException {
    var address = SocketBenchClient.parseEndpoint(server.endpoint());
    return new Socket(address.getHostString(), address.getPort());
  }

  @Test
  void shutdownRequestRepliesThenStopsTheServer() throws Exception {
    try (ServerProcess server = ServerProcess.start(SERVER, "java-socket", List.of(), dir.resolve("server.err"))) {
      try (Socket socket = connect(server)) {
        byte[] request = new byte[Wire.HEADER_BYTES];
        Wire.putHeader(request, 0, Kind.SHUTDOWN.code, 0);
        socket.getOutputStream().write(request);
        byte[] reply = socket.getInputStream().readNBytes(Wire.HEADER_BYTES + Wire.PREAMBLE_BYTES);
        assertEquals(new Wire.Header(Kind.SHUTDOWN.replyCode(), Wire.PREAMBLE_BYTES), Wire.parseHeader(reply, 0));
        assertEquals(0, Wire.getU32(reply, Wire.HEADER_BYTES + 4));
      }
      assertTrue(server.nextLine().startsWith("{\"event\":\"exit\""));
      assertNull(server.nextLine());
      assertEquals(0, server.waitForExit());
    }
  }
}
