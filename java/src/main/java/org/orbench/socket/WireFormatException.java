package org.orbench.socket;

import java.io.IOException;

/** The peer sent bytes that are not a message of the wire format. */
final class WireFormatException extends IOException {
  private static final long serialVersionUID = 1L;

  WireFormatException(String message) {
    super(message);
  }
}
