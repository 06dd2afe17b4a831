// The payload elements of PROTOCOL.md ("Payload types"), the same in every language: element i of each type.
// Every C++ client builds its payloads from these, whatever its middleware's sequence types are.
#pragma once

#include <cstdint>
#include <string>

#include "run_spec.hpp"

namespace orbench::payload {

inline uint8_t octet(uint64_t i) { return static_cast<uint8_t>(i & 0xff); }

// The low 32 bits of i x 2654435761 (Knuth's multiplicative hash), as a signed IDL long.
inline int32_t long_value(uint64_t i) { return static_cast<int32_t>(static_cast<uint32_t>(i * 2654435761ull)); }

inline double double_value(uint64_t i) { return static_cast<double>(i) * 0.5 + 0.25; }

// kStringChars letters, letter j being 'a' + (i + j) mod 26: no two neighbours alike.
inline std::string string_value(uint64_t i) {
  std::string text(kStringChars, 'a');
  for (uint64_t j = 0; j < kStringChars; ++j) text[j] = static_cast<char>('a' + (i + j) % 26);
  return text;
}

// Record i: id i, value i x 0.5, flags i (15 bits), kind i & 0xff, level (i >> 8) & 0xff.
inline int32_t record_id(uint64_t i) { return static_cast<int32_t>(i); }
inline double record_value(uint64_t i) { return static_cast<double>(i) * 0.5; }
inline int16_t record_flags(uint64_t i) { return static_cast<int16_t>(i & 0x7fff); }
inline uint8_t record_kind(uint64_t i) { return static_cast<uint8_t>(i & 0xff); }
inline uint8_t record_level(uint64_t i) { return static_cast<uint8_t>((i >> 8) & 0xff); }

}  // namespace orbench::payload
