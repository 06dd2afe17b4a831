// What every IDL client's invocation shapes share (PROTOCOL.md, "Invocation shapes"), whatever the middleware:
// the shape operations of each payload type by their names in orbench.idl, the bookkeeping of an AMI run (its
// outstanding calls, samples and replies), and the faults a check-target test injects.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "clock.hpp"
#include "run_spec.hpp"
#include "worker_error.hpp"

namespace orbench {

// The shape operations of each payload type, by their names in orbench.idl.
template <PayloadType T, typename Stub, typename... Args>
decltype(auto) call_out(Stub& s, Args&&... a) {
  if constexpr (T == PayloadType::octets) return s.out_octets(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::records) return s.out_records(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::longs) return s.out_longs(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::doubles) return s.out_doubles(std::forward<Args>(a)...);
  else return s.out_strings(std::forward<Args>(a)...);
}
template <PayloadType T, typename Stub, typename... Args>
decltype(auto) call_return(Stub& s, Args&&... a) {
  if constexpr (T == PayloadType::octets) return s.return_octets(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::records) return s.return_records(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::longs) return s.return_longs(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::doubles) return s.return_doubles(std::forward<Args>(a)...);
  else return s.return_strings(std::forward<Args>(a)...);
}
template <PayloadType T, typename Stub, typename... Args>
decltype(auto) call_inout(Stub& s, Args&&... a) {
  if constexpr (T == PayloadType::octets) return s.inout_octets(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::records) return s.inout_records(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::longs) return s.inout_longs(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::doubles) return s.inout_doubles(std::forward<Args>(a)...);
  else return s.inout_strings(std::forward<Args>(a)...);
}
template <PayloadType T, typename Stub, typename... Args>
decltype(auto) call_raise(Stub& s, Args&&... a) {
  if constexpr (T == PayloadType::octets) return s.raise_octets(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::records) return s.raise_records(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::longs) return s.raise_longs(std::forward<Args>(a)...);
  else if constexpr (T == PayloadType::doubles) return s.raise_doubles(std::forward<Args>(a)...);
  else return s.raise_strings(std::forward<Args>(a)...);
}

[[noreturn]] inline void wrong_reply(const char* what, uint64_t call) {
  throw WorkerError(ErrorKind::remote, std::string(what) + " (call " + std::to_string(call) + ")");
}

// A fault a check-target test asks a worker to have (environment ORBENCH_FAULT; PROTOCOL.md, "Invocation
// shapes"): "" in every real run.
inline const std::string& injected_fault() {
  static const std::string fault = [] {
    const char* value = std::getenv("ORBENCH_FAULT");
    return std::string(value != nullptr ? value : "");
  }();
  return fault;
}

// How long an AMI run waits for a reply before it calls the reply lost: 10 s; 1 s under the fault ami_lost,
// whose dropped replies never come, so its test does not wait out 10 s at each AMI step.
inline std::chrono::milliseconds reply_wait() {
  return std::chrono::milliseconds(injected_fault() == "ami_lost" ? 1000 : 10000);
}

// The calls of one AMI run: up to `outstanding` in flight, each slot's handler completing its call. Samples
// are send-to-reply times; an echo reply is checked after its time is taken.
class AmiRun {
 public:
  explicit AmiRun(int64_t* samples_ns) : samples_(samples_ns) {}

  // Call `call` goes out on slot `slot` at `at`.
  void started(uint32_t slot, uint64_t call, int64_t at) {
    std::lock_guard<std::mutex> lock(mutex_);
    slots_.at(slot) = {call, at};
    ++in_flight_;
    outstanding_max_ = std::max(outstanding_max_, in_flight_);
  }
  // The reply of slot `slot` arrived at `at`; `ok` false: it was not the reply asked for (`why`).
  void finished(uint32_t slot, int64_t at, bool ok, const std::string& why = "") {
    std::lock_guard<std::mutex> lock(mutex_);
    if (samples_ == nullptr) return;  // a reply after the run ended
    const auto [call, start] = slots_.at(slot);
    // The fault ami_lost drops every eighth reply, as if it never came.
    if (lose_ && call % 8 == 7) return;
    samples_[call] = at - start;
    end_ns_ = std::max(end_ns_, at);
    if (!ok && error_.empty()) error_ = why + " (call " + std::to_string(call) + ")";
    ++replies_;
    --in_flight_;
    free_.push_back(slot);
    changed_.notify_all();
  }
  // Waits for a free slot; false when none came within `timeout`.
  bool take_slot(uint32_t& slot, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!changed_.wait_for(lock, timeout, [&] { return !free_.empty() || !error_.empty(); })) return false;
    if (!error_.empty()) throw WorkerError(ErrorKind::remote, "AMI: " + error_);
    slot = free_.back();
    free_.pop_back();
    return true;
  }
  bool wait_all(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return in_flight_ == 0; });
  }
  // Ends the run: a reply that still comes (a run that failed) touches neither the samples nor the counts.
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    samples_ = nullptr;
  }
  void set_slots(uint32_t n, bool lose) {
    slots_.assign(n, {0, 0});
    for (uint32_t k = n; k > 0; --k) free_.push_back(k - 1);
    lose_ = lose;
  }
  uint64_t replies() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return replies_;
  }
  uint32_t outstanding_max() const { return outstanding_max_; }
  int64_t end_ns() const { return end_ns_; }
  std::string error() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return error_;
  }
  // What an echo reply must be (nullptr for twoway), read by the handlers.
  const void* expected = nullptr;
  bool (*check)(const void* expected, const void* reply) = nullptr;

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  int64_t* samples_;
  std::vector<std::pair<uint64_t, int64_t>> slots_;
  std::vector<uint32_t> free_;
  uint32_t in_flight_ = 0;
  uint32_t outstanding_max_ = 0;
  uint64_t replies_ = 0;
  int64_t end_ns_ = 0;
  bool lose_ = false;
  std::string error_;
};

}  // namespace orbench
