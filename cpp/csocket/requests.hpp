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

// `iterations` turns of a loop of exactly kWorkInstructionsPerIteration instructions (inline assembly, so the
// compiler can neither drop nor reshape it), never inlined: the counting mode's known answer, N x k
// instructions per call whatever the machine's speed.
void known_answer_work(int64_t iterations);
// k: instructions per turn of known_answer_work's loop (a decrement and a conditional branch); 0 on an
// architecture without the assembly loop, where the loop is plain C and its k is not known in advance.
extern const int kWorkInstructionsPerIteration;

// A known-answer server's extra work per payload-carrying request (both 0: a plain baseline).
struct KnownWork {
  int64_t delay_ns = 0;         // --delay-ns: spin this long on the monotonic clock
  int64_t work_iterations = 0;  // --work-iterations: run known_answer_work this many turns
};


inline bool carries_payload(uint8_t kind) {
  return kind == wire::ONEWAY || kind == wire::TWOWAY || kind == wire::ECHO;
}

// One accepted connection: its reader and its reply buffer, allocated once.
struct Connection {
  explicit Connection(int socket) : fd(socket) {
    wire::encode_header(twoway_reply, wire::kReplyBit | wire::TWOWAY, wire::kPreambleBytes);
    wire::encode_preamble(twoway_reply + wire::kHeaderBytes, 0, wire::STATUS_OK);
  }
  int fd;
  // The reply's header and preamble (24 bytes) go in front of an echoed body: the request's 12-byte header plus
  // 12 bytes of headroom.
  MessageReader reader{256 * 1024, wire::kPreambleBytes};
  uint8_t reply[wire::kHeaderBytes + wire::kSyncReplyBytes];
  // A TWOWAY's whole reply, written once: each one then only sets its request id.
  uint8_t twoway_reply[wire::kHeaderBytes + wire::kPreambleBytes];
  uint32_t request_id = 0;  // the preamble's request id: this connection's request count, from 0
};

// What the connection does after a request.
enum class After { read_on, close, stop_server };

// Serves one request the connection's reader returned: for a known-answer server a payload-carrying request
// first costs its known work (a spin of delay_ns, a loop of work_iterations); then it is counted and its reply
// goes out in one send() (an ECHO's built in front of the request's body, no copy). A SYNC waits on the counter
// here; the serial server, which must not wait, answers SYNC itself with answer_sync.
After serve_other_request(Connection& c, const wire::Header& header, uint8_t* body, MessageCounter& counter,
                          const KnownWork& work);
// Inline, TWOWAY and ONEWAY: a timed call's server side must cost no more than a plain program's (the general
// path ran ~250 instructions more per call, callgrind). A known-answer server's work runs here too, so that it
// is the only difference between it and the plain baseline (the counting mode's known answer).
inline After serve_request(Connection& c, const wire::Header& header, uint8_t* body, MessageCounter& counter,
                           const KnownWork& work) {
  if (header.kind != wire::TWOWAY && header.kind != wire::ONEWAY) {
    return serve_other_request(c, header, body, counter, work);
  }
  if (work.delay_ns > 0) known_answer_spin(work.delay_ns);
  if (work.work_iterations > 0) known_answer_work(work.work_iterations);
  const uint32_t id = c.request_id++;
  counter.count(header.body_bytes);
  if (header.kind == wire::ONEWAY) return After::read_on;
  wire::put_u32(c.twoway_reply + wire::kHeaderBytes, id);
  return send_all(c.fd, c.twoway_reply, sizeof c.twoway_reply) == 0 ? After::read_on : After::close;
}

// Sends a SYNC's reply, for request `id` of the connection; false when the send failed.
bool answer_sync(Connection& c, uint32_t id, const SyncOutcome& outcome);

}  // namespace orbench
