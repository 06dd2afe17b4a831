#include "load_spec.hpp"

#include <unistd.h>

#include <cmath>
#include <string>

#include "clock.hpp"

#include "worker_error.hpp"

namespace orbench {

const char* object_order_name(ObjectOrder order) { return order == ObjectOrder::random ? "random" : "round-robin"; }

namespace {

// An integer field of 1 .. max, taken out of `command`; absent: `fallback`.
uint32_t take_count(nlohmann::json& command, const char* key, uint32_t max, uint32_t fallback) {
  const auto it = command.find(key);
  if (it == command.end()) return fallback;
  if (!it->is_number_integer() || (!it->is_number_unsigned() && it->get<int64_t>() < 1) ||
      it->get<uint64_t>() < 1 || it->get<uint64_t>() > max) {
    throw WorkerError(ErrorKind::usage, std::string("field \"") + key + "\" must be an integer from 1 to " +
                                            std::to_string(max));
  }
  const auto value = it->get<uint32_t>();
  command.erase(it);
  return value;
}

}  // namespace

LoadSpec take_load_spec(nlohmann::json& command) {
  LoadSpec load;
  if (const auto it = command.find("rate_hz"); it != command.end()) {
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0 ||
        it->get<double>() > kMaxRateHz) {
      throw WorkerError(ErrorKind::usage, "field \"rate_hz\" must be a number from 0 (closed loop) to 1000000");
    }
    load.rate_hz = it->get<double>();
    command.erase(it);
  }
  if (const auto it = command.find("clients"); it != command.end()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 1) {
      throw WorkerError(ErrorKind::usage, "field \"clients\" must be an integer of at least 1");
    }
    load.clients = it->get<uint64_t>();
    command.erase(it);
  }
  if (const auto it = command.find("arrivals"); it != command.end()) {
    if (*it == "poisson") {
      load.arrivals = Arrivals::poisson;
    } else if (*it != "fixed") {
      throw WorkerError(ErrorKind::usage, "field \"arrivals\" must be \"fixed\" or \"poisson\"");
    }
    command.erase(it);
  }
  if (load.arrivals == Arrivals::poisson && load.rate_hz <= 0) {
    throw WorkerError(ErrorKind::usage, "field \"arrivals\": poisson needs a \"rate_hz\" above 0");
  }
  if (const auto it = command.find("seed"); it != command.end()) {
    // 0 .. 2^63 - 1, what a Java long holds, so a seed means the same to every worker.
    if (!it->is_number_integer() || (!it->is_number_unsigned() && it->get<int64_t>() < 0) ||
        (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))) {
      throw WorkerError(ErrorKind::usage, "field \"seed\" must be an integer from 0 to 2^63 - 1");
    }
    load.seed = it->get<uint64_t>();
    command.erase(it);
  }
  load.threads = take_count(command, "threads", kMaxThreads, 1);
  load.objects = take_count(command, "objects", kMaxObjects, 1);
  if (const auto it = command.find("object_order"); it != command.end()) {
    if (*it == "random") {
      load.object_order = ObjectOrder::random;
    } else if (*it != "round-robin") {
      throw WorkerError(ErrorKind::usage, "field \"object_order\" must be \"round-robin\" or \"random\"");
    }
    command.erase(it);
  }
  return load;
}

uint64_t effective_seed(const LoadSpec& load) {
  if (load.seed) return *load.seed;
  // Clients of one group start together: the pid keeps their arrivals apart.
  return static_cast<uint64_t>(monotonic_ns()) * 31 + static_cast<uint64_t>(getpid());
}

}  // namespace orbench
