#include "run_spec.hpp"

#include <algorithm>
#include <limits>

#include "worker_error.hpp"

namespace orbench {

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::twoway: return "twoway";
    case Mode::oneway: return "oneway";
    case Mode::echo: return "echo";
  }
  return "?";
}

const char* payload_type_name(PayloadType type) {
  switch (type) {
    case PayloadType::octets: return "octets";
    case PayloadType::records: return "records";
    case PayloadType::longs: return "longs";
    case PayloadType::doubles: return "doubles";
    case PayloadType::strings: return "strings";
  }
  return "?";
}

uint64_t payload_unit_bytes(PayloadType type) {
  switch (type) {
    case PayloadType::octets: return 1;
    case PayloadType::records: return kRecordBytes;
    case PayloadType::longs: return 4;
    case PayloadType::doubles: return 8;
    case PayloadType::strings: return kStringChars;
  }
  return 1;
}

void reject_unknown_fields(const nlohmann::json& command, const std::vector<std::string>& allowed) {
  for (const auto& item : command.items()) {
    const std::string& key = item.key();
    if (key == "cmd" || key == "id") continue;
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      throw WorkerError(ErrorKind::usage, "unknown field \"" + key + "\"");
    }
  }
}

namespace {

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string required_string(const nlohmann::json& command, const char* key) {
  const auto it = command.find(key);
  if (it == command.end()) throw WorkerError(ErrorKind::usage, std::string("missing field \"") + key + "\"");
  if (!it->is_string()) throw WorkerError(ErrorKind::usage, std::string("field \"") + key + "\" must be a string");
  return it->get<std::string>();
}

// Accepts JSON integers only (a float such as 1024.5 or a string is a usage error), within [0, max].
uint64_t unsigned_field(const nlohmann::json& command, const char* key, bool required, uint64_t fallback,
                        uint64_t max = std::numeric_limits<uint64_t>::max()) {
  const auto it = command.find(key);
  if (it == command.end()) {
    if (required) throw WorkerError(ErrorKind::usage, std::string("missing field \"") + key + "\"");
    return fallback;
  }
  // Floats and strings are rejected, not truncated: a campaign that says 1.5 calls has a bug.
  if (!it->is_number_integer() || (!it->is_number_unsigned() && it->get<int64_t>() < 0)) {
    throw WorkerError(ErrorKind::usage, std::string("field \"") + key + "\" must be a non-negative integer");
  }
  const uint64_t value = it->get<uint64_t>();
  if (value > max) throw WorkerError(ErrorKind::usage, std::string("field \"") + key + "\" is too large");
  return value;
}

}  // namespace

RunSpec parse_run_spec(const nlohmann::json& command, const std::vector<std::string>& supported_modes,
                       const std::vector<std::string>& supported_payload_types, bool duration_run) {
  if (duration_run) {
    for (const char* key : {"calls", "samples_file"}) {
      if (command.contains(key)) {
        throw WorkerError(ErrorKind::usage, std::string("a soak run (\"duration_s\") takes no \"") + key + "\"");
      }
    }
  }
  reject_unknown_fields(command,
                        {"mode", "payload_type", "payload_bytes", "calls", "warmup", "samples_file", "sync_timeout_ms"});
  RunSpec spec;

  const std::string mode = required_string(command, "mode");
  if (mode == "twoway") spec.mode = Mode::twoway;
  else if (mode == "oneway") spec.mode = Mode::oneway;
  else if (mode == "echo") spec.mode = Mode::echo;
  else throw WorkerError(ErrorKind::usage, "unknown mode \"" + mode + "\"");
  if (!contains(supported_modes, mode)) throw WorkerError(ErrorKind::unsupported, "mode \"" + mode + "\" not supported");

  const std::string type = required_string(command, "payload_type");
  bool known = false;
  for (const PayloadType candidate : {PayloadType::octets, PayloadType::records, PayloadType::longs,
                                      PayloadType::doubles, PayloadType::strings}) {
    if (type == payload_type_name(candidate)) {
      spec.payload_type = candidate;
      known = true;
    }
  }
  if (!known) throw WorkerError(ErrorKind::usage, "unknown payload_type \"" + type + "\"");
  if (!contains(supported_payload_types, type)) {
    throw WorkerError(ErrorKind::unsupported, "payload_type \"" + type + "\" not supported");
  }

  // A 32-bit bound: CORBA sequence lengths and the socket header's body length are both u32.
  spec.payload_bytes = unsigned_field(command, "payload_bytes", true, 0, std::numeric_limits<uint32_t>::max() - 64);
  spec.warmup = unsigned_field(command, "warmup", false, 0);
  if (!duration_run) {
    spec.calls = unsigned_field(command, "calls", true, 0);
    if (spec.calls == 0) throw WorkerError(ErrorKind::usage, "field \"calls\" must be at least 1");
    spec.samples_file = required_string(command, "samples_file");
    if (spec.samples_file.empty()) throw WorkerError(ErrorKind::usage, "field \"samples_file\" is empty");
  }
  spec.sync_timeout_ms = static_cast<uint32_t>(
      unsigned_field(command, "sync_timeout_ms", false, spec.sync_timeout_ms, std::numeric_limits<uint32_t>::max()));
  return spec;
}

ShapeSpec take_shape_spec(nlohmann::json& command, const std::vector<std::string>& supported_kinds) {
  ShapeSpec shape;
  const auto it = command.find("shape");
  if (it == command.end()) return shape;
  if (!it->is_string()) throw WorkerError(ErrorKind::usage, "field \"shape\" must be a string");
  const std::string name = it->get<std::string>();
  command.erase("shape");
  static const std::vector<std::string> kinds = {"in", "out", "inout", "return", "exception",
                                                 "wstring", "dii", "dsi", "collocated", "pipelined", "chained"};
  if (name.rfind("ami-", 0) == 0) {
    const std::string digits = name.substr(4);
    const bool numeric = !digits.empty() && digits.size() <= 3 && digits[0] != '0' &&
                         digits.find_first_not_of("0123456789") == std::string::npos;
    if (!numeric || std::stoul(digits) > 256) {
      throw WorkerError(ErrorKind::usage, "shape \"" + name + "\": ami-N takes N from 1 to 256");
    }
    shape.kind = "ami";
    shape.outstanding = static_cast<uint32_t>(std::stoul(digits));
  } else if (contains(kinds, name)) {
    shape.kind = name;
  } else {
    throw WorkerError(ErrorKind::usage, "unknown shape \"" + name + "\"");
  }
  if (!contains(supported_kinds, shape.kind)) {
    throw WorkerError(ErrorKind::unsupported, "shape \"" + name + "\" not supported");
  }
  const std::string mode = command.value("mode", "");
  const std::string type = command.value("payload_type", "");
  const bool twoway_only = shape.kind == "out" || shape.kind == "return" || shape.kind == "inout" ||
                           shape.kind == "exception" || shape.kind == "pipelined" || shape.kind == "chained";
  if (!shape.is_in() && mode != "twoway" && (twoway_only || mode != "echo")) {
    throw WorkerError(ErrorKind::unsupported, "shape \"" + name + "\" takes mode " +
                                                  (twoway_only ? "twoway" : "twoway or echo") + ", not \"" + mode + "\"");
  }
  if (shape.kind == "wstring" && type != "strings") {
    throw WorkerError(ErrorKind::unsupported, "shape \"wstring\" takes payload_type strings only");
  }
  return shape;
}

}  // namespace orbench
