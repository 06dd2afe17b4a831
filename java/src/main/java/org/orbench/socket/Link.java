package org.orbench.socket;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;

/**
 * One connected byte stream, as the OBSK client and server use it. One implementation per way of reaching
 * the kernel's socket calls (java.net.Socket, NIO SocketChannel, JNI, FFM): the wire format and the command
 * loop around it stay the same, so two baselines differ only in how the bytes get to the socket.
 */
public interface Link extends Closeable {
  /** A request frame prepared before timing, in the memory this link sends from (a direct buffer, ...). */
  interface Frame {
    /** Sends the whole frame (one write call unless the kernel takes less). */
    void send() throws IOException;
  }

  /** Copies {@code bytes[0..length)} to where this link sends from; untimed. */
  Frame prepare(byte[] bytes, int length);

  /** Sends {@code bytes[offset..offset+length)} (replies, control requests). */
  void write(byte[] bytes, int offset, int length) throws IOException;

  /**
   * Reads exactly {@code length} bytes, or returns false on EOF before the first byte (a clean end between
   * messages). EOF after some bytes is an {@link EOFException}.
   */
  boolean readFullyOrEof(byte[] into, int offset, int length) throws IOException;

  /** Reads and drops {@code length} bytes (a payload the server only counts), without copying them to Java. */
  void discard(int length) throws IOException;

  /** Like {@link #readFullyOrEof}, EOF anywhere being an {@link EOFException}. */
  default void readFully(byte[] into, int offset, int length) throws IOException {
    if (!readFullyOrEof(into, offset, length) && length > 0) {
      throw new EOFException("connection closed by the peer");
    }
  }
}
