package org.orbench.worker;

/**
 * Which object each call of a run goes to (PROTOCOL.md, "Load at scale"): call i to object i mod K, or to the
 * i-th SplitMix64 output of the seed mod K (unsigned), the same objects as the C++ workers draw.
 */
public enum ObjectOrder {
  ROUND_ROBIN("round-robin"),
  RANDOM("random");

  private final String wireName;

  ObjectOrder(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /** The value of the {@code object_order} field, or null. */
  public static ObjectOrder fromWireName(String name) {
    for (ObjectOrder order : values()) {
      if (order.wireName.equals(name)) {
        return order;
      }
    }
    return null;
  }

  /** The object of calls 0 .. calls - 1 among {@code objects}, drawn before timing. */
  public int[] draw(int objects, int calls, long seed) {
    int[] order = new int[calls];
    if (this == RANDOM) {
      SplitMix64 random = new SplitMix64(seed);
      for (int i = 0; i < calls; i++) {
        order[i] = (int) Long.remainderUnsigned(random.next(), objects);
      }
    } else {
      for (int i = 0; i < calls; i++) {
        order[i] = i % objects;
      }
    }
    return order;
  }
}
