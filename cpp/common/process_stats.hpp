// This process's resident memory and CPU time, for a soak's intervals (a leak or a busy loop shows over time).
#pragma once

#include <cstdint>

namespace orbench {

// Resident set size in bytes (/proc/self/statm), -1 where it cannot be read.
int64_t resident_bytes();
// User + system CPU time of the whole process, all threads, in ns.
int64_t process_cpu_ns();

}  // namespace orbench
