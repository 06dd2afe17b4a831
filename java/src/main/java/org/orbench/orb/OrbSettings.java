package org.orbench.orb;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.orbench.worker.Args;

/**
 * What the ORB-agnostic workers need to know about one ORB, from its target descriptor's {@code [orb]} table
 * (harness/targets/README.md), passed as arguments: the name to report, the manifest attribute holding its
 * version, and the ORB properties that make a server bind and advertise exactly {@code --host:--port}
 * (ORBs have no standard names for these, and by default advertise a non-loopback address and a random port).
 * Adding a Java ORB is a descriptor, not Java code.
 */
record OrbSettings(String name, String versionAttribute, Map<String, String> serverProperties, boolean freePort) {
  /** The arguments both workers take. */
  static final Set<String> CLIENT_ARGS = Set.of("orb-name", "orb-version-attribute");
  /** The server's: {@code --orb-property NAME=VALUE} (repeated; {host} and {port} in VALUE are filled in). */
  static final Set<String> SERVER_ARGS = Set.of("orb-name", "orb-version-attribute", "orb-property", "orb-free-port");

  static OrbSettings of(Args args) {
    Map<String, String> properties = new LinkedHashMap<>();
    List<String> given = args.all("orb-property");
    for (String property : given) {
      int eq = property.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--orb-property must be NAME=VALUE, got " + property);
      }
      properties.put(property.substring(0, eq), property.substring(eq + 1));
    }
    String freePort = args.get("orb-free-port");
    if (freePort != null && !freePort.equals("true") && !freePort.equals("false")) {
      throw new IllegalArgumentException("--orb-free-port must be true or false, got " + freePort);
    }
    return new OrbSettings(args.get("orb-name"), args.get("orb-version-attribute"), properties,
        "true".equals(freePort));
  }

  /**
   * The server ORB's properties for {@code host:port}. Port 0 means any free port: an ORB that refuses 0
   * ({@code freePort}) gets one picked here first (another process could take it before the ORB binds it; the
   * server then fails to start, with the ORB's reason).
   */
  Properties serverProperties(String host, int port) throws IOException {
    if (serverProperties.isEmpty()) {
      throw new IllegalArgumentException("no --orb-property: the server cannot be told where to listen");
    }
    int chosen = port == 0 && freePort ? freePortOn(host) : port;
    Properties out = new Properties();
    for (Map.Entry<String, String> e : serverProperties.entrySet()) {
      out.setProperty(e.getKey(),
          e.getValue().replace("{host}", host).replace("{port}", Integer.toString(chosen)));
    }
    return out;
  }

  private static int freePortOn(String host) throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(host))) {
      return socket.getLocalPort();
    }
  }
}
