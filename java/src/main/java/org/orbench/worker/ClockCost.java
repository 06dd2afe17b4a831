package org.orbench.worker;

/** The measured mean cost of one {@code System.nanoTime()} read, reported in hello as {@code timer.cost_ns}. */
public final class ClockCost {
  public static final String CLOCK_NAME = "System.nanoTime";

  private static final int READS = 1_000_000;
  /** The first rounds run interpreted or half-compiled; the last one is what timed loops see. */
  private static final int ROUNDS = 3;

  private ClockCost() {}

  /** Mean nanoseconds between back-to-back reads over a million reads (about 20 ms per round). */
  public static double measureNs() {
    double meanNs = 0;
    for (int round = 0; round < ROUNDS; round++) {
      meanNs = oneRound();
    }
    return meanNs;
  }

  private static double oneRound() {
    long first = System.nanoTime();
    long last = first;
    for (int i = 0; i < READS; i++) {
      last = System.nanoTime();
    }
    return (double) (last - first) / READS;
  }
}
