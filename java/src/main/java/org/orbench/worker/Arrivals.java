package org.orbench.worker;

/** How the calls of a paced run are spaced (PROTOCOL.md, "Arrivals"). */
public enum Arrivals {
  FIXED("fixed"),
  POISSON("poisson");

  private final String wireName;

  Arrivals(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /** The value of the {@code arrivals} field, or null. */
  public static Arrivals fromWireName(String name) {
    for (Arrivals arrivals : values()) {
      if (arrivals.wireName.equals(name)) {
        return arrivals;
      }
    }
    return null;
  }
}
