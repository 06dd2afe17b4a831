package org.orbench.jmh;

import orbench.Record;

/** The payloads the workers send (harness/PROTOCOL.md): octets {@code i & 0xff}; records of 16 bytes each. */
final class Payloads {
  /** Bytes per record on the wire, as the harness counts them (PROTOCOL.md). */
  static final int RECORD_BYTES = 16;

  private Payloads() {}

  static byte[] octets(int bytes) {
    byte[] b = new byte[bytes];
    for (int i = 0; i < bytes; i++) {
      b[i] = (byte) (i & 0xff);
    }
    return b;
  }

  static Record[] records(int bytes) {
    Record[] r = new Record[bytes / RECORD_BYTES];
    for (int i = 0; i < r.length; i++) {
      r[i] = new Record(i, i * 0.5, (short) i, (byte) 1, (byte) 2);
    }
    return r;
  }
}
