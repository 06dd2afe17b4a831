#include "turns.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>

#include "allocation_counter.hpp"
#include "clock.hpp"
#include "load_spec.hpp"
#include "samples_file.hpp"
#include "worker_error.hpp"

namespace orbench {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

[[noreturn]] void bad(const std::string& what) {
  throw WorkerError(ErrorKind::usage, "field \"turns\": " + what);
}

uint64_t count_of(const json& value, const char* name) {
  if (!value.is_number_unsigned()) bad(std::string("\"") + name + "\" must hold non-negative integers");
  return value.get<uint64_t>();
}

// The pipes of one run, opened read-write (an open then never waits for the other end) and closed at its end.
class Pipes {
 public:
  ~Pipes() {
    for (const auto& [path, fd] : fds_) close(fd);
  }
  int open_pipe(const std::string& path) {
    if (const auto it = fds_.find(path); it != fds_.end()) return it->second;
    const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) bad("cannot open pipe " + path + ": " + std::strerror(errno));
    fds_[path] = fd;
    return fd;
  }

 private:
  std::map<std::string, int> fds_;
};

void wait_turn(int fd, uint32_t timeout_ms) {
  const int64_t deadline = monotonic_ns() + int64_t{timeout_ms} * 1000000;
  for (;;) {
    const int64_t left_ns = deadline - monotonic_ns();
    if (left_ns <= 0) {
      throw WorkerError(ErrorKind::transport, "no turn within " + std::to_string(timeout_ms) + " ms");
    }
    const int64_t left_ms = (left_ns + 999999) / 1000000;  // rounded up: never given up before the timeout
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left_ms));
    if (ready < 0 && errno != EINTR) throw WorkerError(ErrorKind::internal, std::string("poll: ") + std::strerror(errno));
    if (ready <= 0) continue;
    char byte;
    const ssize_t got = read(fd, &byte, 1);
    if (got == 1) return;
    if (got < 0 && errno != EINTR && errno != EAGAIN) {
      throw WorkerError(ErrorKind::internal, std::string("read of the turn pipe: ") + std::strerror(errno));
    }
  }
}

void give_turn(int fd) {
  const char byte = 't';
  while (write(fd, &byte, 1) != 1) {
    if (errno != EINTR) throw WorkerError(ErrorKind::internal, std::string("write of the turn pipe: ") + std::strerror(errno));
  }
}

}  // namespace

std::optional<TurnsSpec> take_turns_spec(json& command) {
  const auto it = command.find("turns");
  if (it == command.end()) return std::nullopt;
  const json value = *it;
  command.erase(it);
  if (!value.is_object()) bad("must be an object");
  reject_unknown_fields(value, {"wait", "give", "calls", "rewarm", "first", "timeout_ms"});
  TurnsSpec turns;
  const auto wait = value.find("wait");
  if (wait == value.end() || !wait->is_string() || wait->get<std::string>().empty()) bad("needs a pipe path \"wait\"");
  turns.wait = wait->get<std::string>();
  const auto calls = value.find("calls");
  if (calls == value.end() || !calls->is_array() || calls->empty()) bad("needs a non-empty list \"calls\"");
  for (const auto& n : *calls) turns.calls.push_back(count_of(n, "calls"));
  const auto give = value.find("give");
  if (give == value.end() || !give->is_array() || give->size() != turns.calls.size()) {
    bad("\"give\" must list one pipe (or \"\") per turn of \"calls\"");
  }
  for (const auto& path : *give) {
    if (!path.is_string()) bad("\"give\" must hold strings");
    turns.give.push_back(path.get<std::string>());
  }
  if (const auto r = value.find("rewarm"); r != value.end()) turns.rewarm = count_of(*r, "rewarm");
  if (const auto f = value.find("first"); f != value.end()) {
    if (!f->is_boolean()) bad("\"first\" must be true or false");
    turns.first = f->get<bool>();
  }
  if (const auto t = value.find("timeout_ms"); t != value.end()) {
    const uint64_t ms = count_of(*t, "timeout_ms");
    if (ms == 0 || ms > 3600000) bad("\"timeout_ms\" must be 1..3600000");
    turns.timeout_ms = static_cast<uint32_t>(ms);
  }
  return turns;
}

ordered_json run_in_turns(BenchDriver& driver, const RunSpec& spec, const TurnsSpec& turns) {
  if (std::accumulate(turns.calls.begin(), turns.calls.end(), uint64_t{0}) != spec.calls) {
    bad("its \"calls\" must add up to the run's calls");
  }
  Pipes pipes;
  const int wait_fd = pipes.open_pipe(turns.wait);
  std::vector<int> give_fds;
  for (const auto& path : turns.give) give_fds.push_back(path.empty() ? -1 : pipes.open_pipe(path));

  driver.prepare(spec);
  std::vector<int64_t> samples_ns(spec.calls);  // touched before timing: no page fault inside a sample
  const bool oneway = spec.mode == Mode::oneway;
  int64_t busy_ns = 0;
  uint64_t counted = 0;  // what the server should have counted since the warm-up's reset
  bool synced = true;
  int64_t sync_wait_ns = 0;
  nlohmann::ordered_json warmup_sync;
  int64_t waited_ns = 0;
  uint64_t done = 0;
  AllocationCounts allocated;
  for (size_t i = 0; i < turns.calls.size(); ++i) {
    if (i > 0 || !turns.first) {
      const int64_t wait_start = monotonic_ns();
      wait_turn(wait_fd, turns.timeout_ms);
      if (i > 0) waited_ns += monotonic_ns() - wait_start;
    }
    if (i == 0) {
      warmup_sync = before_timed_calls(driver, spec, LoadSpec{}).warmup_sync;
    } else if (turns.rewarm > 0) {
      driver.untimed_calls(turns.rewarm);  // the other client's turn left the caches to it
      counted += turns.rewarm;
    }
    const AllocationCounts before = process_allocations();
    const TimedSpan span = driver.timed_calls(samples_ns.data() + done, turns.calls[i]);
    const AllocationCounts turn = process_allocations() - before;  // the timed calls' own, summed over turns
    allocated.allocations += turn.allocations;
    allocated.bytes += turn.bytes;
    counted += turns.calls[i];
    int64_t end_ns = span.end_ns;
    if (oneway) {
      // No flood hands its backlog to the next client's turn: the turn ends once the server has it all.
      const SyncOutcome outcome = driver.sync(counted, spec.sync_timeout_ms);
      end_ns = monotonic_ns();
      synced = synced && outcome.complete;
      sync_wait_ns += end_ns - span.end_ns;
    }
    busy_ns += end_ns - span.start_ns;
    done += turns.calls[i];
    if (give_fds[i] >= 0) give_turn(give_fds[i]);
  }
  // The end of the trial: counters, samples file and answer must not run beside another client's turn.
  if (give_fds.back() >= 0) wait_turn(wait_fd, turns.timeout_ms);
  // The server counted the later turns' rewarm calls too; `received` is the timed calls', as in any run.
  Counts received = driver.counters();
  const uint64_t rewarmed = turns.rewarm * (turns.calls.size() - 1);
  received.messages -= std::min(received.messages, rewarmed);
  received.bytes -= std::min(received.bytes, rewarmed * counted_payload_bytes(spec.payload_type, spec.payload_bytes));
  write_samples_file(spec.samples_file, samples_ns);
  ordered_json answer = {{"calls", spec.calls},
                         {"elapsed_ns", busy_ns},
                         {"received", counts_json(received)},
                         {"turns", {{"count", turns.calls.size()}, {"waited_ns", waited_ns}}}};
  if (oneway) answer["sync"] = {{"complete", synced}, {"wait_ns", sync_wait_ns}};
  if (!warmup_sync.is_null()) answer["warmup_sync"] = warmup_sync;
  if (counting_allocations()) answer["memory"] = memory_json(allocated);
  return answer;
}

}  // namespace orbench
