package org.orbench.worker;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * A client worker's process, the same for every Java transport: take stdout for the protocol, parse the
 * arguments (a mistake: usage on stderr, status 2), make the client, answer commands from stdin until quit or
 * EOF, close it and exit 0 (some middlewares' threads are not daemons).
 */
public final class ClientWorker {
  private ClientWorker() {}

  /** Makes the client from the parsed arguments; IllegalArgumentException is a usage mistake. */
  public interface Factory {
    BenchClient create(Args args) throws Exception;
  }

  /**
   * @param usage the command line, for the usage message
   * @param known the argument names it takes, {@code required} those it must be given
   */
  public static void main(String[] argv, String usage, Set<String> known, Set<String> required, Factory factory)
      throws Exception {
    ProtocolOut out = ProtocolOut.takeStdout();
    BenchClient client;
    try {
      client = factory.create(Args.parse(argv, known, required));
    } catch (IllegalArgumentException e) {
      System.err.println("usage: " + usage + ": " + e.getMessage());
      System.exit(2);
      return;
    }
    new CommandLoop(client).run(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), out);
    client.close();
    System.exit(0);
  }
}
