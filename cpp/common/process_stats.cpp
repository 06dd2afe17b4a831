#include "process_stats.hpp"

#include <unistd.h>

#include <cstdio>
#include <ctime>

namespace orbench {

int64_t resident_bytes() {
  FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return -1;
  long long size_pages = 0, resident_pages = 0;
  const int read = std::fscanf(statm, "%lld %lld", &size_pages, &resident_pages);
  std::fclose(statm);
  if (read != 2) return -1;
  return resident_pages * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

int64_t process_cpu_ns() {
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return -1;
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace orbench
