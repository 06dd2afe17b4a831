#include "clock.hpp"

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

}  // namespace orbench
