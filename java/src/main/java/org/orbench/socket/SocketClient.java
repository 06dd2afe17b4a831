package org.orbench.socket;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.orbench.worker.Args;
import org.orbench.worker.CommandLoop;
import org.orbench.worker.ProtocolOut;

/** The socket baseline's client worker: {@code SocketClient --target NAME}, then JSON-lines commands. */
public final class SocketClient {
  private SocketClient() {}

  public static void main(String[] argv) throws Exception {
    ProtocolOut out = ProtocolOut.takeStdout();
    Args args;
    try {
      args = Args.parse(argv, Set.of("target"), Set.of("target"));
    } catch (IllegalArgumentException e) {
      System.err.println("usage: SocketClient --target NAME: " + e.getMessage());
      System.exit(2);
      return;
    }
    SocketBenchClient client = new SocketBenchClient(args.get("target"));
    new CommandLoop(client)
        .run(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), out);
    client.close();
  }
}
