// The protocol channel: the only writer of the worker's stdout.
#pragma once

#include <nlohmann/json.hpp>

namespace orbench {

// Moves the real stdout to a private descriptor and points fd 1 at stderr, so that anything a library
// prints with printf/cout (ORB traces, say) lands on stderr and can never corrupt the protocol lines.
// Call first thing in main, before any library is initialised.
void reserve_stdout_for_protocol();

// Writes one JSON line to the protocol channel and flushes it. Thread-safe.
void write_protocol_line(const nlohmann::ordered_json& line);

}  // namespace orbench
