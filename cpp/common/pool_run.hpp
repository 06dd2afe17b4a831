// The run sequence of a client process whose calls are made by several threads (PROTOCOL.md, "Load at
// scale"): one pool of threads x calls numbered calls, the warm-up pool before it, the barriers on the sums.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_driver.hpp"

namespace orbench {

// How long after the threads are released a paced pool's t_0 lies: every thread is awake and waiting for its
// first call's send time by then, so no call is late for the wake-up alone.
inline constexpr int64_t kPoolStartLeadNs = 1'000'000;

// Runs `pool` on `threads` threads, each calling driver.pool_calls(k, pool), released together once all have
// started (a paced pool's t0_ns is set then). The first failure of any thread drains the pool and is rethrown.
std::vector<ThreadTally> run_pool(BenchDriver& driver, CallPool& pool, uint32_t threads);

// The run sequence with load.threads > 1, after use_scale(); returns the answer's fields.
nlohmann::ordered_json run_pool_benchmark(BenchDriver& driver, const RunSpec& spec, const LoadSpec& load,
                                          uint64_t seed);

}  // namespace orbench
