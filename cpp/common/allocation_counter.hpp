// Heap allocations of the whole worker process, counted by a replacement of malloc, calloc and realloc that
// counts each call and hands it to glibc's own allocator (__libc_malloc & co.). Every allocation of the
// worker's code, of the ORB's libraries and of libstdc++'s operator new goes through them. Not counted: the
// aligned forms (posix_memalign, aligned_alloc, memalign, aligned operator new), which go to glibc directly.
//
// The replacement lives in allocation_counter.cpp, an object linked into every C++ worker executable (CMake
// target orbench_allocation_counter): an executable's malloc interposes on the one in libc for every library
// it loads. Without it (or where glibc does not export __libc_malloc), counting_allocations() is false and
// process_allocations() stays zero.
#pragma once

#include <cstdint>

namespace orbench {

struct AllocationCounts {
  uint64_t allocations = 0;  // calls of malloc, calloc, realloc since the process started
  uint64_t bytes = 0;        // bytes they asked for
};

// The sum over every thread that ever allocated (a thread that ended still counts).
AllocationCounts process_allocations();

// True when the counting replacement is linked into this executable.
bool counting_allocations();

inline AllocationCounts operator-(const AllocationCounts& a, const AllocationCounts& b) {
  return {a.allocations - b.allocations, a.bytes - b.bytes};
}

}  // namespace orbench
