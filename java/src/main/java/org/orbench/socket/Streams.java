package org.orbench.socket;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/** Exact reads and reusable buffers, for both ends of a socket connection. */
final class Streams {
  private Streams() {}

  /** Reads exactly {@code length} bytes; EOF before that is an {@link EOFException}. */
  static void readFully(InputStream in, byte[] buffer, int offset, int length) throws IOException {
    if (!readFullyOrEof(in, buffer, offset, length) && length > 0) {
      throw new EOFException("connection closed by the peer");
    }
  }

  /**
   * Reads exactly {@code length} bytes, or returns false on EOF before the first byte (a clean end between
   * messages). EOF after some bytes is an {@link EOFException}.
   */
  static boolean readFullyOrEof(InputStream in, byte[] buffer, int offset, int length) throws IOException {
    int done = 0;
    while (done < length) {
      int n = in.read(buffer, offset + done, length - done);
      if (n < 0) {
        if (done == 0) {
          return false;
        }
        throw new EOFException("connection closed inside a message (" + done + " of " + length + " bytes)");
      }
      done += n;
    }
    return true;
  }

  /** {@code buffer}, or a larger copy when it cannot hold {@code length} bytes. Grows only, and rarely. */
  static byte[] ensureCapacity(byte[] buffer, int length) {
    return buffer.length >= length ? buffer : Arrays.copyOf(buffer, Math.max(length, buffer.length * 2));
  }
}
