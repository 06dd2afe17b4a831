// Two clients taking turns inside one `run` (PROTOCOL.md, "Turns"): each turn's timed calls, then the turn
// handed to the next client through a named pipe, so a sliced trial costs one command per client, not one per
// slice, and its slices can be as short as the host's fast phases.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_driver.hpp"
#include "run_spec.hpp"

namespace orbench {

struct TurnsSpec {
  std::string wait;                 // this client's pipe: a byte there is its turn
  std::vector<std::string> give;    // per turn, the next client's pipe ("" when no one follows)
  std::vector<uint64_t> calls;      // per turn, its timed calls
  uint64_t rewarm = 0;              // untimed calls at the start of every turn but the first
  bool first = false;               // the first turn starts without waiting
  uint32_t timeout_ms = 20000;      // the longest wait for a turn
};

// Takes the optional "turns" field out of `command`. WorkerError(usage) naming the field for a bad value.
std::optional<TurnsSpec> take_turns_spec(nlohmann::json& command);

// The run sequence in turns; `spec.calls` must be the turns' sum (checked: usage). Returns the answer's fields.
nlohmann::ordered_json run_in_turns(BenchDriver& driver, const RunSpec& spec, const TurnsSpec& turns);

}  // namespace orbench
