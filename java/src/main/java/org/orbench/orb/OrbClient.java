package org.orbench.orb;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.omg.CORBA.ORB;
import org.orbench.worker.Args;
import org.orbench.worker.CommandLoop;
import org.orbench.worker.ProtocolOut;

/**
 * The ORB client worker: {@code OrbClient --target NAME}, then JSON-lines commands on stdin
 * (harness/PROTOCOL.md). The ORB is whatever -Dorg.omg.CORBA.ORBClass names.
 */
public final class OrbClient {
  private OrbClient() {}

  public static void main(String[] argv) throws Exception {
    ProtocolOut out = ProtocolOut.takeStdout();
    Args args;
    try {
      Set<String> names = new HashSet<>(OrbSettings.CLIENT_ARGS);
      names.add("target");
      args = Args.parse(argv, names, names);
    } catch (IllegalArgumentException e) {
      System.err.println("usage: OrbClient --target NAME --orb-name NAME --orb-version-attribute ATTRIBUTE: "
          + e.getMessage());
      System.exit(2);
      return;
    }
    ORB orb = ORB.init(new String[0], null);
    OrbBenchClient client = new OrbBenchClient(orb, args.get("target"), OrbSettings.of(args));
    new CommandLoop(client)
        .run(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), out);
    client.close();
    // ORB threads are not daemons.
    System.exit(0);
  }
}
