package org.orbench.worker;

/** A failure that becomes an {@code ok: false} answer with this kind; the client stays alive. */
public final class WorkerException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorKind kind;

  public WorkerException(ErrorKind kind, String message) {
    super(message);
    this.kind = kind;
  }

  public WorkerException(ErrorKind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public ErrorKind kind() {
    return kind;
  }

  public static WorkerException usage(String message) {
    return new WorkerException(ErrorKind.USAGE, message);
  }
}
