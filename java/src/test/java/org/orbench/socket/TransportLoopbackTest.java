package org.orbench.socket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.orbench.testing.ClientDriver;
import org.orbench.testing.ServerProcess;

/**
 * Every Java transport speaks the same bytes: a client of one transport against a server of another (and of
 * its own), over loopback, server as a real process. FFM needs Java 22+ and is covered by the harness's
 * contract test on a JDK 25.
 */
class TransportLoopbackTest {
  private static final String SERVER = "org.orbench.socket.SocketServer";
  private static final Path JNI_LIBRARY = Path.of("target", "native", "liborbench-jni.so");

  @TempDir Path dir;

  @ParameterizedTest(name = "{0} client, {1} server")
  @CsvSource({"nio,nio", "nio,socket", "socket,nio", "jni,jni", "jni-direct,jni-direct", "jni,nio", "jni-direct,socket"})
  void everyModeDeliversEveryMessage(String clientTransport, String serverTransport) throws Exception {
    if (clientTransport.startsWith("jni") || serverTransport.startsWith("jni")) {
      assumeTrue(Files.exists(JNI_LIBRARY), JNI_LIBRARY + " not built (make java builds it)");
    }
    List<String> jvm = List.of("-Djava.library.path=" + JNI_LIBRARY.getParent().toAbsolutePath());
    try (ServerProcess server = ServerProcess.start(
        SERVER, "java-" + serverTransport, jvm, List.of("--transport", serverTransport), dir.resolve("server.err"))) {
      SocketBenchClient client = new SocketBenchClient("java-" + clientTransport, Transports.byName(clientTransport));
      ClientDriver driver = new ClientDriver(client);
      assertTrue(driver.connect(server.endpoint(), "{\"tcp_nodelay\":true}").get("ok").getAsBoolean());
      for (String mode : new String[] {"twoway", "oneway", "echo"}) {
        // 0 B, 1 B, and more than the 64 KB receive buffer, so a body spans several receive calls.
        for (int bytes : new int[] {0, 1, 100_000}) {
          Path samples = dir.resolve(mode + bytes + ".i64");
          JsonObject answer = driver.run(mode, "octets", bytes, 200, samples);
          assertTrue(answer.get("ok").getAsBoolean(), answer.toString());
          assertEquals(200, answer.getAsJsonObject("received").get("messages").getAsLong(), answer.toString());
          assertEquals(200L * bytes, answer.getAsJsonObject("received").get("bytes").getAsLong());
          assertEquals(8 * 200, Files.size(samples));
        }
      }
      client.close();
      server.closeStdin();
      assertEquals(0, server.waitForExit());
    }
  }
}
