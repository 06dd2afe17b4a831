package org.orbench.orb;

import java.util.Set;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.SystemException;
import org.orbench.worker.ErrorKind;
import org.orbench.worker.WorkerException;

/** CORBA exceptions as answers: {@code "CORBA::TRANSIENT (minor 0x...)"} with the right error_kind. */
final class CorbaErrors {
  /**
   * The system exceptions that mean "no usable connection" rather than "the server raised". By name:
   * TIMEOUT is CORBA 3 and not in every OMG API jar.
   */
  private static final Set<String> TRANSPORT =
      Set.of("TRANSIENT", "COMM_FAILURE", "NO_RESPONSE", "TIMEOUT");

  private CorbaErrors() {}

  static WorkerException translate(Exception failure) {
    if (failure instanceof WorkerException worker) {
      return worker;
    }
    if (failure instanceof SystemException system) {
      String name = system.getClass().getSimpleName();
      ErrorKind kind = TRANSPORT.contains(name) ? ErrorKind.TRANSPORT : ErrorKind.REMOTE;
      return new WorkerException(kind, describe(system), system);
    }
    if (failure instanceof org.omg.CORBA.UserException) {
      return new WorkerException(ErrorKind.REMOTE, "CORBA user exception " + failure, failure);
    }
    return new WorkerException(ErrorKind.INTERNAL, failure.toString(), failure);
  }

  static String describe(SystemException system) {
    String detail = system.getMessage();
    return String.format(
        "CORBA::%s (minor 0x%08x, %s)%s",
        system.getClass().getSimpleName(),
        system.minor,
        completion(system.completed),
        detail == null || detail.isBlank() ? "" : ": " + detail);
  }

  private static String completion(CompletionStatus status) {
    if (status == null) {
      return "completed unknown";
    }
    switch (status.value()) {
      case CompletionStatus._COMPLETED_YES:
        return "completed YES";
      case CompletionStatus._COMPLETED_NO:
        return "completed NO";
      default:
        return "completed MAYBE";
    }
  }
}
