// The counting malloc (common/allocation_counter.hpp): every malloc, calloc, realloc and operator new of the
// process is counted with the bytes asked for, in this thread and in threads that have ended. Prints the
// counter's cost per allocation, measured against glibc's own malloc in the same run.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "allocation_counter.hpp"
#include "check.hpp"

extern "C" void* __libc_malloc(size_t size);
extern "C" void __libc_free(void* pointer);

using orbench::AllocationCounts;
using orbench::process_allocations;

namespace {

// volatile sinks keep the compiler from removing an allocation whose result is unused.
void* volatile sink;

void counts_this_thread() {
  const AllocationCounts before = process_allocations();
  for (int i = 0; i < 100; ++i) {
    void* p = std::malloc(40);
    sink = p;
    std::free(p);
  }
  void* c = std::calloc(10, 8);
  sink = c;
  void* r = std::realloc(c, 1000);
  sink = r;
  std::free(r);
  const AllocationCounts d = process_allocations() - before;
  // Exactly ours: nothing else runs in this process between the two reads.
  CHECK(d.allocations == 102);
  CHECK(d.bytes == 100 * 40 + 80 + 1000);
}

void counts_operator_new() {
  const AllocationCounts before = process_allocations();
  auto vector = std::make_unique<std::vector<char>>(5000);
  sink = vector.get();
  const AllocationCounts d = process_allocations() - before;
  CHECK(d.allocations == 2);  // the vector object and its 5000 bytes
  CHECK(d.bytes == sizeof(std::vector<char>) + 5000);
}

void counts_ended_threads() {
  const AllocationCounts before = process_allocations();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 1000; ++i) {
        void* p = std::malloc(16);
        sink = p;
        std::free(p);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  // Starting a thread allocates too (its stack is mmap'ed, but libstdc++ allocates its state): at least ours.
  const AllocationCounts d = process_allocations() - before;
  CHECK(d.allocations >= 4000 && d.allocations < 4100);
  CHECK(d.bytes >= 4000 * 16);
}

// The cost of counting: malloc+free pairs through the counting malloc and through glibc's directly, several
// alternating rounds, best round of each. Printed, not asserted: a loaded machine makes timing flaky.
void print_cost() {
  constexpr int kPairs = 2000000;
  auto round = [](bool counted) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kPairs; ++i) {
      void* p = counted ? std::malloc(64) : __libc_malloc(64);
      sink = p;
      counted ? std::free(p) : __libc_free(p);
    }
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / kPairs;
  };
  double best_counted = 1e9, best_plain = 1e9;
  for (int r = 0; r < 5; ++r) {
    best_plain = std::min(best_plain, round(false));
    best_counted = std::min(best_counted, round(true));
  }
  std::printf("malloc+free: %.2f ns counted, %.2f ns uncounted: the counter costs %.2f ns per allocation\n",
              best_counted, best_plain, best_counted - best_plain);
}

}  // namespace

int main() {
  CHECK(orbench::counting_allocations());
  counts_this_thread();
  counts_operator_new();
  counts_ended_threads();
  print_cost();
  return orbench_test::finish("test_allocation_counter");
}
