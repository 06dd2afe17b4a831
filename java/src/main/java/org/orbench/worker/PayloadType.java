package org.orbench.worker;

import java.util.Locale;

/**
 * What a call carries (PROTOCOL.md, "Payload types"): raw octets, IDL {@code Record} structs, longs, doubles
 * or strings. A payload of N bytes is N / unit elements, rounded down, and the server counts unit bytes per
 * element: octets 1, records 16 (the sum of a Record's fields), longs 4, doubles 8, strings 16 (each string
 * has {@link #STRING_CHARS} characters).
 */
public enum PayloadType {
  OCTETS(1),
  RECORDS(16),
  LONGS(4),
  DOUBLES(8),
  STRINGS(16);

  /** One IDL Record counts as 16 payload bytes, the sum of its fields (orbench.idl). */
  public static final int RECORD_BYTES = 16;
  /** Characters of every string of a strings payload. */
  public static final int STRING_CHARS = 16;

  private final int unitBytes;

  PayloadType(int unitBytes) {
    this.unitBytes = unitBytes;
  }

  /** Payload bytes one element counts for. */
  public int unitBytes() {
    return unitBytes;
  }

  /** Elements in a payload of {@code payloadBytes}: payloadBytes / unit, rounded down. */
  public int elements(int payloadBytes) {
    return payloadBytes / unitBytes;
  }

  /** The bytes a payload of {@code payloadBytes} carries and the server counts: elements x unit. */
  public int countedBytes(int payloadBytes) {
    return elements(payloadBytes) * unitBytes;
  }

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The payload type named {@code name} on the wire, or null. */
  public static PayloadType fromWireName(String name) {
    for (PayloadType type : values()) {
      if (type.wireName().equals(name)) {
        return type;
      }
    }
    return null;
  }
}
