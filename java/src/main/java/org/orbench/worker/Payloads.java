package org.orbench.worker;

/** Payload contents, identical in every language: byte i is {@code i & 0xff} (PROTOCOL.md). */
public final class Payloads {
  private Payloads() {}

  public static byte[] octets(int length) {
    byte[] payload = new byte[length];
    for (int i = 0; i < length; i++) {
      payload[i] = (byte) i;
    }
    return payload;
  }
}
