package org.orbench.worker;

import java.util.Locale;

/** The {@code error_kind} values of an {@code ok: false} answer (PROTOCOL.md, "Errors"). */
public enum ErrorKind {
  /** Bad command, unknown field or option. */
  USAGE,
  /** A mode or payload type this target does not do. */
  UNSUPPORTED,
  /** Connection refused, lost, timed out. */
  TRANSPORT,
  /** The server raised, or answered something wrong. */
  REMOTE,
  /** A bug or resource failure in the worker itself. */
  INTERNAL;

  /** The name on the wire: lower case. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
