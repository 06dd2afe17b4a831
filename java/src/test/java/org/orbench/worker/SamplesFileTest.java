package org.orbench.worker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SamplesFileTest {
  @TempDir Path dir;

  @Test
  void writesLittleEndianInt64WithoutHeader() throws Exception {
    Path file = dir.resolve("s.i64");
    SamplesFile.write(file, new long[] {1, -2, 0x0102030405060708L});
    byte[] bytes = Files.readAllBytes(file);
    assertArrayEquals(
        new byte[] {
          1, 0, 0, 0, 0, 0, 0, 0,
          (byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff,
          8, 7, 6, 5, 4, 3, 2, 1
        },
        bytes);
  }

  @Test
  void writesEverySampleAcrossChunksAndReplacesAnOldFile() throws Exception {
    Path file = dir.resolve("big.i64");
    Files.write(file, new byte[1_000_000]); // longer than the new content: must be truncated
    long[] samples = new long[20_001];
    for (int i = 0; i < samples.length; i++) {
      samples[i] = i * 1_000L + 7;
    }
    SamplesFile.write(file, samples);
    byte[] bytes = Files.readAllBytes(file);
    assertEquals(8L * samples.length, bytes.length);
    long[] back = new long[samples.length];
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(back);
    assertArrayEquals(samples, back);
  }
}
