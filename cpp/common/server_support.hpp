// What every C++ server worker does around its transport: arguments, the ready/exit/error lines, and
// stopping on stdin EOF, SIGTERM or SIGINT.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_driver.hpp"
#include "load_spec.hpp"
#include "message_counter.hpp"

namespace orbench {

struct ServerArgs {
  std::string host;
  int port = 0;
  std::vector<std::string> flags;  // target-specific flags that were accepted (e.g. "--no-nodelay")
  // Target-specific `--name VALUE` arguments that were accepted (e.g. "--delay-ns" -> "2000"), by name.
  std::map<std::string, std::string> values;
  // The values of every `--option NAME=VALUE` (the campaign's server-side options, PROTOCOL.md); see
  // parse_server_options in connect_options.hpp.
  std::vector<std::string> options;
};

// Parses `--host H --port P`, any number of `--option NAME=VALUE`, plus any of `allowed_flags` and, each with
// a value, any of `allowed_values`; throws std::invalid_argument with a usage text.
ServerArgs parse_server_args(int argc, char** argv, const std::vector<std::string>& allowed_flags,
                             const std::vector<std::string>& allowed_values = {});

// The integer value of `--name N` among `values`, `absent` when it is not there; throws std::invalid_argument
// ("bad --name \"V\": EXPECTED") for anything but an integer from `low` to `high`.
int64_t integer_value(const std::map<std::string, std::string>& values, const std::string& name, int64_t absent,
                      int64_t low, int64_t high, const std::string& expected);

// The value of `--delay-ns N` (a known-answer server's spin per payload-carrying request), 0 when absent;
// throws std::invalid_argument for anything but an integer 0..1e9.
int64_t delay_ns_arg(const ServerArgs& args);

// The value of `--objects K` (how many objects a server activates, PROTOCOL.md), 1 when absent; throws
// std::invalid_argument for anything but an integer 1 .. kMaxObjects.
uint32_t objects_arg(const ServerArgs& args);

// The "worker" object of the ready line.
nlohmann::ordered_json server_worker_info(const std::string& target, const char* orb, const std::string& orb_version);

// The ready line; it lists the stdin commands the server answers ("stats").
void print_ready(const std::string& endpoint, const nlohmann::ordered_json& worker_info);
// The answer to the stdin command {"cmd": "stats"}: {"event": "stats", "memory": {...}}, this process's
// counters since it started (the harness takes differences).
void print_stats();
// From now on the stats answer also carries these counters (since their last reset) as "received": the
// harness's progress watchdog reads them during a trial. The counter must outlive the stdin thread (leak it).
void report_received_in_stats(const MessageCounter* counter);
// From now on the stats answer also carries `key`, the value `section` returns when a stats command comes
// (on the stdin thread; e.g. the serial server's "service"). Call it before start_stop_watchers.
void report_in_stats(const std::string& key, std::function<nlohmann::ordered_json()> section);
void print_exit(const Counts& received);
// Prints {"event": "error", ...}; the caller then exits non-zero.
void print_start_error(const std::string& why);

// Blocks SIGTERM and SIGINT in the calling thread, and so in every thread it creates later. Call first in
// main, before any library starts threads, so that only the stop watcher's sigwait receives them.
void block_stop_signals();

// Starts two detached threads: one waits for SIGTERM/SIGINT, one reads stdin until EOF, answering the stats
// command line by line on the way. The first of them to fire calls `request_stop` (once; later triggers are
// ignored). Also ignores SIGPIPE: a peer that vanished
// must be an error return from send(), not the death of the worker.
void start_stop_watchers(std::function<void()> request_stop);

}  // namespace orbench
