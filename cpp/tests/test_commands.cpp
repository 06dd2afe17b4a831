// The client command loop: JSON parsing and validation, answers and errors as data, and the run sequence
// of PROTOCOL.md, against a fake transport that records what it was asked to do.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "check.hpp"
#include "client_worker.hpp"
#include "run_spec.hpp"
#include "samples_file.hpp"
#include "worker_error.hpp"

using namespace orbench;
using nlohmann::json;

namespace {

// Records every driver call as a word, so the test can check the order of the run sequence.
class FakeWorker final : public ClientWorker, public BenchDriver {
 public:
  std::vector<std::string> log;
  bool connected = false;
  bool fail_timed_calls = false;
  uint64_t late_warmup = 0;  // warm-up messages the server has not counted by the warm-up barrier
  uint64_t server_messages = 0;
  std::vector<char> scratch;
  // Turns: whose timed calls ran, in order, across the workers sharing `order`.
  std::vector<std::string>* order = nullptr;
  std::mutex* order_lock = nullptr;
  std::string name;

  nlohmann::ordered_json worker_info() const override { return {{"role", "client"}, {"target", "fake"}}; }
  std::vector<std::string> modes() const override { return {"twoway", "oneway", "echo"}; }
  std::vector<std::string> payload_types() const override { return {"octets"}; }
  void connect(const std::string& endpoint, const json& options) override {
    if (options.contains("bad")) throw WorkerError(ErrorKind::usage, "unknown option \"bad\"");
    log.push_back("connect " + endpoint);
    connected = true;
  }
  BenchDriver& driver() override {
    if (!connected) throw WorkerError(ErrorKind::transport, "not connected");
    return *this;
  }
  void prepare(const RunSpec& spec) override { log.push_back("prepare " + std::to_string(spec.payload_bytes)); }
  void reset_counters() override {
    log.push_back("reset");
    server_messages = 0;
  }
  Counts counters() override {
    log.push_back("counters");
    return {server_messages, server_messages * 10};
  }
  SyncOutcome sync(uint64_t expected, uint32_t timeout_ms) override {
    log.push_back("sync " + std::to_string(expected) + " " + std::to_string(timeout_ms));
    return {server_messages >= expected, {server_messages, server_messages * 10}};
  }
  void untimed_calls(uint64_t calls) override {
    log.push_back("warmup " + std::to_string(calls));
    server_messages += calls - late_warmup;
  }
  TimedSpan timed_calls(int64_t* samples_ns, uint64_t calls) override {
    if (fail_timed_calls) throw WorkerError(ErrorKind::transport, "connection lost");
    log.push_back("timed " + std::to_string(calls));
    if (order != nullptr) {
      const std::lock_guard<std::mutex> hold(*order_lock);
      order->push_back(name + std::to_string(calls));
    }
    scratch = std::vector<char>(calls * 1000);  // one allocation inside the timed calls, for the memory check
    for (uint64_t i = 0; i < calls; ++i) samples_ns[i] = static_cast<int64_t>(100 + i);
    server_messages += calls;
    return {1000, 5000};
  }
};

nlohmann::ordered_json answer(FakeWorker& worker, const std::string& line) {
  bool quit = false;
  return handle_command_line(worker, line, quit);
}

std::string error_kind(const nlohmann::ordered_json& a) { return a.value("error_kind", std::string()); }

void run_spec_parsing() {
  const std::vector<std::string> modes = {"twoway", "oneway", "echo"}, types = {"octets"};
  const json full = json::parse(R"({"cmd":"run","mode":"oneway","payload_type":"octets","payload_bytes":1024,
      "calls":20000,"warmup":2000,"samples_file":"/x.i64","sync_timeout_ms":500,"id":3})");
  const RunSpec spec = parse_run_spec(full, modes, types);
  CHECK(spec.mode == Mode::oneway && spec.payload_type == PayloadType::octets);
  CHECK(spec.payload_bytes == 1024 && spec.calls == 20000 && spec.warmup == 2000);
  CHECK(spec.samples_file == "/x.i64" && spec.sync_timeout_ms == 500);

  json minimal = full;
  minimal.erase("warmup");
  minimal.erase("sync_timeout_ms");
  const RunSpec defaults = parse_run_spec(minimal, modes, types);
  CHECK(defaults.warmup == 0 && defaults.sync_timeout_ms == 20000);

  auto with = [&](const char* key, json value) {
    json c = full;
    c[key] = std::move(value);
    return c;
  };
  CHECK_WORKER_ERROR(parse_run_spec(with("mode", "sideways"), modes, types), ErrorKind::usage);
  CHECK_WORKER_ERROR(parse_run_spec(with("mode", "echo"), {"twoway"}, types), ErrorKind::unsupported);
  CHECK_WORKER_ERROR(parse_run_spec(with("payload_type", "records"), modes, types), ErrorKind::unsupported);
  CHECK_WORKER_ERROR(parse_run_spec(with("payload_bytes", -1), modes, types), ErrorKind::usage);
  CHECK_WORKER_ERROR(parse_run_spec(with("payload_bytes", 1.5), modes, types), ErrorKind::usage);
  CHECK_WORKER_ERROR(parse_run_spec(with("calls", "10"), modes, types), ErrorKind::usage);
  CHECK_WORKER_ERROR(parse_run_spec(with("calls", 0), modes, types), ErrorKind::usage);
  CHECK_WORKER_ERROR(parse_run_spec(with("colour", "red"), modes, types), ErrorKind::usage);
  json no_file = full;
  no_file.erase("samples_file");
  CHECK_WORKER_ERROR(parse_run_spec(no_file, modes, types), ErrorKind::usage);
  // Records: any size is accepted (the driver sends payload_bytes / 16 of them).
  json records = with("payload_type", "records");
  records["payload_bytes"] = 100;
  const RunSpec records_spec = parse_run_spec(records, modes, {"octets", "records"});
  CHECK(records_spec.payload_type == PayloadType::records && records_spec.payload_bytes == 100);
}

void command_loop_answers() {
  FakeWorker worker;
  auto hello = answer(worker, R"({"cmd":"hello","id":[1,"a"]})");
  CHECK(hello["ok"] == true);
  CHECK(hello["id"].dump() == R"([1,"a"])");
  CHECK(hello["worker"]["target"] == "fake");
  CHECK(hello["pid"] == getpid());
  CHECK(hello["timer"]["cost_ns"].get<double>() > 0.0);
  CHECK(hello["modes"].size() == 3 && hello["payload_types"][0] == "octets");
  CHECK(hello.begin().key() == "ok");  // answers read naturally: "ok" first

  CHECK(error_kind(answer(worker, "not json")) == "usage");
  CHECK(error_kind(answer(worker, "[1,2]")) == "usage");
  CHECK(error_kind(answer(worker, R"({"id":1})")) == "usage");
  CHECK(error_kind(answer(worker, R"({"cmd":"dance"})")) == "usage");
  CHECK(error_kind(answer(worker, R"({"cmd":"hello","extra":1})")) == "usage");
  CHECK(answer(worker, R"({"cmd":"dance","id":7})")["id"] == 7);

  // run before connect: the transport is missing, the worker stays alive.
  CHECK(error_kind(answer(worker, R"({"cmd":"run","mode":"twoway","payload_type":"octets","payload_bytes":1,
      "calls":1,"samples_file":"/tmp/x.i64"})")) == "transport");
  CHECK(error_kind(answer(worker, R"({"cmd":"connect"})")) == "usage");
  CHECK(error_kind(answer(worker, R"({"cmd":"connect","endpoint":"e","options":[1]})")) == "usage");
  CHECK(error_kind(answer(worker, R"({"cmd":"connect","endpoint":"e","options":{"bad":true}})")) == "usage");
  CHECK(answer(worker, R"({"cmd":"connect","endpoint":"tcp://h:1","options":{}})")["ok"] == true);
  CHECK(worker.log.back() == "connect tcp://h:1");

  bool quit = false;
  CHECK(handle_command_line(worker, R"({"cmd":"quit"})", quit)["ok"] == true);
  CHECK(quit);
}

void run_sequence() {
  const std::string path = "/tmp/orbench-test-run-" + std::to_string(getpid()) + ".i64";
  FakeWorker worker;
  answer(worker, R"({"cmd":"connect","endpoint":"e"})");
  worker.log.clear();

  auto oneway = answer(worker, R"({"cmd":"run","mode":"oneway","payload_type":"octets","payload_bytes":64,
      "calls":50,"warmup":7,"samples_file":")" + path + R"(","sync_timeout_ms":900})");
  CHECK(oneway["ok"] == true);
  const std::vector<std::string> expected = {"prepare 64", "reset",  "warmup 7", "sync 7 900",
                                             "reset",      "timed 50", "sync 50 900", "counters"};
  CHECK(worker.log == expected);
  CHECK(oneway["calls"] == 50);
  CHECK(oneway["received"]["messages"] == 50 && oneway["received"]["bytes"] == 500);
  CHECK(oneway["sync"]["complete"] == true && oneway["sync"]["wait_ns"].get<int64_t>() >= 0);
  CHECK(oneway["warmup_sync"]["complete"] == true && oneway["warmup_sync"]["wait_ns"].get<int64_t>() >= 0);
  // Oneway elapsed runs to the end of sync, so it is longer than the timed calls' span.
  CHECK(oneway["elapsed_ns"].get<int64_t>() > 4000);
  const auto samples = read_samples_file(path);
  CHECK(samples.size() == 50 && samples[0] == 100 && samples[49] == 149);
  // The process's heap allocations during the timed calls: the fake's 50 000-byte buffer among them.
  CHECK(oneway["memory"]["allocations"].get<uint64_t>() >= 1);
  CHECK(oneway["memory"]["allocated_bytes"].get<uint64_t>() >= 50000);
  CHECK(oneway["memory"]["allocated_bytes"].get<uint64_t>() < 60000);

  worker.log.clear();
  auto twoway = answer(worker, R"({"cmd":"run","mode":"twoway","payload_type":"octets","payload_bytes":8,
      "calls":3,"warmup":0,"samples_file":")" + path + R"("})");
  const std::vector<std::string> expected_twoway = {"prepare 8", "reset", "reset", "timed 3", "counters"};
  CHECK(worker.log == expected_twoway);
  CHECK(twoway["elapsed_ns"] == 4000 && !twoway.contains("sync") && !twoway.contains("warmup_sync"));
  CHECK(read_samples_file(path).size() == 3);

  // A warm-up barrier that times out is in the answer, not only on stderr: the harness must see it.
  worker.late_warmup = 2;
  auto late = answer(worker, R"({"cmd":"run","mode":"oneway","payload_type":"octets","payload_bytes":64,
      "calls":50,"warmup":7,"samples_file":")" + path + R"(","sync_timeout_ms":900})");
  CHECK(late["ok"] == true && late["warmup_sync"]["complete"] == false);
  worker.late_warmup = 0;

  worker.fail_timed_calls = true;
  auto failed = answer(worker, R"({"cmd":"run","mode":"twoway","payload_type":"octets","payload_bytes":8,
      "calls":3,"samples_file":")" + path + R"(","id":"f"})");
  CHECK(failed["ok"] == false && error_kind(failed) == "transport" && failed["id"] == "f");
  CHECK(failed["error"] == "connection lost");
  std::remove(path.c_str());
}

// The optional "shape" field: taken out of the command, checked against the client's shapes, the run's mode and
// payload type; a client without shapes refuses all but "in" (the fake has none).
void shape_parsing() {
  const std::vector<std::string> kinds = {"in", "out", "wstring", "ami"};
  json plain = json::parse(R"({"mode":"twoway","payload_type":"octets"})");
  CHECK(take_shape_spec(plain, kinds).is_in());
  json ami = json::parse(R"({"mode":"echo","payload_type":"octets","shape":"ami-8"})");
  const ShapeSpec eight = take_shape_spec(ami, kinds);
  CHECK(eight.kind == "ami" && eight.outstanding == 8 && eight.name() == "ami-8" && !ami.contains("shape"));
  json out = json::parse(R"({"mode":"twoway","payload_type":"records","shape":"out"})");
  CHECK(take_shape_spec(out, kinds).kind == "out");
  for (const char* bad : {R"({"mode":"twoway","shape":"sideways"})", R"({"mode":"twoway","shape":"ami-0"})",
                          R"({"mode":"twoway","shape":"ami-999"})", R"({"mode":"twoway","shape":7})"}) {
    json command = json::parse(bad);
    CHECK_WORKER_ERROR(take_shape_spec(command, kinds), ErrorKind::usage);
  }
  for (const char* refused : {R"({"mode":"twoway","payload_type":"octets","shape":"dii"})",
                              R"({"mode":"echo","payload_type":"octets","shape":"out"})",
                              R"({"mode":"oneway","payload_type":"octets","shape":"ami-2"})",
                              R"({"mode":"twoway","payload_type":"octets","shape":"wstring"})"}) {
    json command = json::parse(refused);
    CHECK_WORKER_ERROR(take_shape_spec(command, kinds), ErrorKind::unsupported);
  }
  FakeWorker worker;
  worker.connected = true;
  auto hello = answer(worker, R"({"cmd":"hello"})");
  CHECK(hello["shapes"].size() == 1 && hello["shapes"][0] == "in");
  auto refused = answer(worker, R"({"cmd":"run","mode":"twoway","payload_type":"octets","payload_bytes":8,
      "calls":3,"samples_file":"/tmp/x.i64","shape":"out"})");
  CHECK(refused["ok"] == false && error_kind(refused) == "unsupported" && worker.log.empty());
}

// Two clients taking turns through real named pipes (PROTOCOL.md, "Turns"): ABBA, A first.
void turns_sequence() {
  char dir_template[] = "/tmp/orbench-turns-test-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string pipe_a = dir + "/a", pipe_b = dir + "/b";
  CHECK(mkfifo(pipe_a.c_str(), 0600) == 0 && mkfifo(pipe_b.c_str(), 0600) == 0);
  std::vector<std::string> order;
  std::mutex order_lock;
  FakeWorker a, b;
  for (FakeWorker* w : {&a, &b}) {
    w->connected = true;
    w->order = &order;
    w->order_lock = &order_lock;
  }
  a.name = "A";
  b.name = "B";
  auto run = [&](const std::string& me, const json& give, const json& calls, bool first, const std::string& file) {
    json command = json::parse(R"({"cmd":"run","mode":"twoway","payload_type":"octets","payload_bytes":1,
        "calls":1000,"warmup":100})");
    command["samples_file"] = file;
    command["turns"] = {{"wait", me}, {"give", give}, {"calls", calls}, {"rewarm", 5}, {"first", first},
                        {"timeout_ms", 5000}};
    return command.dump();
  };
  nlohmann::ordered_json answer_a, answer_b;
  std::thread second([&] {
    answer_b = answer(b, run(pipe_b, {pipe_a, pipe_a}, {500, 500}, false, dir + "/b.i64"));
  });
  answer_a = answer(a, run(pipe_a, {pipe_b, pipe_b, ""}, {250, 500, 250}, true, dir + "/a.i64"));
  // A took the trial's last turn; B, whose last turn handed on, waits for the harness's end byte to answer.
  const int end_fd = open(pipe_b.c_str(), O_RDWR);
  CHECK(end_fd >= 0 && write(end_fd, "t", 1) == 1);
  second.join();
  close(end_fd);
  CHECK(answer_a["ok"] == true && answer_b["ok"] == true);
  CHECK(answer_a["turns"]["count"] == 3 && answer_b["turns"]["count"] == 2);
  CHECK(answer_a["calls"] == 1000 && answer_a["elapsed_ns"] == 3 * 4000);  // the fake's turns span 4000 ns each
  // The timed calls alternate A B B A A B as the turns say, each side's warm-up in its first turn only.
  CHECK((order == std::vector<std::string>{"A250", "B500", "A500", "B500", "A250"}));
  CHECK((a.log == std::vector<std::string>{"prepare 1", "reset", "warmup 100", "reset", "timed 250", "warmup 5",
                                           "timed 500", "warmup 5", "timed 250", "counters"}));
  // The server counted 2 rewarms of 5 beside the timed calls; `received` is the timed calls'.
  CHECK(answer_a["received"]["messages"] == 1000);
  CHECK(read_samples_file(dir + "/a.i64").size() == 1000);

  // No turn comes: the run fails as a transport error after timeout_ms, and the worker stays alive.
  json lonely = json::parse(run(pipe_b, {""}, {10}, false, dir + "/c.i64"));
  lonely["calls"] = 10;
  lonely["turns"]["timeout_ms"] = 200;
  FakeWorker c;
  c.connected = true;
  auto timed_out = answer(c, lonely.dump());
  CHECK(error_kind(timed_out) == "transport");
  CHECK(timed_out.value("error", std::string()).find("no turn within 200 ms") != std::string::npos);

  json mismatched = json::parse(run(pipe_a, {"", ""}, {10, 10}, true, dir + "/d.i64"));
  CHECK(error_kind(answer(c, mismatched.dump())) == "usage");  // 20 calls in turns, 1000 in the run
  json short_give = json::parse(run(pipe_a, {""}, {500, 500}, true, dir + "/d.i64"));
  CHECK(error_kind(answer(c, short_give.dump())) == "usage");
  json missing_pipe = json::parse(run(dir + "/nowhere", {""}, {1000}, true, dir + "/d.i64"));
  CHECK(error_kind(answer(c, missing_pipe.dump())) == "usage");
  // A oneway turn ends with its barrier over everything the server should have by then (the timed and rewarm
  // calls since the warm-up's reset). A client handing the turn to itself takes both turns alone.
  json oneway = json::parse(run(pipe_a, {pipe_a, ""}, {600, 400}, true, dir + "/d.i64"));
  oneway["mode"] = "oneway";
  c.log.clear();
  auto flood = answer(c, oneway.dump());
  CHECK(flood["ok"] == true && flood["sync"]["complete"] == true && flood["received"]["messages"] == 1000);
  CHECK(flood["warmup_sync"]["complete"] == true);
  CHECK((c.log == std::vector<std::string>{"prepare 1", "reset", "warmup 100", "sync 100 20000", "reset",
                                           "timed 600", "sync 600 20000", "warmup 5", "timed 400", "sync 1005 20000",
                                           "counters"}));
  json threads = json::parse(run(pipe_a, {""}, {1000}, true, dir + "/d.i64"));
  threads["threads"] = 2;
  CHECK(error_kind(answer(c, threads.dump())) == "unsupported");
  CHECK(answer(c, R"({"cmd":"hello"})")["turns"] == true);
  for (const char* name : {"/a", "/b", "/a.i64", "/b.i64"}) unlink((dir + name).c_str());
  rmdir(dir.c_str());
}

}  // namespace

int main() {
  run_spec_parsing();
  shape_parsing();
  command_loop_answers();
  run_sequence();
  turns_sequence();
  return orbench_test::finish("test_commands");
}
