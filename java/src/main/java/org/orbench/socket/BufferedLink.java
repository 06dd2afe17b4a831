package org.orbench.socket;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The read side shared by every Java socket link (java.net.Socket streams, NIO, JNI, FFM): a 64 KB receive
 * buffer (direct or heap, as the subclass wants) that one receive call fills with whatever has arrived, so a
 * header and a small body usually take one call. Headers and control replies are copied out to Java arrays;
 * payloads the server only counts are dropped in place ({@link #discard}).
 */
public abstract class BufferedLink implements Link {
  protected static final int BUFFER_BYTES = 64 * 1024;

  private final ByteBuffer in;
  /** Unread bytes are in[start, end). */
  private int start;
  private int end;

  protected BufferedLink(ByteBuffer in) {
    this.in = in;
  }

  /**
   * Receives at most {@code length} bytes into {@code buffer} at {@code offset} (one blocking call):
   * the count, or -1 at EOF. Never 0 for a positive length.
   */
  protected abstract int receive(ByteBuffer buffer, int offset, int length) throws IOException;

  private boolean fill(int have, int want) throws IOException {
    start = 0;
    end = 0;
    int n = receive(in, 0, in.capacity());
    if (n < 0) {
      if (have == 0) {
        return false;
      }
      throw new EOFException("connection closed inside a message (" + have + " of " + want + " bytes)");
    }
    end = n;
    return true;
  }

  @Override
  public boolean readFullyOrEof(byte[] into, int offset, int length) throws IOException {
    int done = 0;
    while (done < length) {
      if (start == end && !fill(done, length)) {
        return false;
      }
      int n = Math.min(end - start, length - done);
      in.get(start, into, offset + done, n);
      start += n;
      done += n;
    }
    return true;
  }

  @Override
  public void discard(int length) throws IOException {
    int done = 0;
    while (done < length) {
      if (start == end && !fill(done, length)) {
        throw new EOFException("connection closed by the peer");
      }
      int n = Math.min(end - start, length - done);
      start += n;
      done += n;
    }
  }
}
