package org.orbench.worker;

import com.google.gson.JsonObject;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The protocol stream: one JSON object per line, flushed at once. stdout carries nothing else, so
 * {@link #takeStdout()} keeps the real stdout for itself and points {@code System.out} at stderr: an ORB
 * or library that prints there cannot corrupt the protocol.
 */
public final class ProtocolOut {
  private final OutputStream out;

  public ProtocolOut(OutputStream out) {
    this.out = out;
  }

  /** Call first thing in main, before any library can print. */
  public static ProtocolOut takeStdout() {
    ProtocolOut protocol = new ProtocolOut(new FileOutputStream(FileDescriptor.out));
    System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
    return protocol;
  }

  /** Synchronized: a server's exit line can come from a signal handler while main also writes. */
  public synchronized void write(JsonObject message) {
    byte[] line = (Json.line(message) + "\n").getBytes(StandardCharsets.UTF_8);
    try {
      out.write(line);
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the protocol stream", e);
    }
  }
}
