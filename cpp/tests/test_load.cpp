// The load fields of `run`: their validation, the shared-server run sequence (no reset, barriers on the
// group's sums), and the fixed-rate loop (samples from the intended send time, deadline misses).
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "bench_driver.hpp"
#include "check.hpp"
#include "load_spec.hpp"
#include "worker_error.hpp"

using namespace orbench;
using nlohmann::json;

namespace {

// Records the run sequence as words; the server is shared by `others` clients that each send as many calls.
class SharedServerDriver final : public BenchDriver {
 public:
  std::vector<std::string> log;
  uint64_t server_messages = 0;
  uint64_t others = 0;

  void prepare(const RunSpec&) override {}
  void reset_counters() override { log.push_back("reset"); }
  Counts counters() override { return {server_messages, 0}; }
  SyncOutcome sync(uint64_t expected, uint32_t) override {
    log.push_back("sync " + std::to_string(expected));
    return {server_messages >= expected, {server_messages, 0}};
  }
  void untimed_calls(uint64_t calls) override {
    log.push_back("warmup " + std::to_string(calls));
    server_messages += calls * (1 + others);  // the other clients warm up at the same time
  }
  TimedSpan timed_calls(int64_t* samples_ns, uint64_t calls) override {
    log.push_back("timed " + std::to_string(calls));
    for (uint64_t i = 0; i < calls; ++i) samples_ns[i] = 1;
    server_messages += calls * (1 + others);
    return {10, 20};
  }
};

void load_spec_validation() {
  json c = json::parse(R"({"cmd":"run","mode":"twoway","rate_hz":1000,"clients":4})");
  const LoadSpec load = take_load_spec(c);
  CHECK(load.rate_hz == 1000 && load.clients == 4 && load.shared());
  CHECK(!c.contains("rate_hz") && !c.contains("clients") && c.contains("mode"));  // taken out for parse_run_spec
  json none = json::parse(R"({"cmd":"run"})");
  const LoadSpec defaults = take_load_spec(none);
  CHECK(defaults.rate_hz == 0 && defaults.clients == 1 && !defaults.shared());
  for (const char* bad : {R"({"rate_hz":-1})", R"({"rate_hz":"10"})", R"({"rate_hz":2000000})", R"({"clients":0})",
                          R"({"clients":1.5})", R"({"clients":"2"})"}) {
    json b = json::parse(bad);
    CHECK_WORKER_ERROR(take_load_spec(b), ErrorKind::usage);
  }
}

void shared_sequence() {
  SharedServerDriver driver;
  driver.others = 2;
  RunSpec spec;
  spec.mode = Mode::oneway;
  spec.calls = 10;
  spec.warmup = 5;
  spec.samples_file = "/tmp/orbench-test-load-" + std::to_string(getpid()) + ".i64";
  LoadSpec load;
  load.clients = 3;
  const auto answer = run_benchmark(driver, spec, load);
  // Never a reset (the harness reset the shared server once); a start barrier on 3 x 5 warm-up messages, a
  // closing barrier on 3 x (5 + 10).
  const std::vector<std::string> want = {"warmup 5", "sync 15", "timed 10", "sync 45"};
  CHECK(driver.log == want);
  CHECK(answer["sync"]["complete"] == true && answer["start_barrier"]["complete"] == true);
  CHECK(answer["received"]["messages"] == 45 && answer["clients"] == 3);
  CHECK(answer.contains("start_ns") && answer.contains("end_ns"));
  ::unlink(spec.samples_file.c_str());

  // One client: the sequence of PROTOCOL.md as before.
  SharedServerDriver single;
  run_benchmark(single, spec, LoadSpec{});
  const std::vector<std::string> classic = {"reset", "warmup 5", "sync 5", "reset", "timed 10", "sync 10"};
  CHECK(single.log == classic);
  ::unlink(spec.samples_file.c_str());
}

void paced_loop_times_from_intended_send() {
  // 1 kHz, 60 calls; call 10 stalls 30 ms. Calls 11..~39 were due during the stall: they go out late, at
  // once, and their samples count from their intended send times.
  std::vector<int64_t> samples(60);
  const int64_t started = monotonic_ns();
  TimedSpan span;
  {
    PacingScope pacing(1000);
    span = timed_loop(
        samples.data(), samples.size(),
        [](uint64_t i) {
          if (i == 10) std::this_thread::sleep_for(std::chrono::milliseconds(30));
        },
        [](uint64_t) {});
  }
  const int64_t took = monotonic_ns() - started;
  CHECK(took >= 59'000'000);  // paced: 60 calls at 1 kHz take at least 59 ms
  CHECK(samples[10] >= 30'000'000);
  int above = 0;
  for (int64_t s : samples) above += s > 1'000'000;
  CHECK(above >= 20);                  // the stall shows in every call that was due during it
  CHECK(samples[11] >= 28'000'000);    // due 1 ms after call 10, sent 30 ms after it
  // A miss is a sample above one period (completion after the next call's intended send time).
  CHECK(span.deadline_misses == static_cast<uint64_t>(above));
  CHECK(span.last_send_ns > span.first_send_ns && span.start_ns <= span.first_send_ns);

  // Warm-up calls (outside a PacingScope) run closed: 100 calls take far less than 100 ms.
  std::vector<int64_t> closed(100);
  const int64_t t0 = monotonic_ns();
  timed_loop(closed.data(), closed.size(), [](uint64_t) {}, [](uint64_t) {});
  CHECK(monotonic_ns() - t0 < 50'000'000);
}

// A paced wait sets its thread's timer slack to 1 ns (pacing.hpp says why); a thread that never waits keeps its own.
void paced_wait_sets_a_precise_timer_slack() {
  long before = -1, after = -1, other = -1;
  std::thread([&] {
    prctl(PR_SET_TIMERSLACK, 50'000UL, 0UL, 0UL, 0UL);
    before = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
    wait_until(monotonic_ns() + 100'000);
    after = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
  }).join();
  std::thread([&] {
    prctl(PR_SET_TIMERSLACK, 50'000UL, 0UL, 0UL, 0UL);
    other = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
  }).join();
  CHECK(before == 50'000);
  CHECK(after == 1);
  CHECK(other == 50'000);
}

// A late call still sleeps the least sleep it is given (the counting mode's, pacing.hpp says why).
void late_paced_wait_sleeps_the_least_sleep() {
  const int64_t start = monotonic_ns();
  wait_until(start - 1'000'000, 2'000'000);  // a deadline 1 ms past: without the least sleep, no wait at all
  CHECK(monotonic_ns() - start >= 2'000'000);
}

// The spin before a paced call: the whole kSpinNs at a low rate, and no more than kSpinCpuShare of the
// process's CPUs at a high one (pacing.hpp: spins at every call of a fast server's rate filled the clients' CPU).
void paced_spin_keeps_to_its_share_of_the_cpus() {
  CHECK(paced_spin_ns(10'000'000) == kSpinNs);  // 100 calls/s
  const int64_t period = 20'000;                 // 50,000 calls/s
  const int64_t spin = paced_spin_ns(period);
  CHECK(spin > 0);
  CHECK(static_cast<double>(spin) <= kSpinCpuShare * usable_cpus() * period);
  CHECK(paced_spin_ns(0) == 0);
}

}  // namespace

int main() {
  load_spec_validation();
  shared_sequence();
  paced_loop_times_from_intended_send();
  paced_wait_sets_a_precise_timer_slack();
  late_paced_wait_sleeps_the_least_sleep();
  paced_spin_keeps_to_its_share_of_the_cpus();
  return orbench_test::finish("test_load");
}
