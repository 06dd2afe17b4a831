#include "requests.hpp"

#include "clock.hpp"

namespace orbench {

namespace {
bool send_reply(Connection& c, uint8_t* out, uint8_t kind, uint32_t id, uint32_t status, size_t reply_body) {
  wire::encode_header(out, 0x80 | kind, static_cast<uint32_t>(reply_body));
  wire::encode_preamble(out + wire::kHeaderBytes, id, status);
  return send_all(c.fd, out, wire::kHeaderBytes + reply_body) == 0;
}
}  // namespace

// The known-answer server's work: delay_ns of spinning on the monotonic clock. A named function the compiler
// may not inline, outside any anonymous namespace, so a profile of the server names it (its share of the
// server's samples is delay_ns over the server's CPU per call: the profile mode's known answer).
__attribute__((noinline)) void known_answer_spin(int64_t delay_ns) { spin_until_ns(monotonic_ns() + delay_ns); }

#if defined(__x86_64__) || defined(__aarch64__)
const int kWorkInstructionsPerIteration = 2;
#else
const int kWorkInstructionsPerIteration = 0;
#endif

__attribute__((noinline)) void known_answer_work(int64_t iterations) {
  if (iterations <= 0) return;
#if defined(__x86_64__)
  asm volatile("1:\n\tdec %0\n\tjnz 1b" : "+r"(iterations) : : "cc");
#elif defined(__aarch64__)
  asm volatile("1:\n\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(iterations) : : "cc");
#else
  for (volatile int64_t i = 0; i < iterations; i = i + 1) {
  }
#endif
}

bool answer_sync(Connection& c, uint32_t id, const SyncOutcome& outcome) {
  uint8_t* fields = c.reply + wire::kHeaderBytes + wire::kPreambleBytes;
  fields[0] = outcome.complete ? 1 : 0;
  wire::put_u64(fields + 1, outcome.received.messages);
  wire::put_u64(fields + 9, outcome.received.bytes);
  return send_reply(c, c.reply, wire::SYNC, id, wire::STATUS_OK, wire::kSyncReplyBytes);
}

After serve_other_request(Connection& c, const wire::Header& header, uint8_t* body, MessageCounter& counter,
                          const KnownWork& work) {
  if (carries_payload(header.kind)) {
    if (work.delay_ns > 0) known_answer_spin(work.delay_ns);
    if (work.work_iterations > 0) known_answer_work(work.work_iterations);
  }
  const uint32_t id = c.request_id++;
  if (header.kind == wire::ONEWAY) {  // no reply
    counter.count(header.body_bytes);
    return After::read_on;
  }
  size_t reply_body = wire::kPreambleBytes;
  uint32_t status = wire::STATUS_OK;
  uint8_t* out = c.reply;  // where the reply's header starts
  After after = After::read_on;
  switch (header.kind) {
    case wire::TWOWAY:
      counter.count(header.body_bytes);
      break;
    case wire::ECHO:
      counter.count(header.body_bytes);
      reply_body += header.body_bytes;
      out = body - wire::kHeaderBytes - wire::kPreambleBytes;
      break;
    case wire::SYNC:
      if (header.body_bytes != wire::kSyncRequestBytes) {
        status = wire::STATUS_ERROR;
        break;
      }
      return answer_sync(c, id, counter.wait_for(wire::get_u64(body), wire::get_u32(body + 8))) ? After::read_on
                                                                                              : After::close;
    case wire::COUNTERS: {
      const Counts counts = counter.snapshot();
      uint8_t* fields = c.reply + wire::kHeaderBytes + wire::kPreambleBytes;
      wire::put_u64(fields, counts.messages);
      wire::put_u64(fields + 8, counts.bytes);
      reply_body = wire::kCountersReplyBytes;
      break;
    }
    case wire::RESET:
      counter.reset();
      break;
    case wire::SHUTDOWN:
      after = After::stop_server;
      break;
    default:  // an unknown kind with a valid header: answer an error, the stream itself is still sound
      status = wire::STATUS_ERROR;
      break;
  }
  const bool sent = send_reply(c, out, header.kind, id, status, reply_body);
  return sent || after == After::stop_server ? after : After::close;
}

}  // namespace orbench
