// Which object each call of a run goes to (PROTOCOL.md, "Load at scale"): drawn before timing, so a timed call
// only looks its object up.
#pragma once

#include <cstdint>
#include <vector>

#include "load_spec.hpp"

namespace orbench {

// The object of calls 0 .. calls - 1 among `objects`: round-robin, i mod objects; random, the i-th output of
// SplitMix64(seed) mod objects (the Java workers draw the same).
std::vector<uint32_t> object_order(ObjectOrder order, uint32_t objects, uint64_t calls, uint64_t seed);

// The most references one `references(first, count)` call asks for.
inline constexpr uint32_t kReferencesPerCall = 1000;

}  // namespace orbench
