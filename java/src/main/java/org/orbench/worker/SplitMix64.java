package org.orbench.worker;

/**
 * SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators"), written out rather
 * than {@link java.util.SplittableRandom} so that the C++ workers' copy gives the same values from a seed.
 */
public final class SplitMix64 {
  private long state;

  public SplitMix64(long seed) {
    this.state = seed;
  }

  public long next() {
    long z = (state += 0x9e3779b97f4a7c15L);
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** Uniform in [0, 1): the top 53 bits. */
  public double nextUnit() {
    return (next() >>> 11) * 0x1.0p-53;
  }
}
