// The fixed-size latency histogram of a soak run (PROTOCOL.md, "Soak runs: the histogram"): log-linear
// buckets with a relative width of at most 1/128, exact below 256 ns. Its layout is HdrHistogram's counts
// array at 2 significant digits (256 sub-buckets, 1 ns unit), so the harness turns it into an HdrHistogram
// without loss. Fixed size whatever the number of samples: a soak's memory stays flat.
#pragma once

#include <array>
#include <cstdint>

namespace orbench {

class LatencyHistogram {
 public:
  // Values 0 .. 2^63-1: 256 exact buckets, then 128 per power of two from 2^8 to 2^62.
  static constexpr int kSubBucketBits = 7;
  static constexpr int kBuckets = (63 - kSubBucketBits) * (1 << kSubBucketBits) + (1 << kSubBucketBits);

  // The bucket of `value` (negative values count as 0).
  static int bucket_of(int64_t value) {
    if (value < 0) value = 0;
    const auto v = static_cast<uint64_t>(value);
    if (v < (uint64_t{1} << (kSubBucketBits + 1))) return static_cast<int>(v);
    const int exponent = 63 - __builtin_clzll(v);  // >= kSubBucketBits + 1
    const int shift = exponent - kSubBucketBits;
    return shift * (1 << kSubBucketBits) + static_cast<int>(v >> shift);
  }
  // The lowest and highest value that falls in bucket `index`.
  static int64_t lowest_in(int index);
  static int64_t highest_in(int index);

  void record(int64_t value) {
    if (value < 0) value = 0;
    ++counts_[bucket_of(value)];
    ++total_;
    if (total_ == 1 || value < min_) min_ = value;
    if (value > max_) max_ = value;
  }
  void add(const LatencyHistogram& other);
  void clear();

  uint64_t count() const { return total_; }
  uint64_t count_in(int index) const { return counts_[index]; }
  int64_t min() const { return total_ == 0 ? 0 : min_; }
  int64_t max() const { return max_; }
  // The highest value of the bucket that holds the sample of rank ceil(percentile / 100 * count) (1-based,
  // ascending; rank 1 at least), capped at the exact maximum; 0 when empty.
  int64_t value_at_percentile(double percentile) const;

 private:
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t total_ = 0;
  int64_t min_ = 0;
  int64_t max_ = 0;
};

}  // namespace orbench
