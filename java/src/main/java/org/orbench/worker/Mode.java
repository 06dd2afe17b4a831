package org.orbench.worker;

import java.util.Locale;

/** The call patterns of a {@code run}: an empty-reply twoway, a oneway, a twoway returning its argument. */
public enum Mode {
  TWOWAY,
  ONEWAY,
  ECHO;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The mode named {@code name} on the wire, or null. */
  public static Mode fromWireName(String name) {
    for (Mode mode : values()) {
      if (mode.wireName().equals(name)) {
        return mode;
      }
    }
    return null;
  }
}
