package org.orbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The soak histogram: the bucket scheme of PROTOCOL.md, the same indices as the C++ workers' (test_histogram)
 * and HdrHistogram's at 2 significant digits, and percentiles within its bound.
 */
class LatencyHistogramTest {
  @Test
  void bucketSchemeIsTheProtocols() {
    assertEquals(7296, LatencyHistogram.BUCKETS);
    for (int v = 0; v < 256; v++) {
      assertEquals(v, LatencyHistogram.bucketOf(v));
    }
    assertEquals(256, LatencyHistogram.bucketOf(257));
    assertEquals(257, LatencyHistogram.bucketOf(258));
    assertEquals(383, LatencyHistogram.bucketOf(511));
    assertEquals(384, LatencyHistogram.bucketOf(515));
    assertEquals(0, LatencyHistogram.bucketOf(-5));
    assertEquals(LatencyHistogram.BUCKETS - 1, LatencyHistogram.bucketOf(Long.MAX_VALUE));
    assertEquals(Long.MAX_VALUE, LatencyHistogram.highestIn(LatencyHistogram.BUCKETS - 1));
    for (int i = 0; i < LatencyHistogram.BUCKETS; i++) {
      long lo = LatencyHistogram.lowestIn(i);
      long hi = LatencyHistogram.highestIn(i);
      assertEquals(i, LatencyHistogram.bucketOf(lo));
      assertEquals(i, LatencyHistogram.bucketOf(hi));
      if (i + 1 < LatencyHistogram.BUCKETS) {
        assertEquals(hi + 1, LatencyHistogram.lowestIn(i + 1));
      }
      assertTrue(hi - lo + 1 <= Math.max(1.0, lo / 128.0), "bucket " + i);
    }
  }

  @Test
  void percentilesAreWithinTheBound() {
    SplittableRandom random = new SplittableRandom(12);
    long[] values = new long[200_000];
    LatencyHistogram h = new LatencyHistogram();
    for (int i = 0; i < values.length; i++) {
      values[i] = (long) Math.exp(Math.log(50_000) + 0.8 * gaussian(random));
      h.record(values[i]);
    }
    Arrays.sort(values);
    assertEquals(values.length, h.count());
    assertEquals(values[0], h.min());
    assertEquals(values[values.length - 1], h.max());
    for (double p : new double[] {50, 90, 99, 99.9, 99.99, 100}) {
      long exact = values[(int) Math.ceil(p / 100 * values.length) - 1];
      long got = h.valueAtPercentile(p);
      assertTrue(got >= exact && got <= exact * (1 + 1.0 / 128) + 1, p + ": " + got + " vs " + exact);
    }
    LatencyHistogram other = new LatencyHistogram();
    other.record(3);
    h.add(other);
    assertEquals(3, h.min());
    h.clear();
    assertEquals(0, h.count());
    assertEquals(0, h.valueAtPercentile(50));
    assertEquals(0, h.sparseBuckets().size());
  }

  @Test
  void splitMix64MatchesTheCppWorkers() {
    SplitMix64 random = new SplitMix64(0);
    assertEquals(0xe220a8397b1dcdafL, random.next());
    assertEquals(0x6e789e6aa1b965f4L, random.next());
  }

  private static double gaussian(SplittableRandom random) {
    // Box-Muller: SplittableRandom has no nextGaussian on JDK 17.
    return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
  }
}
