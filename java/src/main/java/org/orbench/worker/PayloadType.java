package org.orbench.worker;

import java.util.Locale;

/** What a call carries: raw octets, or IDL {@code Record} structs of 16 bytes each. */
public enum PayloadType {
  OCTETS,
  RECORDS;

  /** One IDL Record counts as 16 payload bytes, the sum of its fields (orbench.idl). */
  public static final int RECORD_BYTES = 16;

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
