// The server's received-message counters and the sync barrier on them, shared by every C++ server worker.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "bench_driver.hpp"

namespace orbench {

class MessageCounter {
 public:
  // Counts one payload-carrying request. Lock-free unless a sync() is waiting.
  void count(uint64_t payload_bytes) {
    messages_.fetch_add(1);
    bytes_.fetch_add(payload_bytes);
    // Wake waiters under the mutex: a waiter that has just found the count too low is either still holding
    // the mutex (so we block until it sleeps and then wake it) or has not yet registered, in which case its
    // check will see our increment (both atomics are sequentially consistent).
    if (waiters_.load() > 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      reached_.notify_all();
    }
  }

  void reset() {
    messages_.store(0);
    bytes_.store(0);
  }

  Counts snapshot() const { return {messages_.load(), bytes_.load()}; }

  // The barrier: returns when `expected` messages have been counted since the last reset, or when
  // `timeout_ms` has passed (complete = false).
  SyncOutcome wait_for(uint64_t expected, uint32_t timeout_ms);

 private:
  std::atomic<uint64_t> messages_{0};
  std::atomic<uint64_t> bytes_{0};
  std::atomic<int> waiters_{0};
  std::mutex mutex_;
  std::condition_variable reached_;
};

}  // namespace orbench
