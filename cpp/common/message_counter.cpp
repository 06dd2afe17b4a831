#include "message_counter.hpp"

#include <chrono>

namespace orbench {

SyncOutcome MessageCounter::wait_for(uint64_t expected, uint32_t timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::unique_lock<std::mutex> lock(mutex_);
  waiters_.fetch_add(1);
  const bool complete = reached_.wait_until(lock, deadline, [&] { return messages_.load() >= expected; });
  waiters_.fetch_sub(1);
  return {complete, snapshot()};
}

}  // namespace orbench
