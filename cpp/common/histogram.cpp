#include "histogram.hpp"

#include <cmath>

namespace orbench {

int64_t LatencyHistogram::lowest_in(int index) {
  constexpr int sub = 1 << kSubBucketBits;
  if (index < 2 * sub) return index;
  const int shift = index / sub - 1;
  const int64_t sub_index = index - shift * sub;  // in [sub, 2 * sub)
  return sub_index << shift;
}

int64_t LatencyHistogram::highest_in(int index) {
  constexpr int sub = 1 << kSubBucketBits;
  if (index < 2 * sub) return index;
  const int shift = index / sub - 1;
  return lowest_in(index) + (int64_t{1} << shift) - 1;
}

void LatencyHistogram::add(const LatencyHistogram& other) {
  if (other.total_ == 0) return;
  for (int i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  if (total_ == 0 || other.min_ < min_) min_ = other.min_;
  if (other.max_ > max_) max_ = other.max_;
  total_ += other.total_;
}

void LatencyHistogram::clear() {
  counts_.fill(0);
  total_ = 0;
  min_ = 0;
  max_ = 0;
}

int64_t LatencyHistogram::value_at_percentile(double percentile) const {
  if (total_ == 0) return 0;
  double wanted = std::ceil(percentile / 100.0 * static_cast<double>(total_));
  if (wanted < 1) wanted = 1;
  const auto rank = static_cast<uint64_t>(wanted);
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) return highest_in(i) < max_ ? highest_in(i) : max_;
  }
  return max_;
}

}  // namespace orbench
