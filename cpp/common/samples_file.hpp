// The samples file of a run: `calls` little-endian signed 64-bit nanosecond latencies, no header (.i64).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace orbench {

// Writes the whole file at once (after the timed loop, never during it). Throws WorkerError(internal).
void write_samples_file(const std::string& path, const std::vector<int64_t>& samples_ns);

// Reads a samples file back; used by the tests.
std::vector<int64_t> read_samples_file(const std::string& path);

}  // namespace orbench
