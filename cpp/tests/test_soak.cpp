// Soak runs: field validation, the intervals (contiguous, every call in exactly one, empty ones after a
// stall, emitted before the answer with the command's id), paced and Poisson arrivals, and the SplitMix64
// values the Java workers must reproduce.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "arrivals.hpp"
#include "check.hpp"
#include "client_worker.hpp"
#include "soak.hpp"
#include "worker_error.hpp"

using namespace orbench;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// Calls that take `call_ns` (a spin), and one that stalls `stall_ms` at call number `stall_at`; the timed
// loop is the real one (bench_driver.hpp), so pacing and misses are the workers'.
class SpinDriver final : public ClientWorker, public BenchDriver {
 public:
  int64_t call_ns = 20'000;
  uint64_t stall_at = UINT64_MAX;
  int stall_ms = 0;
  uint64_t made = 0;
  uint64_t server_messages = 0;
  std::vector<std::string> log;

  ordered_json worker_info() const override { return {{"role", "client"}, {"target", "spin"}}; }
  std::vector<std::string> modes() const override { return {"twoway", "oneway"}; }
  std::vector<std::string> payload_types() const override { return {"octets"}; }
  void connect(const std::string&, const json&) override {}
  BenchDriver& driver() override { return *this; }
  void prepare(const RunSpec&) override {}
  void reset_counters() override {
    log.push_back("reset");
    server_messages = 0;
  }
  Counts counters() override { return {server_messages, 0}; }
  SyncOutcome sync(uint64_t expected, uint32_t) override {
    log.push_back("sync " + std::to_string(expected));
    return {server_messages >= expected, {server_messages, 0}};
  }
  void untimed_calls(uint64_t calls) override { server_messages += calls; }
  TimedSpan timed_calls(int64_t* samples_ns, uint64_t calls) override {
    return timed_loop(
        samples_ns, calls,
        [&](uint64_t) {
          if (made++ == stall_at) std::this_thread::sleep_for(std::chrono::milliseconds(stall_ms));
          const int64_t until = monotonic_ns() + call_ns;
          while (monotonic_ns() < until) {
          }
          ++server_messages;
        },
        [](uint64_t) {});
  }
};

RunSpec twoway() {
  RunSpec spec;
  spec.mode = Mode::twoway;
  spec.warmup = 10;
  return spec;
}

SoakSpec soak_of(double seconds, double interval_s) {
  return {static_cast<int64_t>(seconds * 1e9), static_cast<int64_t>(interval_s * 1e9)};
}

// Intervals are numbered from 0, contiguous from the first start to the soak's end, and their calls add up.
void check_intervals(const std::vector<ordered_json>& events, const ordered_json& answer, size_t expected) {
  CHECK(events.size() == expected);
  CHECK(answer["intervals"] == expected);
  uint64_t calls = 0;
  for (size_t k = 0; k < events.size(); ++k) {
    CHECK(events[k]["event"] == "interval" && events[k]["index"] == k);
    if (k > 0) CHECK(events[k]["start_ns"] == events[k - 1]["end_ns"]);
    calls += events[k]["calls"].get<uint64_t>();
    uint64_t in_buckets = 0;
    for (const auto& bucket : events[k]["buckets"]) in_buckets += bucket[1].get<uint64_t>();
    CHECK(in_buckets == events[k]["calls"]);
    CHECK(events[k]["rss_bytes"].get<int64_t>() > 0 && events[k]["cpu_ns"].get<int64_t>() > 0);
  }
  CHECK(calls == answer["calls"]);
  CHECK(events.back()["end_ns"].get<int64_t>() - events.front()["start_ns"].get<int64_t>() ==
        answer["duration_ns"].get<int64_t>());
}

void soak_fields() {
  json c = json::parse(R"({"cmd":"run","duration_s":90,"interval_s":10})");
  const auto soak = take_soak_spec(c);
  CHECK(soak && soak->duration_ns == 90'000'000'000 && soak->interval_ns == 10'000'000'000);
  CHECK(!c.contains("duration_s") && !c.contains("interval_s"));
  json none = json::parse(R"({"cmd":"run","calls":5})");
  CHECK(!take_soak_spec(none));
  json short_soak = json::parse(R"({"duration_s":0.5})");
  CHECK(take_soak_spec(short_soak)->interval_ns == 500'000'000);  // one interval at most the whole soak
  for (const char* bad : {R"({"duration_s":0})", R"({"duration_s":"1h"})", R"({"duration_s":-3})",
                          R"({"interval_s":1})", R"({"duration_s":10,"interval_s":20})",
                          R"({"duration_s":10,"interval_s":0})", R"({"duration_s":1e12})"}) {
    json b = json::parse(bad);
    CHECK_WORKER_ERROR(take_soak_spec(b), ErrorKind::usage);
  }
  const std::vector<std::string> modes = {"twoway"}, types = {"octets"};
  const json soak_run = json::parse(R"({"cmd":"run","mode":"twoway","payload_type":"octets","payload_bytes":8})");
  CHECK(parse_run_spec(soak_run, modes, types, true).calls == 0);
  CHECK_WORKER_ERROR(parse_run_spec(soak_run, modes, types), ErrorKind::usage);  // calls needed without a duration
  json with_calls = soak_run;
  with_calls["calls"] = 10;
  CHECK_WORKER_ERROR(parse_run_spec(with_calls, modes, types, true), ErrorKind::usage);
  json poisson_closed = json::parse(R"({"arrivals":"poisson"})");
  CHECK_WORKER_ERROR(take_load_spec(poisson_closed), ErrorKind::usage);  // Poisson needs a rate
  json bad_arrivals = json::parse(R"({"rate_hz":10,"arrivals":"bursty"})");
  CHECK_WORKER_ERROR(take_load_spec(bad_arrivals), ErrorKind::usage);
}

void closed_loop_soak() {
  SpinDriver driver;
  std::vector<ordered_json> events;
  const auto answer = run_soak(driver, twoway(), LoadSpec{}, soak_of(0.35, 0.1),
                               [&](ordered_json e) { events.push_back(std::move(e)); });
  check_intervals(events, answer, 4);  // 0.1, 0.1, 0.1 and the last 0.05
  // 20 us per call: a full interval holds at most about 5000 calls (chunks end near the boundary; fewer
  // on a busy machine).
  for (size_t k = 0; k < 3; ++k) {
    const auto calls = events[k]["calls"].get<uint64_t>();
    CHECK(calls > 50 && calls < 5500);
    CHECK(events[k]["p50_ns"].get<int64_t>() >= 20'000 && events[k]["deadline_misses"] == 0);
  }
  CHECK(answer["received"]["messages"] == answer["calls"]);
  CHECK(!answer.contains("rate_hz"));
  const std::vector<std::string> sequence = {"reset", "reset"};  // one client: reset, warm-up, reset
  CHECK(driver.log == sequence);
}

void stall_leaves_empty_intervals() {
  // One call stalls 250 ms in a closed-loop soak of 100 ms intervals: the intervals it spans have no call
  // completed in them and are still emitted, in order.
  SpinDriver driver;
  driver.stall_at = 100;
  driver.stall_ms = 250;
  std::vector<ordered_json> events;
  const auto answer = run_soak(driver, twoway(), LoadSpec{}, soak_of(0.5, 0.1),
                               [&](ordered_json e) { events.push_back(std::move(e)); });
  check_intervals(events, answer, 5);
  int empty = 0;
  for (const auto& e : events) empty += e["calls"] == 0;
  CHECK(empty >= 1);
  CHECK(answer["max_ns"].get<int64_t>() >= 250'000'000);
}

void paced_soak() {
  // 200 Hz, 100 ms intervals: a call belongs to the interval of its intended send time, so every interval
  // holds exactly 20. Call 30 stalls 30 ms: it and the calls due during it complete late, more than one
  // period (5 ms) after they were due: deadline misses, in the second interval.
  SpinDriver driver;
  driver.call_ns = 50'000;
  driver.stall_at = 30;
  driver.stall_ms = 30;
  LoadSpec load;
  load.rate_hz = 200;
  std::vector<ordered_json> events;
  const auto answer = run_soak(driver, twoway(), load, soak_of(0.3, 0.1),
                               [&](ordered_json e) { events.push_back(std::move(e)); });
  check_intervals(events, answer, 3);
  for (const auto& e : events) CHECK(e["calls"] == 20);
  CHECK(events[1]["deadline_misses"].get<uint64_t>() >= 5);
  CHECK(events[1]["max_ns"].get<int64_t>() >= 30'000'000);
  uint64_t misses = 0;
  for (const auto& e : events) misses += e["deadline_misses"].get<uint64_t>();
  CHECK(answer["deadline_misses"] == misses);
  CHECK(answer["arrivals"] == "fixed" && answer["rate_hz"] == 200.0);
  CHECK(answer["achieved_rate_hz"].get<double>() > 150 && answer["achieved_rate_hz"].get<double>() < 250);
}

void poisson_arrivals() {
  // SplitMix64 from seed 0: the reference values the Java workers reproduce (ArrivalsTest).
  SplitMix64 random(0);
  CHECK(random.next() == 0xe220a8397b1dcdafULL);
  CHECK(random.next() == 0x6e789e6aa1b965f4ULL);
  // A seed gives the same send times; gaps are exponential with the mean period.
  ArrivalSchedule a(1000, Arrivals::poisson, 7), b(1000, Arrivals::poisson, 7), c(1000, Arrivals::poisson, 8);
  a.start_at(0);
  b.start_at(0);
  c.start_at(0);
  bool same = true, differs = false;
  int64_t last = 0;
  for (int i = 0; i < 20000; ++i) {
    last = a.next();
    same &= last == b.next();
    differs |= last != c.next();
  }
  CHECK(same && differs);
  // 20000 gaps of mean 1 ms: 20 s within a few standard deviations (sqrt(20000) ms = 141 ms).
  CHECK(last > 19'300'000'000 && last < 20'700'000'000);
  ArrivalSchedule fixed(1000, Arrivals::fixed, 0);
  fixed.start_at(5);
  CHECK(fixed.peek() == 5 && fixed.next() == 5 && fixed.next() == 1'000'005);

  SpinDriver driver;
  driver.call_ns = 10'000;
  LoadSpec load;
  load.rate_hz = 1000;
  load.arrivals = Arrivals::poisson;
  load.seed = 42;
  std::vector<ordered_json> events;
  const auto answer = run_soak(driver, twoway(), load, soak_of(0.5, 0.25),
                               [&](ordered_json e) { events.push_back(std::move(e)); });
  check_intervals(events, answer, 2);
  CHECK(answer["arrivals"] == "poisson" && answer["seed"] == 42);
  CHECK(answer["calls"].get<uint64_t>() > 380 && answer["calls"].get<uint64_t>() < 620);
}

void through_the_command_loop() {
  // Interval events go out before the answer and carry the command's id; a oneway soak of several clients
  // is refused (no client knows the group's count for the closing barrier).
  SpinDriver driver;
  std::vector<ordered_json> lines;
  const EventSink sink = [&](ordered_json e) { lines.push_back(std::move(e)); };
  bool quit = false;
  const auto answer = handle_command_line(
      driver,
      R"({"cmd":"run","mode":"oneway","payload_type":"octets","payload_bytes":8,"warmup":5,"duration_s":0.2,
          "interval_s":0.1,"id":"soak-1"})",
      quit, sink);
  CHECK(answer["ok"] == true && answer["id"] == "soak-1");
  CHECK(lines.size() == 2 && lines[0]["id"] == "soak-1" && lines[1]["index"] == 1);
  CHECK(answer["sync"]["complete"] == true);  // oneway: the closing barrier on this client's calls
  const auto refused = handle_command_line(
      driver, R"({"cmd":"run","mode":"oneway","payload_type":"octets","payload_bytes":8,"duration_s":1,"clients":2})",
      quit, sink);
  CHECK(refused["ok"] == false && refused["error_kind"] == "usage");
  const auto with_calls = handle_command_line(
      driver, R"({"cmd":"run","mode":"twoway","payload_type":"octets","payload_bytes":8,"duration_s":1,"calls":3,
          "samples_file":"/tmp/x"})",
      quit, sink);
  CHECK(with_calls["ok"] == false && with_calls["error_kind"] == "usage");
}

}  // namespace

int main() {
  soak_fields();
  closed_loop_soak();
  stall_leaves_empty_intervals();
  paced_soak();
  poisson_arrivals();
  through_the_command_loop();
  return orbench_test::finish("test_soak");
}
