package org.orbench.socket;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.orbench.worker.Args;
import org.orbench.worker.CommandLoop;
import org.orbench.worker.ProtocolOut;

/**
 * The socket baselines' client worker: {@code SocketClient --target NAME [--transport socket|nio|jni|...]}
 * (default socket: java.net.Socket), then JSON-lines commands.
 */
public final class SocketClient {
  private SocketClient() {}

  public static void main(String[] argv) throws Exception {
    ProtocolOut out = ProtocolOut.takeStdout();
    Args args;
    Transport transport;
    try {
      args = Args.parse(argv, Set.of("target", "transport"), Set.of("target"));
      transport = Transports.byName(args.get("transport") == null ? "socket" : args.get("transport"));
    } catch (IllegalArgumentException e) {
      System.err.println("usage: SocketClient --target NAME [--transport NAME]: " + e.getMessage());
      System.exit(2);
      return;
    }
    SocketBenchClient client = new SocketBenchClient(args.get("target"), transport);
    new CommandLoop(client)
        .run(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), out);
    client.close();
  }
}
