// The server's received-message counters and the sync barrier on them, shared by every C++ server worker.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include "bench_driver.hpp"

namespace orbench {

class MessageCounter {
 public:
  // Counts one payload-carrying request. Lock-free unless a sync() is waiting.
  void count(uint64_t payload_bytes) {
    // Bytes first: once `messages` reaches a barrier's target, the bytes of those messages are in, and a reset
    // right after the barrier cannot be followed by a late add of a counted message's bytes.
    bytes_.fetch_add(payload_bytes);
    messages_.fetch_add(1);
    // Wake waiters under the mutex: a waiter that has just found the count too low is either still holding
    // the mutex (so we block until it sleeps and then wake it) or has not yet registered, in which case its
    // check will see our increment (both atomics are sequentially consistent).
    if (waiters_.load() > 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      reached_.notify_all();
    }
  }

  // The same for a request to object `object` of a server with several (PROTOCOL.md, "--objects K"): also
  // marks the object called, so that `stats` can say how many distinct objects were (objects_called).
  void count(uint64_t payload_bytes, uint32_t object) {
    // Marked before it is counted: once a barrier sees the message, its object is marked too.
    if (!called_[object].load(std::memory_order_relaxed) && !called_[object].exchange(true)) {
      objects_called_.fetch_add(1);
    }
    count(payload_bytes);
  }

  // A server with `objects` objects (before any request): count(bytes, object) takes object 0 .. objects - 1.
  void track_objects(uint32_t objects) {
    called_ = std::make_unique<std::atomic<bool>[]>(objects);
    tracked_objects_ = objects;
    for (uint32_t k = 0; k < objects; ++k) called_[k].store(false);
  }
  bool tracks_objects() const { return tracked_objects_ > 0; }
  // How many distinct objects received a payload-carrying request since the last reset.
  uint64_t objects_called() const { return objects_called_.load(); }

  void reset() {
    messages_.store(0);
    bytes_.store(0);
    for (uint32_t k = 0; k < tracked_objects_; ++k) called_[k].store(false, std::memory_order_relaxed);
    objects_called_.store(0);
  }

  Counts snapshot() const { return {messages_.load(), bytes_.load()}; }

  // The barrier: returns when `expected` messages have been counted since the last reset, or when
  // `timeout_ms` has passed (complete = false).
  SyncOutcome wait_for(uint64_t expected, uint32_t timeout_ms);

 private:
  std::atomic<uint64_t> messages_{0};
  std::atomic<uint64_t> bytes_{0};
  std::atomic<int> waiters_{0};
  std::unique_ptr<std::atomic<bool>[]> called_;  // per object: called since the last reset
  uint32_t tracked_objects_ = 0;
  std::atomic<uint64_t> objects_called_{0};
  std::mutex mutex_;
  std::condition_variable reached_;
};

}  // namespace orbench
