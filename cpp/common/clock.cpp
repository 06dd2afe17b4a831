#include "clock.hpp"

#include <cstdlib>

namespace orbench {

double timer_cost_ns(int reads) {
  // Keep a data dependency on each read so the compiler cannot drop any of them.
  int64_t sink = 0;
  const int64_t start = monotonic_ns();
  for (int i = 0; i < reads; ++i) sink += monotonic_ns();
  const int64_t end = monotonic_ns();
  volatile int64_t keep = sink;
  (void)keep;
  return static_cast<double>(end - start) / reads;
}

int timer_reads() {
  const char* value = std::getenv("ORBENCH_TIMER_READS");
  const long reads = value != nullptr ? std::strtol(value, nullptr, 10) : 0;
  return reads >= 1 && reads <= 1'000'000 ? static_cast<int>(reads) : 1'000'000;
}

}  // namespace orbench
