package org.orbench.socket;

import java.util.Set;
import org.orbench.worker.ClientWorker;

/**
 * The socket baselines' client worker: {@code SocketClient --target NAME [--transport socket|nio|jni|...]}
 * (default socket: java.net.Socket), then JSON-lines commands.
 */
public final class SocketClient {
  private SocketClient() {}

  public static void main(String[] argv) throws Exception {
    ClientWorker.main(argv, "SocketClient --target NAME [--transport NAME]", Set.of("target", "transport"),
        Set.of("target"),
        args -> new SocketBenchClient(args.get("target"),
            Transports.byName(args.get("transport") == null ? "socket" : args.get("transport"))));
  }
}
