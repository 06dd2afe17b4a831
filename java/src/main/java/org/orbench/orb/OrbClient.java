package org.orbench.orb;

import java.util.HashSet;
import java.util.Set;
import org.omg.CORBA.ORB;
import org.orbench.worker.ClientWorker;

/**
 * The ORB client worker: {@code OrbClient --target NAME}, then JSON-lines commands on stdin
 * (harness/PROTOCOL.md). The ORB is whatever -Dorg.omg.CORBA.ORBClass names.
 */
public final class OrbClient {
  private OrbClient() {}

  public static void main(String[] argv) throws Exception {
    Set<String> names = new HashSet<>(OrbSettings.CLIENT_ARGS);
    names.add("target");
    ClientWorker.main(argv, "OrbClient --target NAME --orb-name NAME --orb-version-attribute ATTRIBUTE", names, names,
        args -> {
          OrbSettings settings = OrbSettings.of(args); // before ORB.init: a usage mistake starts no ORB
          return new OrbBenchClient(ORB.init(new String[0], null), args.get("target"), settings);
        });
  }
}
