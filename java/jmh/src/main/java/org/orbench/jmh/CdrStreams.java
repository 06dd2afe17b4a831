package org.orbench.jmh;

import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.OutputStream;

/**
 * One ORB's own CDR streams, made directly (not through {@code ORB.create_output_stream()}, which may add a
 * lock or a copy): what that ORB marshals a request body into and unmarshals it from. One implementation per
 * ORB, and only one is ever loaded in a JVM, so calls through this interface stay monomorphic.
 */
interface CdrStreams {
  /** A fresh output stream, as the ORB makes one per request. */
  OutputStream output();

  /** Bytes written to {@code out} so far. */
  int size(OutputStream out);

  /** A copy of what was written to {@code out}. */
  byte[] bytes(OutputStream out);

  /** An input stream reading {@code encoded}, as written by {@link #output()} (same byte order, GIOP 1.2). */
  InputStream input(byte[] encoded);

  /** Gives the stream's buffers back to the ORB (JacORB and GlassFish pool them). */
  default void close(java.io.Closeable stream) {
    try {
      stream.close();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
