// The C socket server's requests over a socket pair: a plain baseline's TWOWAY reply, built inline from a reply
// written once, is byte for byte the general path's (header, preamble with the connection's request ids from 0,
// status OK); a ONEWAY is counted and answered by nothing; a known-answer server's requests, its work done first,
// are answered the same. Either way the counter sees every payload-carrying request and its bytes.
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "check.hpp"
#include "message_counter.hpp"
#include "requests.hpp"
#include "wire.hpp"

using namespace orbench;

// Serves TWOWAY, TWOWAY, ONEWAY, TWOWAY through `serve` and returns what the peer reads.
template <typename Serve>
static std::vector<uint8_t> replies(Serve serve) {
  int fds[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  Connection c(fds[0]);
  uint8_t body[5] = {1, 2, 3, 4, 5};
  for (uint8_t kind : {wire::TWOWAY, wire::TWOWAY, wire::ONEWAY, wire::TWOWAY}) {
    wire::Header header;
    header.kind = kind;
    header.body_bytes = sizeof body;
    CHECK(serve(c, header, body) == After::read_on);
  }
  close(fds[0]);
  std::vector<uint8_t> out(256);
  size_t got = 0;
  while (true) {
    const ssize_t n = read(fds[1], out.data() + got, out.size() - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(fds[1]);
  out.resize(got);
  return out;
}

static void twoway_replies_inline_and_general_agree() {
  const KnownWork plain;
  MessageCounter inline_counter, general_counter;
  const auto inline_bytes = replies([&](Connection& c, const wire::Header& h, uint8_t* b) {
    return serve_request(c, h, b, inline_counter, plain);
  });
  const auto general_bytes = replies([&](Connection& c, const wire::Header& h, uint8_t* b) {
    return serve_other_request(c, h, b, general_counter, plain);
  });
  CHECK(inline_bytes.size() == 3 * (wire::kHeaderBytes + wire::kPreambleBytes));
  CHECK(inline_bytes == general_bytes);
  const uint32_t ids[] = {0, 1, 3};  // the ONEWAY took id 2 and sent nothing
  for (size_t k = 0; k < 3 && inline_bytes.size() >= 72; ++k) {
    const uint8_t* reply = inline_bytes.data() + k * 24;
    wire::Header header;
    CHECK(wire::decode_header(reply, header));
    CHECK(header.kind == (wire::kReplyBit | wire::TWOWAY) && header.body_bytes == wire::kPreambleBytes);
    CHECK(wire::get_u32(reply + 12) == ids[k]);
    CHECK(wire::get_u32(reply + 16) == wire::STATUS_OK && wire::get_u32(reply + 20) == 0);
  }
  for (const MessageCounter* counter : {&inline_counter, &general_counter}) {
    CHECK(counter->snapshot().messages == 4 && counter->snapshot().bytes == 20);
  }
}

static void known_work_answers_alike() {
  KnownWork work;
  work.work_iterations = 1000;
  MessageCounter counter, plain_counter;
  const auto worked = replies([&](Connection& c, const wire::Header& h, uint8_t* b) {
    return serve_request(c, h, b, counter, work);
  });
  const auto plain = replies([&](Connection& c, const wire::Header& h, uint8_t* b) {
    return serve_request(c, h, b, plain_counter, KnownWork{});
  });
  CHECK(worked == plain);
  CHECK(counter.snapshot().messages == 4 && counter.snapshot().bytes == 20);
}

int main() {
  twoway_replies_inline_and_general_agree();
  known_work_answers_alike();
  return orbench_test::finish("test_requests");
}
