#include "object_order.hpp"

#include "arrivals.hpp"

namespace orbench {

std::vector<uint32_t> object_order(ObjectOrder order, uint32_t objects, uint64_t calls, uint64_t seed) {
  std::vector<uint32_t> out(calls);
  if (order == ObjectOrder::random) {
    SplitMix64 random(seed);
    for (auto& object : out) object = static_cast<uint32_t>(random.next() % objects);
  } else {
    for (uint64_t i = 0; i < calls; ++i) out[i] = static_cast<uint32_t>(i % objects);
  }
  return out;
}

}  // namespace orbench
