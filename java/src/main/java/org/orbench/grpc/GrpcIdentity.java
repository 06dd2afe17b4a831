package org.orbench.grpc;

import io.grpc.ManagedChannel;

/** The middleware's name and version for the ready line and hello. */
final class GrpcIdentity {
  static final String NAME = "gRPC";

  private GrpcIdentity() {}

  /** The Implementation-Version of the grpc-api jar on the class path, e.g. "1.51.1". */
  static String version() {
    String version = ManagedChannel.class.getPackage().getImplementationVersion();
    return version == null ? "unknown" : version;
  }
}
