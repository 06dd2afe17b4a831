// What the C socket server does with one request of a connection (PROTOCOL.md, "The socket baselines' wire
// format"), shared by its two models: a thread per connection, and one thread serving all of them (--serial).
#pragma once

#include <cstdint>

#include "bench_driver.hpp"
#include "message_counter.hpp"
#include "socket_io.hpp"
#include "wire.hpp"

namespace orbench {

// delay_ns of spinning on the monotonic clock, never inlined: what a known-answer server's profile must name.
void known_answer_spin(int64_t delay_ns);


inline bool carries_payload(uint8_t kind) {
  return kind == wire::ONEWAY || kind == wire::TWOWAY || kind == wire::ECHO;
}

// One accepted connection: its reader and its reply buffer, allocated once.
struct Connection {
  explicit Connection(int socket) : fd(socket) {}
  int fd;
  // The reply's header and preamble (24 bytes) go in front of an echoed body: the request's 12-byte header plus
  // 12 bytes of headroom.
  MessageReader reader{256 * 1024, wire::kPreambleBytes};
  uint8_t reply[wire::kHeaderBytes + wire::kSyncReplyBytes];
  uint32_t request_id = 0;  // the preamble's request id: this connection's request count, from 0
};

// What the connection does after a request.
enum class After { read_on, close, stop_server };

// Serves one request the connection's reader returned: with delay_ns > 0 (a known-answer server) a
// payload-carrying request first costs delay_ns of spinning; then it is counted and its reply goes out in one
// send() (an ECHO's built in front of the request's body, no copy). A SYNC waits on the counter here; the
// serial server, which must not wait, answers SYNC itself with answer_sync.
After serve_request(Connection& c, const wire::Header& header, uint8_t* body, MessageCounter& counter,
                    int64_t delay_ns);

// Sends a SYNC's reply, for request `id` of the connection; false when the send failed.
bool answer_sync(Connection& c, uint32_t id, const SyncOutcome& outcome);

}  // namespace orbench
