package org.orbench.ice;

import com.zeroc.Ice.Util;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.orbench.worker.ClientWorker;

/**
 * The ice-java client worker: {@code IceClient --target NAME [--Ice.Name=value]...}, then JSON-lines commands
 * on stdin. {@code --Ice.*} arguments are properties of its communicator.
 */
public final class IceClient {
  private IceClient() {}

  public static void main(String[] argv) throws Exception {
    List<String> iceArgs = new ArrayList<>();
    List<String> workerArgs = new ArrayList<>();
    for (String arg : argv) {
      (arg.startsWith("--Ice.") ? iceArgs : workerArgs).add(arg);
    }
    ClientWorker.main(workerArgs.toArray(String[]::new), "IceClient --target NAME [--Ice.Name=value]...",
        Set.of("target"), Set.of("target"),
        args -> new IceBenchClient(Util.initialize(iceArgs.toArray(String[]::new)), args.get("target")));
  }
}
