package org.orbench.worker;

/**
 * The intended send times t_0, t_1, ... of a paced run (PROTOCOL.md, "Arrivals"). t_0 is the clock read at
 * the first use (or {@link #startAt}); fixed: t_i = t_0 + i / rate; Poisson: t_{i+1} = t_i + -ln(1 - u_i) /
 * rate, u_i from {@link SplitMix64}(seed), as in the C++ workers.
 */
public final class ArrivalSchedule {
  private final double periodNs;
  private final Arrivals arrivals;
  private final SplitMix64 random;
  private boolean started;
  private long t0;
  private long index;
  private double offsetNs;

  public ArrivalSchedule(double rateHz, Arrivals arrivals, long seed) {
    this.periodNs = 1e9 / rateHz;
    this.arrivals = arrivals;
    this.random = new SplitMix64(seed);
  }

  public static ArrivalSchedule fixed(double rateHz) {
    return new ArrivalSchedule(rateHz, Arrivals.FIXED, 0);
  }

  /** The mean time between two calls; a call whose sample is above it is a deadline miss. */
  public double periodNs() {
    return periodNs;
  }

  public void startAt(long t0Ns) {
    started = true;
    t0 = t0Ns;
  }

  /** The next call's intended send time, without taking it. */
  public long peek() {
    if (!started) {
      startAt(System.nanoTime());
    }
    return arrivals == Arrivals.FIXED ? t0 + (long) (index * periodNs) : t0 + (long) offsetNs;
  }

  /** The next call's intended send time, taken. */
  public long next() {
    long due = peek();
    if (arrivals == Arrivals.FIXED) {
      index++;
    } else {
      offsetNs += -Math.log1p(-random.nextUnit()) * periodNs;
    }
    return due;
  }
}
