// Load at scale (PROTOCOL.md, "Load at scale"): the threads and objects fields, the object order, and the
// pool of numbered calls shared by threads (every call made once, the run sequence's barriers on the sums,
// paced calls timed from their intended send time, a failing thread ending the run with its error).
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench_driver.hpp"
#include "check.hpp"
#include "load_spec.hpp"
#include "object_order.hpp"
#include "pool_run.hpp"
#include "worker_error.hpp"

using namespace orbench;
using nlohmann::json;

namespace {

std::string temp_samples() { return "/tmp/orbench-test-pool-" + std::to_string(getpid()) + ".i64"; }

size_t samples_in(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return 0;
  std::fseek(f, 0, SEEK_END);
  const long bytes = std::ftell(f);
  std::fclose(f);
  return static_cast<size_t>(bytes) / 8;
}

std::vector<int64_t> samples_of(const std::string& path) {
  std::vector<int64_t> out(samples_in(path));
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return {};
  out.resize(std::fread(out.data(), 8, out.size(), f));
  std::fclose(f);
  return out;
}

void scale_fields() {
  json c = json::parse(R"({"threads":16,"objects":1000,"object_order":"random","mode":"twoway"})");
  const LoadSpec load = take_load_spec(c);
  CHECK(load.threads == 16 && load.objects == 1000 && load.object_order == ObjectOrder::random);
  CHECK(!c.contains("threads") && !c.contains("objects") && !c.contains("object_order") && c.contains("mode"));
  json none = json::object();
  const LoadSpec defaults = take_load_spec(none);
  CHECK(defaults.threads == 1 && defaults.objects == 1 && defaults.object_order == ObjectOrder::round_robin);
  for (const char* bad : {R"({"threads":0})", R"({"threads":257})", R"({"threads":2.5})", R"({"threads":"4"})",
                          R"({"objects":0})", R"({"objects":100001})", R"({"objects":-3})",
                          R"({"object_order":"sorted"})", R"({"object_order":1})"}) {
    json b = json::parse(bad);
    CHECK_WORKER_ERROR(take_load_spec(b), ErrorKind::usage);
  }
  json max = json::parse(R"({"threads":256,"objects":100000,"object_order":"round-robin"})");
  CHECK(take_load_spec(max).objects == 100000);
}

void orders() {
  const std::vector<uint32_t> round = object_order(ObjectOrder::round_robin, 3, 7, 99);
  CHECK((round == std::vector<uint32_t>{0, 1, 2, 0, 1, 2, 0}));
  // SplitMix64 from seed 0 starts 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4 (PROTOCOL.md): mod 50, 35 and 0. The
  // Java workers' ObjectOrder draws the same.
  const std::vector<uint32_t> random = object_order(ObjectOrder::random, 50, 5, 0);
  CHECK((random == std::vector<uint32_t>{35, 0, 29, 44, 47}));
  CHECK(object_order(ObjectOrder::random, 50, 5, 0) == random);   // a seed gives one order
  CHECK(object_order(ObjectOrder::random, 50, 5, 1) != random);
  // Every object in range, each drawn about as often as the others.
  std::array<int, 10> counts{};
  bool in_range = true;
  for (uint32_t k : object_order(ObjectOrder::random, 10, 100000, 7)) {
    in_range = in_range && k < 10;
    if (k < 10) ++counts[k];
  }
  CHECK(in_range);
  for (int n : counts) CHECK(n > 9000 && n < 11000);
}

// A driver whose calls only count: which calls were made and by whom, the run sequence as words.
class PoolDriver final : public BenchDriver {
 public:
  std::vector<std::string> log;
  uint64_t server_messages = 0;
  std::mutex mutex;
  std::vector<std::atomic<int>> made{std::vector<std::atomic<int>>(0)};
  uint32_t fail_on_thread = UINT32_MAX;
  int64_t stall_call = -1;

  void prepare(const RunSpec&) override {}
  void use_threads(uint32_t threads) override { log.push_back("threads " + std::to_string(threads)); }
  void reset_counters() override { log.push_back("reset"); }
  Counts counters() override { return {server_messages, 0}; }
  SyncOutcome sync(uint64_t expected, uint32_t) override {
    log.push_back("sync " + std::to_string(expected));
    return {server_messages >= expected, {server_messages, 0}};
  }
  TimedSpan timed_calls(int64_t*, uint64_t) override {
    log.push_back("one-thread loop");
    return {};
  }
  ThreadTally pool_calls(uint32_t thread, CallPool& pool) override {
    if (thread == 0) {
      std::lock_guard<std::mutex> lock(mutex);
      log.push_back("pool " + std::to_string(pool.total));
      made = std::vector<std::atomic<int>>(pool.total);
      server_messages += pool.total;  // counted once per pool, as a server would count its calls
    }
    if (thread == fail_on_thread) throw WorkerError(ErrorKind::transport, "thread " + std::to_string(thread) + " lost");
    // Every thread waits for thread 0's bookkeeping of this pool before it calls.
    while (true) {
      std::lock_guard<std::mutex> lock(mutex);
      if (made.size() == pool.total) break;
    }
    auto call = [&](uint64_t i) {
      ++made[i];
      if (static_cast<int64_t>(i) == stall_call) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    };
    return pool_loop(pool, call, [](uint64_t) {});
  }
};

void pool_sequence() {
  PoolDriver driver;
  RunSpec spec;
  spec.mode = Mode::twoway;
  spec.calls = 500;
  spec.warmup = 20;
  spec.samples_file = temp_samples();
  LoadSpec load;
  load.threads = 4;
  const auto answer = run_benchmark(driver, spec, load);
  // One process: reset, the warm-up pool of 4 x 20, its barrier, reset, the pool of 4 x 500, the closing
  // barrier in every mode; never the one-thread loop.
  const std::vector<std::string> want = {"threads 4", "reset", "pool 80", "sync 80", "reset", "pool 2000", "sync 2000"};
  CHECK(driver.log == want);
  int once = 0;
  for (const auto& n : driver.made) once += n == 1;
  CHECK(once == 2000);  // every numbered call made exactly once
  CHECK(answer["calls"] == 2000 && answer["threads"] == 4);
  uint64_t sum = 0;
  for (const auto& n : answer["thread_calls"]) sum += n.get<uint64_t>();
  CHECK(answer["thread_calls"].size() == 4 && sum == 2000);
  CHECK(answer["sync"]["complete"] == true && answer["warmup_sync"]["complete"] == true);
  CHECK(answer["end_ns"].get<int64_t>() >= answer["start_ns"].get<int64_t>());
  CHECK(answer["elapsed_ns"] == answer["end_ns"].get<int64_t>() - answer["start_ns"].get<int64_t>());
  CHECK(samples_in(spec.samples_file) == 2000);

  // A process of a group of 3: no reset, barriers on the group's sums (3 x 4 x 20, 3 x 4 x 520).
  PoolDriver member;
  member.server_messages = 2 * 4 * 520;  // the other two processes' calls
  load.clients = 3;
  const auto grouped = run_benchmark(member, spec, load);
  const std::vector<std::string> group = {"threads 4", "pool 80", "sync 240", "pool 2000", "sync 6240"};
  CHECK(member.log == group);
  CHECK(grouped["clients"] == 3 && grouped["start_barrier"]["complete"] == true);
  ::unlink(spec.samples_file.c_str());
}

void paced_pool() {
  // 2 kHz over the process, 3 threads, 200 calls; call 40 stalls 20 ms, which holds one thread only. How many
  // calls the other two make late depends on the CPU they get: a miss is counted as a sample above one period.
  PoolDriver driver;
  driver.stall_call = 40;
  RunSpec spec;
  spec.calls = 200 / 3 + 1;
  spec.warmup = 0;
  spec.samples_file = temp_samples();
  LoadSpec load;
  load.threads = 3;
  load.rate_hz = 2000;
  const int64_t started = monotonic_ns();
  const auto answer = run_benchmark(driver, spec, load);
  const uint64_t total = 3 * spec.calls;
  CHECK(monotonic_ns() - started >= static_cast<int64_t>((total - 1) * 500'000));  // paced: 0.5 ms apart
  CHECK(answer["rate_hz"] == 2000.0 && answer["arrivals"] == "fixed");
  CHECK(answer["deadline_misses"].get<uint64_t>() >= 1);  // the stalled call, at least
  const std::vector<int64_t> samples = samples_of(spec.samples_file);
  CHECK(samples.size() == total);
  CHECK(*std::max_element(samples.begin(), samples.end()) >= 20'000'000);  // the stall is in its call's sample
  const auto late = std::count_if(samples.begin(), samples.end(), [](int64_t s) { return s > 500'000; });
  CHECK(answer["deadline_misses"].get<uint64_t>() == static_cast<uint64_t>(late));
  CHECK(answer["achieved_rate_hz"].get<double>() > 0);
  ::unlink(spec.samples_file.c_str());
}

void a_failing_thread_ends_the_run() {
  PoolDriver driver;
  driver.fail_on_thread = 2;
  RunSpec spec;
  spec.calls = 100000;
  spec.samples_file = temp_samples();
  LoadSpec load;
  load.threads = 3;
  CHECK_WORKER_ERROR(run_benchmark(driver, spec, load), ErrorKind::transport);
  ::unlink(spec.samples_file.c_str());
}

void drivers_without_scale_refuse_it() {
  struct Plain final : BenchDriver {
    void prepare(const RunSpec&) override {}
    void reset_counters() override {}
    Counts counters() override { return {}; }
    SyncOutcome sync(uint64_t, uint32_t) override { return {true, {}}; }
    TimedSpan timed_calls(int64_t*, uint64_t) override { return {}; }
  } plain;
  RunSpec spec;
  spec.calls = 1;
  spec.samples_file = temp_samples();
  LoadSpec threads;
  threads.threads = 2;
  CHECK_WORKER_ERROR(run_benchmark(plain, spec, threads), ErrorKind::unsupported);
  LoadSpec objects;
  objects.objects = 2;
  CHECK_WORKER_ERROR(run_benchmark(plain, spec, objects), ErrorKind::unsupported);
  ::unlink(spec.samples_file.c_str());
}

}  // namespace

int main() {
  scale_fields();
  orders();
  pool_sequence();
  paced_pool();
  a_failing_thread_ends_the_run();
  drivers_without_scale_refuse_it();
  return orbench_test::finish("test_pool");
}
