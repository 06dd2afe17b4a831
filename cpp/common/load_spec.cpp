#include "load_spec.hpp"

#include <cmath>

#include "worker_error.hpp"

namespace orbench {

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
  return load;
}

}  // namespace orbench
