package org.orbench.grpc;

import java.net.InetSocketAddress;
import org.orbench.worker.WorkerException;

/** The gRPC targets' endpoint, {@code grpc://HOST:PORT}, the same in C++ and Java (so they can be crossed). */
final class GrpcEndpoint {
  static final String SCHEME = "grpc://";

  private GrpcEndpoint() {}

  static String of(String host, int port) {
    return SCHEME + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  /** The gRPC target name ("HOST:PORT") of an endpoint; a usage error for anything but grpc://HOST:PORT. */
  static String target(String endpoint) {
    if (!endpoint.startsWith(SCHEME) || endpoint.length() == SCHEME.length()) {
      throw WorkerException.usage("bad endpoint \"" + endpoint + "\": expected grpc://HOST:PORT");
    }
    return endpoint.substring(SCHEME.length());
  }

  static InetSocketAddress address(String host, int port) {
    return new InetSocketAddress(host, port);
  }
}
