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

// Element i of payload type T, records aside (their fields are set one by one: fill_record).
template <PayloadType T>
auto element(uint64_t i) {
  if constexpr (T == PayloadType::octets) return octet(i);
  else if constexpr (T == PayloadType::longs) return long_value(i);
  else if constexpr (T == PayloadType::doubles) return double_value(i);
  else return string_value(i);
}

// A record of a mapping with the IDL's field names as members (the CORBA and Ice C++ mappings).
template <typename Record>
void fill_record(Record& record, uint64_t i) {
  record.id = record_id(i);
  record.value = record_value(i);
  record.flags = record_flags(i);
  record.kind = record_kind(i);
  record.level = record_level(i);
}

// The same for a mapping with setters (protobuf's).
template <typename Record>
void set_record(Record& record, uint64_t i) {
  record.set_id(record_id(i));
  record.set_value(record_value(i));
  record.set_flags(record_flags(i));
  record.set_kind(record_kind(i));
  record.set_level(record_level(i));
}

template <typename Record>
bool same_record(const Record& x, const Record& y) {
  return x.id == y.id && x.value == y.value && x.flags == y.flags && x.kind == y.kind && x.level == y.level;
}

// Elements 0..count of a sequence the caller has sized, indexed like an array (CORBA sequences, std::vector):
// element first + i at index i (first 1: the reply of the shapes out, return and inout, PROTOCOL.md).
// Strings go in as const char*, which both mappings copy.
template <PayloadType T, typename Sequence>
void fill_indexed(Sequence& sequence, uint64_t count, uint64_t first = 0) {
  for (uint64_t i = 0; i < count; ++i) {
    if constexpr (T == PayloadType::records) fill_record(sequence[i], first + i);
    else if constexpr (T == PayloadType::strings) sequence[i] = string_value(first + i).c_str();
    else sequence[i] = element<T>(first + i);
  }
}

// string_value(i) as wide characters (the shape wstring): the same letters.
inline std::wstring wstring_value(uint64_t i) {
  const std::string narrow = string_value(i);
  return std::wstring(narrow.begin(), narrow.end());
}

}  // namespace orbench::payload
