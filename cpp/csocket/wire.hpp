// The socket baselines' wire format (PROTOCOL.md, "The socket baselines' wire format"): a 12-byte header
// ("OBSK", version 1, 0, flags, kind, u32 LE body length), then the body. Replies start with a 12-byte
// preamble (u32 request id, u32 status, u32 reserved), the size of a GIOP 1.2 reply header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace orbench::wire {

inline constexpr size_t kHeaderBytes = 12;
inline constexpr size_t kPreambleBytes = 12;
inline constexpr uint8_t kVersion = 1;
inline constexpr uint8_t kFlagLittleEndian = 0x01;
inline constexpr uint8_t kReplyBit = 0x80;
// Largest body a peer accepts; a larger length means a corrupt stream, not a real message.
inline constexpr uint32_t kMaxBodyBytes = 256u << 20;

enum Kind : uint8_t { ONEWAY = 1, TWOWAY = 2, ECHO = 3, SYNC = 4, COUNTERS = 5, RESET = 6, SHUTDOWN = 7 };

enum Status : uint32_t { STATUS_OK = 0, STATUS_ERROR = 1 };

inline constexpr size_t kSyncRequestBytes = 8 + 4;                       // u64 expected, u32 timeout_ms
inline constexpr size_t kSyncReplyBytes = kPreambleBytes + 1 + 8 + 8;   // complete, messages, bytes
inline constexpr size_t kCountersReplyBytes = kPreambleBytes + 8 + 8;   // messages, bytes

struct Header {
  uint8_t kind = 0;
  uint32_t body_bytes = 0;
};

inline void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void put_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint32_t get_u32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline uint64_t get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

inline void encode_header(uint8_t* out, uint8_t kind, uint32_t body_bytes) {
  std::memcpy(out, "OBSK", 4);
  out[4] = kVersion;
  out[5] = 0;
  out[6] = kFlagLittleEndian;
  out[7] = kind;
  put_u32(out + 8, body_bytes);
}

// False when the bytes are not an OBSK version-1 little-endian header (the stream cannot be trusted).
inline bool decode_header(const uint8_t* in, Header& header) {
  if (std::memcmp(in, "OBSK", 4) != 0 || in[4] != kVersion || (in[6] & kFlagLittleEndian) == 0) return false;
  header.kind = in[7];
  header.body_bytes = get_u32(in + 8);
  return true;
}

inline void encode_preamble(uint8_t* out, uint32_t request_id, uint32_t status) {
  put_u32(out, request_id);
  put_u32(out + 4, status);
  put_u32(out + 8, 0);
}

}  // namespace orbench::wire
