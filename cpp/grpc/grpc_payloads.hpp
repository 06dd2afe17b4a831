// What a gRPC server counts for each payload message (PROTOCOL.md, "Payload types"): whole elements x unit.
#pragma once

#include <cstdint>
#include <string>

#include "orbench.grpc.pb.h"
#include "run_spec.hpp"

namespace orbench {

inline uint64_t payload_bytes(const orbench::Octets& m) { return m.items().size(); }
inline uint64_t payload_bytes(const orbench::Records& m) { return m.items_size() * kRecordBytes; }
inline uint64_t payload_bytes(const orbench::Longs& m) { return m.items_size() * uint64_t{4}; }
inline uint64_t payload_bytes(const orbench::Doubles& m) { return m.items_size() * uint64_t{8}; }
// A string counts its characters.
inline uint64_t payload_bytes(const orbench::Strings& m) {
  uint64_t bytes = 0;
  for (const std::string& s : m.items()) bytes += s.size();
  return bytes;
}

}  // namespace orbench
