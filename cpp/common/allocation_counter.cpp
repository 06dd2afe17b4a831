// The counting malloc/calloc/realloc of allocation_counter.hpp. Each thread counts into a slot of its own
// (a plain load and store, no atomic read-modify-write, so no bus lock per allocation); readers add the slots
// up. The slots are static storage and a thread reaches its own through initial-exec TLS: nothing here
// allocates, so the replacement is safe from the first malloc of the dynamic loader on.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "allocation_counter.hpp"

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
}

namespace orbench {
namespace {

struct alignas(64) Slot {  // one cache line per thread: no false sharing between threads
  std::atomic<uint64_t> allocations{0};
  std::atomic<uint64_t> bytes{0};
};

// Enough for the threads any worker starts (thread-per-connection servers included); threads beyond it share
// the overflow slot with atomic adds.
constexpr size_t kSlots = 4096;
Slot slots[kSlots];
Slot overflow;
std::atomic<size_t> slots_used{0};
__thread Slot* own_slot __attribute__((tls_model("initial-exec"))) = nullptr;

inline void count(size_t bytes) {
  Slot* slot = own_slot;
  if (slot == nullptr) {
    const size_t index = slots_used.fetch_add(1, std::memory_order_relaxed);
    slot = index < kSlots ? &slots[index] : &overflow;
    own_slot = slot;
  }
  if (slot == &overflow) {
    overflow.allocations.fetch_add(1, std::memory_order_relaxed);
    overflow.bytes.fetch_add(bytes, std::memory_order_relaxed);
    return;
  }
  // Only this thread writes its slot: load + store is an exact count, and readers see a recent value.
  slot->allocations.store(slot->allocations.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  slot->bytes.store(slot->bytes.load(std::memory_order_relaxed) + bytes, std::memory_order_relaxed);
}

}  // namespace

AllocationCounts process_allocations() {
  AllocationCounts total;
  const size_t used = slots_used.load(std::memory_order_relaxed);
  for (size_t i = 0; i < used && i < kSlots; ++i) {
    total.allocations += slots[i].allocations.load(std::memory_order_relaxed);
    total.bytes += slots[i].bytes.load(std::memory_order_relaxed);
  }
  total.allocations += overflow.allocations.load(std::memory_order_relaxed);
  total.bytes += overflow.bytes.load(std::memory_order_relaxed);
  return total;
}

bool counting_allocations() { return true; }

}  // namespace orbench

extern "C" {

void* malloc(size_t size) {
  orbench::count(size);
  return __libc_malloc(size);
}

void* calloc(size_t count, size_t size) {
  size_t bytes = 0;
  orbench::count(__builtin_mul_overflow(count, size, &bytes) ? SIZE_MAX : bytes);
  return __libc_calloc(count, size);
}

void* realloc(void* pointer, size_t size) {
  orbench::count(size);
  return __libc_realloc(pointer, size);
}

}  // extern "C"
