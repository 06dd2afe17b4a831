package org.orbench.grpc;

import java.util.Set;
import org.orbench.worker.ClientWorker;

/** The grpc-java client worker: {@code GrpcClient --target NAME}, then JSON-lines commands on stdin. */
public final class GrpcClient {
  private GrpcClient() {}

  public static void main(String[] argv) throws Exception {
    ClientWorker.main(argv, "GrpcClient --target NAME", Set.of("target"), Set.of("target"),
        args -> new GrpcBenchClient(args.get("target")));
  }
}
