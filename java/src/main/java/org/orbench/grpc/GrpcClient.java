package org.orbench.grpc;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.orbench.worker.Args;
import org.orbench.worker.CommandLoop;
import org.orbench.worker.ProtocolOut;

/** The grpc-java client worker: {@code GrpcClient --target NAME}, then JSON-lines commands on stdin. */
public final class GrpcClient {
  private GrpcClient() {}

  public static void main(String[] argv) throws Exception {
    ProtocolOut out = ProtocolOut.takeStdout();
    Args args;
    try {
      args = Args.parse(argv, Set.of("target"), Set.of("target"));
    } catch (IllegalArgumentException e) {
      System.err.println("usage: GrpcClient --target NAME: " + e.getMessage());
      System.exit(2);
      return;
    }
    GrpcBenchClient client = new GrpcBenchClient(args.get("target"));
    new CommandLoop(client)
        .run(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), out);
    client.close();
    System.exit(0); // gRPC's and Netty's threads are not all daemons
  }
}
