// The server-side barrier: sync returns as soon as the count is reached, and reports a timeout otherwise.
#include <chrono>
#include <thread>

#include "check.hpp"
#include "message_counter.hpp"

using namespace orbench;
using Clock = std::chrono::steady_clock;

int main() {
  MessageCounter counter;
  counter.count(10);
  counter.count(6);
  CHECK(counter.snapshot().messages == 2 && counter.snapshot().bytes == 16);
  counter.reset();
  CHECK(counter.snapshot().messages == 0 && counter.snapshot().bytes == 0);

  // Already reached: no waiting.
  CHECK(counter.wait_for(0, 0).complete);

  // Reached by another thread while waiting: wakes well before the 10 s timeout.
  std::thread sender([&] {
    for (int i = 0; i < 100000; ++i) counter.count(1);
  });
  const auto start = Clock::now();
  const SyncOutcome outcome = counter.wait_for(100000, 10000);
  const auto waited = Clock::now() - start;
  sender.join();
  CHECK(outcome.complete);
  CHECK(outcome.received.messages == 100000 && outcome.received.bytes == 100000);
  CHECK(waited < std::chrono::seconds(5));

  // Not reached: times out after about timeout_ms and says so.
  const auto timeout_start = Clock::now();
  const SyncOutcome timed_out = counter.wait_for(100001, 50);
  const auto timeout_waited = Clock::now() - timeout_start;
  CHECK(!timed_out.complete && timed_out.received.messages == 100000);
  CHECK(timeout_waited >= std::chrono::milliseconds(50) && timeout_waited < std::chrono::seconds(5));
  return orbench_test::finish("test_message_counter");
}
