package org.orbench.worker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** The samples file of a run: little-endian signed 64-bit nanoseconds, in call order, no header (.i64). */
public final class SamplesFile {
  /** Written in chunks, so a run of ten million calls does not need another 80 MB of heap. */
  private static final int CHUNK_LONGS = 8192;

  private SamplesFile() {}

  /** Writes {@code samples} to {@code path}, replacing any file there. Called after the timed loop only. */
  public static void write(Path path, long[] samples) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(CHUNK_LONGS * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    try (FileChannel channel =
        FileChannel.open(
            path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
      for (int from = 0; from < samples.length; from += CHUNK_LONGS) {
        int count = Math.min(CHUNK_LONGS, samples.length - from);
        buffer.clear();
        buffer.asLongBuffer().put(samples, from, count);
        buffer.limit(count * Long.BYTES);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
      }
    }
  }
}
