// The `run` command of the client contract, parsed and validated before anything is sent.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace orbench {

enum class Mode { twoway, oneway, echo };
enum class PayloadType { octets, records, longs, doubles, strings };

// Each payload type has a unit (PROTOCOL.md, "Payload types"): a run of payload_bytes N sends N / unit
// elements, rounded down (as the harness's conformance check counts them), and the server counts unit bytes
// per element; so 1 B of records is an empty sequence: still one message, with zero payload bytes.
// One Record of orbench.idl counts as 16 bytes (the sum of its fields), a long 4, a double 8, and a string
// (always kStringChars characters) its characters, 16.
inline constexpr uint64_t kRecordBytes = 16;
inline constexpr uint64_t kStringChars = 16;

// The unit of `type` in payload bytes: 1, 16, 4, 8, 16.
uint64_t payload_unit_bytes(PayloadType type);
// The bytes a run of `payload_bytes` carries and the server counts: (payload_bytes / unit) * unit.
inline uint64_t counted_payload_bytes(PayloadType type, uint64_t payload_bytes) {
  return payload_bytes / payload_unit_bytes(type) * payload_unit_bytes(type);
}

// The invocation shape of a run (PROTOCOL.md, "Invocation shapes"): `kind` is a shape name without its count
// ("in", "out", ..., "ami"), `outstanding` the replies an "ami-N" keeps outstanding (1 otherwise).
struct ShapeSpec {
  std::string kind = "in";
  uint32_t outstanding = 1;
  bool is_in() const { return kind == "in"; }
  std::string name() const { return kind == "ami" ? "ami-" + std::to_string(outstanding) : kind; }
};

struct RunSpec {
  Mode mode = Mode::twoway;
  ShapeSpec shape;
  PayloadType payload_type = PayloadType::octets;
  uint64_t payload_bytes = 0;
  uint64_t calls = 0;
  uint64_t warmup = 0;
  std::string samples_file;
  uint32_t sync_timeout_ms = 20000;
};

const char* mode_name(Mode mode);
const char* payload_type_name(PayloadType type);

// Throws WorkerError: `usage` for a missing, unknown or ill-typed field, `unsupported` for a mode or payload
// type not in the worker's lists (names as in PROTOCOL.md).
// A soak run (`duration_run`: the command had "duration_s") has no "calls" and no "samples_file".
RunSpec parse_run_spec(const nlohmann::json& command, const std::vector<std::string>& supported_modes,
                       const std::vector<std::string>& supported_payload_types, bool duration_run = false);

// Takes the optional "shape" field out of `command`: WorkerError(usage) for a name that is no shape, (unsupported)
// for one whose kind is not in `supported_kinds` or that does not take the run's mode or payload type.
ShapeSpec take_shape_spec(nlohmann::json& command, const std::vector<std::string>& supported_kinds);

// Throws WorkerError(usage) when `command` has a key outside `allowed` (besides "cmd" and "id").
void reject_unknown_fields(const nlohmann::json& command, const std::vector<std::string>& allowed);

}  // namespace orbench
