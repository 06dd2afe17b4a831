// Abseil as a release build has it, in both gRPC workers.
#pragma once

namespace orbench {

// Debian's abseil (libabsl-dev 20220623) is compiled without NDEBUG, so every absl::Mutex lock that gRPC takes
// also runs absl's debug-only deadlock detector: a graph of lock order keyed by the mutexes' addresses. Counted
// under callgrind that was 17% of gRPC's server instructions per call (oneway 1 KB: 22,500 -> 18,600) and, being
// keyed by heap addresses, a source of counts that differ between processes. A build with NDEBUG (release) never
// runs it; turning it off measures gRPC as released. Call first thing in main.
void absl_checks_as_in_release();

}  // namespace orbench
