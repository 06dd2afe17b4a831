package org.orbench.ice;

import com.zeroc.Ice.CloseConnectionException;
import com.zeroc.Ice.CommunicatorDestroyedException;
import com.zeroc.Ice.ConnectionManuallyClosedException;
import com.zeroc.Ice.DNSException;
import com.zeroc.Ice.LocalException;
import com.zeroc.Ice.SocketException;
import com.zeroc.Ice.TimeoutException;
import com.zeroc.Ice.UserException;
import org.orbench.worker.ErrorKind;
import org.orbench.worker.WorkerException;

/** Ice exceptions as worker-contract errors (PROTOCOL.md, "Errors"). */
final class IceErrors {
  private IceErrors() {}

  /**
   * The connection's failures (socket, timeout, closed connection, destroyed communicator) are {@code transport};
   * any other Ice exception is what the server raised or reported ({@code remote}); the rest is a worker bug.
   */
  static WorkerException translate(Throwable failure) {
    if (failure instanceof WorkerException worker) {
      return worker;
    }
    if (failure instanceof SocketException || failure instanceof TimeoutException
        || failure instanceof CloseConnectionException || failure instanceof ConnectionManuallyClosedException
        || failure instanceof CommunicatorDestroyedException || failure instanceof DNSException) {
      return new WorkerException(ErrorKind.TRANSPORT, oneLine(failure), failure);
    }
    if (failure instanceof LocalException || failure instanceof UserException) {
      return new WorkerException(ErrorKind.REMOTE, oneLine(failure), failure);
    }
    return new WorkerException(ErrorKind.INTERNAL, oneLine(failure), failure);
  }

  /** Ice's exceptions print their fields on lines of their own; an answer's error is one line. */
  private static String oneLine(Throwable failure) {
    return failure.toString().replaceAll("\\s*\\n\\s*", "; ");
  }
}
