package org.orbench.worker;

/**
 * Payload contents, identical in every language (PROTOCOL.md, "Payload types"): octet i is {@code i & 0xff},
 * long i is the low 32 bits of i x 2654435761, double i is i x 0.5 + 0.25, string i is
 * {@link PayloadType#STRING_CHARS} letters, letter j being 'a' + (i + j) mod 26. Record i has id i, value
 * i x 0.5, flags i (as a short), kind i &amp; 0xff and level (i &gt;&gt; 8) &amp; 0xff: each middleware's
 * record type is filled from the {@code record*} methods.
 */
public final class Payloads {
  private Payloads() {}

  public static byte[] octets(int length) {
    return octets(length, 0);
  }

  public static int[] longs(int count) {
    return longs(count, 0);
  }

  public static double[] doubles(int count) {
    return doubles(count, 0);
  }

  public static String[] strings(int count) {
    return strings(count, 0);
  }

  // Elements first .. first + count - 1 at indexes 0 .. count - 1 (first 1: the reply of the shapes out,
  // return and inout, PROTOCOL.md "Invocation shapes").

  public static byte[] octets(int length, int first) {
    byte[] payload = new byte[length];
    for (int i = 0; i < length; i++) {
      payload[i] = (byte) (first + i);
    }
    return payload;
  }

  public static int[] longs(int count, int first) {
    int[] payload = new int[count];
    for (int i = 0; i < count; i++) {
      payload[i] = (int) ((long) (first + i) * 2654435761L);
    }
    return payload;
  }

  public static double[] doubles(int count, int first) {
    double[] payload = new double[count];
    for (int i = 0; i < count; i++) {
      payload[i] = (first + i) * 0.5 + 0.25;
    }
    return payload;
  }

  public static String[] strings(int count, int first) {
    String[] payload = new String[count];
    char[] text = new char[PayloadType.STRING_CHARS];
    for (int i = 0; i < count; i++) {
      for (int j = 0; j < text.length; j++) {
        text[j] = (char) ('a' + (first + i + j) % 26);
      }
      payload[i] = new String(text);
    }
    return payload;
  }

  public static int recordId(int i) {
    return i;
  }

  public static double recordValue(int i) {
    return i * 0.5;
  }

  public static short recordFlags(int i) {
    return (short) i;
  }

  /** The record's kind octet, 0..255 (a Java byte holds the same bits as {@code (byte) recordKind(i)}). */
  public static int recordKind(int i) {
    return i & 0xff;
  }

  public static int recordLevel(int i) {
    return (i >>> 8) & 0xff;
  }
}
