package org.orbench.orb;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
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
      args = Args.parse(argv, Set.of("target"), Set.of("target"));
    } catch (IllegalArgumentException e) {
      System.err.println("usage: OrbClient --target NAME: " + e.getMessage());
      System.exit(2);
      return;
    }
    ORB orb = ORB.init(new String[0], null);
    OrbBenchClient client = new OrbBenchClient(orb, args.get("target"));
    new CommandLoop(client)
        .run(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), out);
    client.close();
    // ORB threads are not daemons.
    System.exit(0);
  }
}
