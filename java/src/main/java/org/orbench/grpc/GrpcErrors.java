package org.orbench.grpc;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.orbench.worker.ErrorKind;
import org.orbench.worker.WorkerException;

/** gRPC failures as worker-contract errors (PROTOCOL.md, "Errors"). */
final class GrpcErrors {
  private GrpcErrors() {}

  /**
   * UNAVAILABLE, DEADLINE_EXCEEDED and CANCELLED are the connection's ({@code transport}); any other status is
   * the server's answer ({@code remote}); anything that is no gRPC status is a worker bug ({@code internal}).
   */
  static WorkerException translate(Throwable failure) {
    if (failure instanceof WorkerException worker) {
      return worker;
    }
    Status status = failure instanceof StatusRuntimeException sre ? sre.getStatus()
        : failure instanceof io.grpc.StatusException se ? se.getStatus() : null;
    if (status == null) {
      return new WorkerException(ErrorKind.INTERNAL, failure.toString(), failure);
    }
    Status.Code code = status.getCode();
    boolean transport = code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED
        || code == Status.Code.CANCELLED;
    String message = "gRPC status " + code + (status.getDescription() == null ? "" : ": " + status.getDescription());
    return new WorkerException(transport ? ErrorKind.TRANSPORT : ErrorKind.REMOTE, message, failure);
  }
}
