package org.orbench.orb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import orbench.Bench;
import orbench.BenchHelper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.omg.CORBA.ORB;
import org.orbench.testing.ClientDriver;
import org.orbench.testing.ServerProcess;

/** JacORB over loopback: the ORB server as a real process, an in-process JacORB client. */
class JacorbLoopbackTest {
  private static final String SERVER = "org.orbench.orb.OrbServer";
  private static final List<String> JACORB = List.of(
      "-Dorg.omg.CORBA.ORBClass=org.jacorb.orb.ORB",
      "-Dorg.omg.CORBA.ORBSingletonClass=org.jacorb.orb.ORBSingleton",
      "-Djacorb.poa.queue_wait=on",
      "-Djacorb.poa.queue_max=1000",
      "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");

  private static ORB orb;

  @TempDir Path dir;

  @BeforeAll
  static void clientOrb() {
    Properties properties = new Properties();
    properties.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
    properties.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
    orb = ORB.init(new String[0], properties);
  }

  @AfterAll
  static void stopOrb() {
    orb.shutdown(false);
  }

  /** The worker arguments of jacorb.toml's [orb] table. */
  private static final List<String> ORB_ARGS = List.of(
      "--orb-name", "JacORB", "--orb-version-attribute", "Implementation-Version",
      "--orb-property", "OAIAddr={host}", "--orb-property", "OAPort={port}");

  private static final OrbSettings SETTINGS = new OrbSettings("JacORB", "Implementation-Version", java.util.Map.of(),
      false);

  private ServerProcess startServer() throws Exception {
    return ServerProcess.start(SERVER, "jacorb", JACORB, ORB_ARGS, dir.resolve("server.err"));
  }

  @Test
  void everyModeAndPayloadTypeDeliversEveryMessage() throws Exception {
    try (ServerProcess server = startServer()) {
      JsonObject worker = server.ready().getAsJsonObject("worker");
      assertEquals("JacORB", worker.get("orb").getAsString());
      assertEquals("3.9", worker.get("orb_version").getAsString());
      assertTrue(server.endpoint().startsWith("IOR:"));

      OrbBenchClient client = new OrbBenchClient(orb, "jacorb", SETTINGS);
      ClientDriver driver = new ClientDriver(client);
      assertEquals("usage", driver.connect(server.endpoint(), "{\"no_such\":true}").get("error_kind").getAsString());
      // JacORB always sets TCP_NODELAY: true is what it does, false it cannot.
      assertEquals("unsupported",
          driver.connect(server.endpoint(), "{\"tcp_nodelay\":false}").get("error_kind").getAsString());
      assertEquals("unsupported",
          driver.connect(server.endpoint(), "{\"socket_buffer_bytes\":65536}").get("error_kind").getAsString());
      // JacORB has the CORBA Messaging SyncScopePolicy.
      assertTrue(driver.connect(server.endpoint(), "{\"sync_scope\":\"server\"}").get("ok").getAsBoolean());
      assertTrue(driver.connect(server.endpoint(), "{\"tcp_nodelay\":true}").get("ok").getAsBoolean());
      for (String type : new String[] {"octets", "records", "longs", "doubles", "strings"}) {
        for (String mode : new String[] {"twoway", "oneway", "echo"}) {
          Path samples = dir.resolve(mode + type + ".i64");
          // 1000 B of records is 62 records, 992 bytes (rounded down to whole records); of strings 62 strings
          // of 16 characters; of longs 250, of doubles 125 (1000 bytes).
          int payloadBytes = type.equals("octets") ? 4096 : 1000;
          long countedBytes = type.equals("octets") ? 4096 : type.equals("records") || type.equals("strings") ? 992 : 1000;
          JsonObject answer = driver.run(mode, type, payloadBytes, 300, samples);
          assertTrue(answer.get("ok").getAsBoolean(), answer.toString());
          assertEquals(300, answer.getAsJsonObject("received").get("messages").getAsLong(), answer.toString());
          assertEquals(300L * countedBytes, answer.getAsJsonObject("received").get("bytes").getAsLong());
          assertEquals(8 * 300, Files.size(samples));
        }
      }
      server.closeStdin();
      assertTrue(server.nextLine().startsWith("{\"event\":\"exit\""));
      assertEquals(0, server.waitForExit());

      JsonObject gone = driver.run("twoway", "octets", 1, 10, dir.resolve("gone.i64"));
      assertFalse(gone.get("ok").getAsBoolean());
      assertEquals("transport", gone.get("error_kind").getAsString(), gone.toString());
      assertTrue(gone.get("error").getAsString().startsWith("CORBA::"), gone.toString());
    }
  }

  @Test
  void amiGetsEveryReplyWithCallsOutstanding() throws Exception {
    // JacORB's own AMI stubs (JacorbAmi): the client lists ami, and every payload type's echo at ami-8 gets
    // every reply, each checked against the request, with no more than 8 in flight.
    try (ServerProcess server = startServer()) {
      ClientDriver driver = new ClientDriver(new OrbBenchClient(orb, "jacorb", SETTINGS));
      assertTrue(driver.send("{\"cmd\":\"hello\"}").getAsJsonArray("shapes").toString().contains("\"ami\""));
      assertTrue(driver.connect(server.endpoint(), "{}").get("ok").getAsBoolean());
      for (String type : new String[] {"octets", "records", "longs", "doubles", "strings"}) {
        Path samples = dir.resolve("ami" + type + ".i64");
        JsonObject answer = driver.send(String.format(
            "{\"cmd\":\"run\",\"mode\":\"echo\",\"shape\":\"ami-8\",\"payload_type\":\"%s\","
                + "\"payload_bytes\":1000,\"calls\":200,\"warmup\":20,\"samples_file\":\"%s\","
                + "\"sync_timeout_ms\":10000}", type, samples));
        assertTrue(answer.get("ok").getAsBoolean(), answer.toString());
        assertEquals("ami-8", answer.get("shape").getAsString());
        assertEquals(200, answer.get("replies").getAsLong(), answer.toString());
        assertEquals(8, answer.get("outstanding").getAsInt());
        int most = answer.get("outstanding_max").getAsInt();
        assertTrue(most >= 1 && most <= 8, answer.toString());
        assertEquals(200, answer.getAsJsonObject("received").get("messages").getAsLong(), answer.toString());
        assertEquals(8 * 200, Files.size(samples));
      }
    }
  }

  @Test
  void soakAtAFixedRateSendsItsIntervalsFirst() throws Exception {
    // 50 Hz for 1.5 s in 0.5 s intervals: three intervals of 25 calls each (by intended send time), every
    // call delivered, the JVM's GC pauses and memory in each.
    try (ServerProcess server = startServer()) {
      ClientDriver driver = new ClientDriver(new OrbBenchClient(orb, "jacorb", SETTINGS));
      assertTrue(driver.connect(server.endpoint(), "{}").get("ok").getAsBoolean());
      JsonObject answer = driver.send(
          "{\"cmd\":\"run\",\"mode\":\"twoway\",\"payload_type\":\"octets\",\"payload_bytes\":64,"
              + "\"warmup\":200,\"duration_s\":1.5,\"interval_s\":0.5,\"rate_hz\":50,\"id\":9}");
      assertTrue(answer.get("ok").getAsBoolean(), answer.toString());
      assertEquals(3, driver.events.size());
      long calls = 0;
      for (JsonObject event : driver.events) {
        assertEquals(9, event.get("id").getAsInt());
        assertEquals(25, event.get("calls").getAsLong(), event.toString());
        assertTrue(event.get("p50_ns").getAsLong() > 0 && event.get("rss_bytes").getAsLong() > 0);
        assertTrue(event.has("gc"));
        calls += event.get("calls").getAsLong();
      }
      assertEquals(75, answer.get("calls").getAsLong());
      assertEquals(calls, answer.getAsJsonObject("received").get("messages").getAsLong());
      assertEquals(3, answer.get("intervals").getAsInt());
    }
  }

  @Test
  void shutdownRequestGetsItsReplyAndStopsTheServer() throws Exception {
    try (ServerProcess server = startServer()) {
      Bench bench = BenchHelper.narrow(orb.string_to_object(server.endpoint()));
      bench.reset_counters();
      bench.shutdown(); // must return normally: the reply comes before the ORB stops
      assertTrue(server.nextLine().startsWith("{\"event\":\"exit\""));
      assertEquals(0, server.waitForExit());
    }
  }
}
