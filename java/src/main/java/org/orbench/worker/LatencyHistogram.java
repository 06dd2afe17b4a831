package org.orbench.worker;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/**
 * The fixed-size latency histogram of a soak run (PROTOCOL.md, "Soak runs: the histogram"): log-linear
 * buckets of relative width at most 1/128, exact below 256 ns; the layout of HdrHistogram's counts array at
 * 2 significant digits, the same as the C++ workers' {@code LatencyHistogram}. Recording allocates nothing.
 */
public final class LatencyHistogram {
  static final int SUB_BUCKET_BITS = 7;
  static final int SUB = 1 << SUB_BUCKET_BITS;
  /** Values 0 .. Long.MAX_VALUE: 256 exact buckets, then 128 per power of two from 2^8 to 2^62. */
  public static final int BUCKETS = (63 - SUB_BUCKET_BITS) * SUB + SUB;

  private final long[] counts = new long[BUCKETS];
  private long total;
  private long min;
  private long max;

  /** The bucket of {@code value}; negative values count as 0. */
  public static int bucketOf(long value) {
    if (value < 0) {
      value = 0;
    }
    if (value < 2 * SUB) {
      return (int) value;
    }
    int exponent = 63 - Long.numberOfLeadingZeros(value);
    int shift = exponent - SUB_BUCKET_BITS;
    return shift * SUB + (int) (value >>> shift);
  }

  public static long lowestIn(int index) {
    if (index < 2 * SUB) {
      return index;
    }
    int shift = index / SUB - 1;
    return (long) (index - shift * SUB) << shift;
  }

  public static long highestIn(int index) {
    if (index < 2 * SUB) {
      return index;
    }
    int shift = index / SUB - 1;
    return lowestIn(index) + (1L << shift) - 1;
  }

  public void record(long value) {
    if (value < 0) {
      value = 0;
    }
    counts[bucketOf(value)]++;
    total++;
    if (total == 1 || value < min) {
      min = value;
    }
    if (value > max) {
      max = value;
    }
  }

  public void add(LatencyHistogram other) {
    if (other.total == 0) {
      return;
    }
    for (int i = 0; i < BUCKETS; i++) {
      counts[i] += other.counts[i];
    }
    if (total == 0 || other.min < min) {
      min = other.min;
    }
    max = Math.max(max, other.max);
    total += other.total;
  }

  public void clear() {
    java.util.Arrays.fill(counts, 0);
    total = 0;
    min = 0;
    max = 0;
  }

  public long count() {
    return total;
  }

  public long countIn(int index) {
    return counts[index];
  }

  public long min() {
    return total == 0 ? 0 : min;
  }

  public long max() {
    return max;
  }

  /**
   * The highest value of the bucket holding the sample of rank ceil(percentile / 100 * count) (1-based,
   * ascending, at least 1), capped at the exact maximum; 0 when empty.
   */
  public long valueAtPercentile(double percentile) {
    if (total == 0) {
      return 0;
    }
    long rank = Math.max(1, (long) Math.ceil(percentile / 100.0 * total));
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts[i];
      if (seen >= rank) {
        return Math.min(highestIn(i), max);
      }
    }
    return max;
  }

  /** calls, min, p50, p99, p99.9 and max as answer fields (the names of PROTOCOL.md). */
  public void addStats(JsonObject out) {
    out.addProperty("calls", total);
    out.addProperty("min_ns", min());
    out.addProperty("p50_ns", valueAtPercentile(50));
    out.addProperty("p99_ns", valueAtPercentile(99));
    out.addProperty("p999_ns", valueAtPercentile(99.9));
    out.addProperty("max_ns", max);
  }

  /** The non-empty buckets as [[index, count], ...]. */
  public JsonArray sparseBuckets() {
    JsonArray buckets = new JsonArray();
    if (total == 0) {
      return buckets;
    }
    for (int i = bucketOf(min); i <= bucketOf(max); i++) {
      if (counts[i] != 0) {
        JsonArray pair = new JsonArray();
        pair.add(i);
        pair.add(counts[i]);
        buckets.add(pair);
      }
    }
    return buckets;
  }
}
