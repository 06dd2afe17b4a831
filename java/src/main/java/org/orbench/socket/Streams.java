package org.orbench.socket;

import java.util.Arrays;

/** Reusable buffers, for both ends of a socket connection. */
final class Streams {
  private Streams() {}

  /** {@code buffer}, or a larger copy when it cannot hold {@code length} bytes. Grows only, and rarely. */
  static byte[] ensureCapacity(byte[] buffer, int length) {
    return buffer.length >= length ? buffer : Arrays.copyOf(buffer, Math.max(length, buffer.length * 2));
  }
}
