#include "server_support.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "allocation_counter.hpp"
#include "protocol_out.hpp"

namespace orbench {

using nlohmann::ordered_json;

ServerArgs parse_server_args(int argc, char** argv, const std::vector<std::string>& allowed_flags,
                             const std::vector<std::string>& allowed_values) {
  std::string usage =
      std::string("usage: ") + (argc > 0 ? argv[0] : "server") + " --host HOST --port PORT [--option NAME=VALUE]...";
  for (const auto& flag : allowed_flags) usage += " [" + flag + "]";
  for (const auto& name : allowed_values) usage += " [" + name + " VALUE]";
  ServerArgs args;
  bool have_host = false, have_port = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--host" || arg == "--port") && i + 1 < argc) {
      const std::string value = argv[++i];
      if (arg == "--host") {
        args.host = value;
        have_host = true;
      } else {
        size_t used = 0;
        int port = -1;
        try {
          port = std::stoi(value, &used);
        } catch (const std::exception&) {
        }
        if (used != value.size() || port < 0 || port > 65535) throw std::invalid_argument("bad port \"" + value + "\"; " + usage);
        args.port = port;
        have_port = true;
      }
    } else if (arg == "--option" && i + 1 < argc) {
      args.options.push_back(argv[++i]);
    } else if (std::find(allowed_values.begin(), allowed_values.end(), arg) != allowed_values.end()) {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value; " + usage);
      args.values[arg] = argv[++i];
    } else if (std::find(allowed_flags.begin(), allowed_flags.end(), arg) != allowed_flags.end()) {
      args.flags.push_back(arg);
    } else {
      throw std::invalid_argument("unknown argument \"" + arg + "\"; " + usage);
    }
  }
  if (!have_host || !have_port || args.host.empty()) throw std::invalid_argument(usage);
  return args;
}

int64_t integer_value(const std::map<std::string, std::string>& values, const std::string& name, int64_t absent,
                      int64_t low, int64_t high, const std::string& expected) {
  const auto it = values.find(name);
  if (it == values.end()) return absent;
  size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(it->second, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != it->second.size() || value < low || value > high) {
    throw std::invalid_argument("bad " + name + " \"" + it->second + "\": " + expected);
  }
  return value;
}

int64_t delay_ns_arg(const ServerArgs& args) {
  return integer_value(args.values, "--delay-ns", 0, 0, 1'000'000'000, "an integer number of nanoseconds, 0 to 1e9");
}

uint32_t objects_arg(const ServerArgs& args) {
  return static_cast<uint32_t>(integer_value(args.values, "--objects", 1, 1, kMaxObjects,
                                             "an integer from 1 to " + std::to_string(kMaxObjects)));
}

ordered_json server_worker_info(const std::string& target, const char* orb, const std::string& orb_version) {
  ordered_json info = {{"role", "server"}, {"target", target}, {"language", "c++"}};
  if (orb != nullptr) {
    info["orb"] = orb;
    info["orb_version"] = orb_version;
  }
  return info;
}

void print_ready(const std::string& endpoint, const ordered_json& worker_info) {
  write_protocol_line({{"event", "ready"},
                       {"endpoint", endpoint},
                       {"pid", getpid()},
                       {"worker", worker_info},
                       {"stdin_commands", {"stats"}}});
}

namespace {
std::atomic<const MessageCounter*> stats_counter{nullptr};
// Written before the stdin thread starts (report_in_stats), read by it only.
std::vector<std::pair<std::string, std::function<ordered_json()>>> stats_sections;
}  // namespace

void report_received_in_stats(const MessageCounter* counter) { stats_counter.store(counter); }

void report_in_stats(const std::string& key, std::function<ordered_json()> section) {
  stats_sections.emplace_back(key, std::move(section));
}

void print_stats() {
  ordered_json line = {{"event", "stats"}};
  if (const MessageCounter* counter = stats_counter.load()) {
    const Counts received = counter->snapshot();
    line["received"] = {{"messages", received.messages}, {"bytes", received.bytes}};
    if (counter->tracks_objects()) line["objects_called"] = counter->objects_called();
  }
  if (counting_allocations()) line["memory"] = memory_json(process_allocations());
  for (const auto& [key, section] : stats_sections) line[key] = section();
  write_protocol_line(line);
}

void print_exit(const Counts& received) {
  write_protocol_line({{"event", "exit"}, {"received", {{"messages", received.messages}, {"bytes", received.bytes}}}});
}

void print_start_error(const std::string& why) { write_protocol_line({{"event", "error"}, {"error", why}}); }

namespace {
// A stdin line that is not a known command is reported on stderr and otherwise ignored.
void answer_stdin_line(const std::string& line) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) return;
  const nlohmann::json command = nlohmann::json::parse(line, nullptr, false);
  if (command.is_object() && command.value("cmd", nlohmann::json()) == "stats") {
    print_stats();
  } else {
    std::fprintf(stderr, "orbench: ignoring stdin line: %s\n", line.c_str());
  }
}

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}
}  // namespace

void block_stop_signals() {
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void start_stop_watchers(std::function<void()> request_stop) {
  signal(SIGPIPE, SIG_IGN);
  // Shared by both threads; leaked on purpose, since they are detached and may outlive main's locals.
  struct Shared {
    std::function<void()> request_stop;
    std::atomic<bool> fired{false};
    void fire() {
      if (!fired.exchange(true)) request_stop();
    }
  };
  auto* shared = new Shared{std::move(request_stop)};

  std::thread([shared] {
    const sigset_t set = stop_signals();
    int signal_number = 0;
    while (sigwait(&set, &signal_number) != 0) {
    }
    shared->fire();
  }).detach();

  std::thread([shared] {
    // stdin carries the stats command, one JSON line each; its EOF means the harness or the SSH channel went
    // away. read(2) rather than a stream: nothing is buffered past a line the harness waits on.
    std::string line;
    char buffer[256];
    while (true) {
      const ssize_t n = read(STDIN_FILENO, buffer, sizeof buffer);
      if (n == 0 || (n < 0 && errno != EINTR)) break;
      for (ssize_t i = 0; i < n; ++i) {
        if (buffer[i] != '\n') {
          if (line.size() < 4096) line.push_back(buffer[i]);
          continue;
        }
        answer_stdin_line(line);
        line.clear();
      }
    }
    shared->fire();
  }).detach();
}

}  // namespace orbench
