package org.orbench.socket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The bytes of PROTOCOL.md's wire format, as the C baseline writes them. */
class WireTest {
  @Test
  void headerHasTheDocumentedBytes() {
    byte[] buffer = new byte[Wire.HEADER_BYTES];
    Wire.putHeader(buffer, 0, Kind.TWOWAY.code, 0x01020304);
    assertArrayEquals(new byte[] {'O', 'B', 'S', 'K', 1, 0, 1, 2, 4, 3, 2, 1}, buffer);
  }

  @Test
  void headerRoundTripsEveryKindAndLength() throws Exception {
    byte[] buffer = new byte[Wire.HEADER_BYTES + 3];
    for (Kind kind : Kind.values()) {
      for (int length : new int[] {0, 1, 1024, 32768, Wire.MAX_BODY_BYTES}) {
        Wire.putHeader(buffer, 3, kind.replyCode(), length);
        assertEquals(new Wire.Header(kind.replyCode(), length), Wire.parseHeader(buffer, 3));
      }
    }
  }

  @Test
  void preambleIsRequestIdStatusReserved() {
    byte[] buffer = new byte[Wire.PREAMBLE_BYTES];
    Wire.putPreamble(buffer, 0, 0x0a0b0c0d, 0);
    assertArrayEquals(new byte[] {0x0d, 0x0c, 0x0b, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0}, buffer);
    assertEquals(0x0a0b0c0dL, Wire.getU32(buffer, 0));
  }

  @Test
  void u64IsLittleEndian() {
    byte[] buffer = new byte[8];
    Wire.putU64(buffer, 0, 0x0102030405060708L);
    assertArrayEquals(new byte[] {8, 7, 6, 5, 4, 3, 2, 1}, buffer);
    assertEquals(0x0102030405060708L, Wire.getU64(buffer, 0));
  }

  @Test
  void refusesForeignHeaders() {
    byte[] good = new byte[Wire.HEADER_BYTES];
    Wire.putHeader(good, 0, 1, 0);
    byte[] badMagic = good.clone();
    badMagic[0] = 'G';
    byte[] badVersion = good.clone();
    badVersion[4] = 2;
    byte[] bigEndian = good.clone();
    bigEndian[6] = 0;
    byte[] tooLong = good.clone();
    Wire.putU32(tooLong, 8, -1);
    for (byte[] header : new byte[][] {badMagic, badVersion, bigEndian, tooLong}) {
      assertThrows(WireFormatException.class, () -> Wire.parseHeader(header, 0));
    }
  }

  @Test
  void endpointsParse() {
    assertEquals("127.0.0.1", SocketBenchClient.parseEndpoint("tcp://127.0.0.1:4000").getHostString());
    assertEquals(4000, SocketBenchClient.parseEndpoint("tcp://127.0.0.1:4000").getPort());
    assertEquals("::1", SocketBenchClient.parseEndpoint("tcp://[::1]:5").getHostString());
    for (String bad : new String[] {"tcp://h", "udp://h:1", "h:1", "tcp://h:1/x", "IOR:00"}) {
      assertThrows(org.orbench.worker.WorkerException.class, () -> SocketBenchClient.parseEndpoint(bad), bad);
    }
  }
}
