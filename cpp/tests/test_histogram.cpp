// The soak histogram: the bucket scheme of PROTOCOL.md (exact below 256, relative width at most 1/128, the
// layout of HdrHistogram's counts at 2 significant digits) and its percentiles against exact ones.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "check.hpp"
#include "histogram.hpp"

using orbench::LatencyHistogram;

namespace {

void bucket_scheme() {
  CHECK(LatencyHistogram::kBuckets == 7296);
  for (int64_t v = 0; v < 256; ++v) CHECK(LatencyHistogram::bucket_of(v) == v);
  // The first buckets of width 2, 4: HdrHistogram's counts index at 2 significant digits.
  CHECK(LatencyHistogram::bucket_of(256) == 256 && LatencyHistogram::bucket_of(257) == 256);
  CHECK(LatencyHistogram::bucket_of(258) == 257 && LatencyHistogram::bucket_of(511) == 383);
  CHECK(LatencyHistogram::bucket_of(512) == 384 && LatencyHistogram::bucket_of(515) == 384);
  CHECK(LatencyHistogram::bucket_of(-5) == 0);
  CHECK(LatencyHistogram::bucket_of(INT64_MAX) == LatencyHistogram::kBuckets - 1);
  CHECK(LatencyHistogram::highest_in(LatencyHistogram::kBuckets - 1) == INT64_MAX);
  // Every bucket: contiguous with the next, its bounds map back to it, its width at most 1/128 of its values.
  bool contiguous = true, maps_back = true, narrow = true;
  for (int i = 0; i < LatencyHistogram::kBuckets; ++i) {
    const int64_t lo = LatencyHistogram::lowest_in(i), hi = LatencyHistogram::highest_in(i);
    maps_back &= LatencyHistogram::bucket_of(lo) == i && LatencyHistogram::bucket_of(hi) == i;
    if (i + 1 < LatencyHistogram::kBuckets) contiguous &= LatencyHistogram::lowest_in(i + 1) == hi + 1;
    narrow &= static_cast<double>(hi - lo + 1) <= std::max(1.0, static_cast<double>(lo) / 128.0);
  }
  CHECK(contiguous);
  CHECK(maps_back);
  CHECK(narrow);
}

void percentiles_within_the_bound() {
  // Log-normal latencies around 50 us with a long tail, against exact order statistics.
  std::mt19937_64 random(12);
  std::lognormal_distribution<double> latency(std::log(50'000.0), 0.8);
  std::vector<int64_t> values(200'000);
  LatencyHistogram h;
  for (auto& v : values) {
    v = static_cast<int64_t>(latency(random));
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  CHECK(h.count() == values.size());
  CHECK(h.min() == values.front() && h.max() == values.back());
  for (const double p : {50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
    const int64_t exact = values[rank - 1];
    const int64_t got = h.value_at_percentile(p);
    CHECK(got >= exact);                                             // the bucket's highest value
    CHECK(static_cast<double>(got) <= static_cast<double>(exact) * (1 + 1.0 / 128) + 1);
  }
  CHECK(h.value_at_percentile(100) == h.max());
}

void add_and_clear() {
  LatencyHistogram a, b, empty;
  CHECK(empty.value_at_percentile(50) == 0 && empty.min() == 0 && empty.max() == 0);
  for (int64_t v : {100, 200, 300}) a.record(v);
  for (int64_t v : {5, 1'000'000}) b.record(v);
  a.add(b);
  a.add(empty);
  CHECK(a.count() == 5 && a.min() == 5 && a.max() == 1'000'000);
  CHECK(a.value_at_percentile(50) == 200);  // exact below 256
  a.clear();
  CHECK(a.count() == 0 && a.max() == 0);
  a.record(7);
  CHECK(a.min() == 7 && a.max() == 7);
}

}  // namespace

int main() {
  bucket_scheme();
  percentiles_within_the_bound();
  add_and_clear();
  return orbench_test::finish("test_histogram");
}
