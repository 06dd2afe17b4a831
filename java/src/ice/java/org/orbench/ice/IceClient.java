package org.orbench.ice;

import com.zeroc.Ice.Communicator;
import com.zeroc.Ice.Util;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.orbench.worker.Args;
import org.orbench.worker.CommandLoop;
import org.orbench.worker.ProtocolOut;

/**
 * The ice-java client worker: {@code IceClient --target NAME [--Ice.Name=value]...}, then JSON-lines commands
 * on stdin. {@code --Ice.*} arguments are properties of its communicator.
 */
public final class IceClient {
  private IceClient() {}

  public static void main(String[] argv) throws Exception {
    ProtocolOut out = ProtocolOut.takeStdout();
    List<String> iceArgs = new ArrayList<>();
    List<String> workerArgs = new ArrayList<>();
    for (String arg : argv) {
      (arg.startsWith("--Ice.") ? iceArgs : workerArgs).add(arg);
    }
    Args args;
    try {
      args = Args.parse(workerArgs.toArray(String[]::new), Set.of("target"), Set.of("target"));
    } catch (IllegalArgumentException e) {
      System.err.println("usage: IceClient --target NAME [--Ice.Name=value]...: " + e.getMessage());
      System.exit(2);
      return;
    }
    try (Communicator communicator = Util.initialize(iceArgs.toArray(String[]::new))) {
      IceBenchClient client = new IceBenchClient(communicator, args.get("target"));
      new CommandLoop(client)
          .run(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), out);
      client.close();
    }
    System.exit(0);
  }
}
