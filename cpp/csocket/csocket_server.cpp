// orbench-csocket-server: the C socket baseline's server worker. Speaks the OBSK wire format of
// PROTOCOL.md over TCP, one thread per connection, counting what it receives.
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "clock.hpp"
#include "connect_options.hpp"
#include "message_counter.hpp"
#include "protocol_out.hpp"
#include "server_support.hpp"
#include "socket_io.hpp"
#include "wire.hpp"

namespace orbench {
namespace {

// Leaked on purpose: connection threads are detached and may still run while the process exits.
MessageCounter& counter = *new MessageCounter;
std::atomic<int> listen_fd{-1};
// The test hook --stall-after K (PROTOCOL.md): payload-carrying messages read so far, over every connection.
std::atomic<int64_t> payload_messages_read{0};

// --stall-after K: a negative value (absent) never stalls.
int64_t stall_after_arg(const ServerArgs& args) {
  const auto it = args.values.find("--stall-after");
  if (it == args.values.end()) return -1;
  size_t used = 0;
  long long value = -1;
  try {
    value = std::stoll(it->second, &used);
  } catch (const std::exception&) {
  }
  if (used != it->second.size() || value < 0) {
    throw std::invalid_argument("bad --stall-after \"" + it->second + "\": a number of messages, 0 or more");
  }
  return value;
}

// A stuck middleware, on purpose: the connection's thread stops reading and never comes back; the peer's
// writes back up in the socket buffers. Only stdin's EOF or a signal ends the process.
[[noreturn]] void stall_forever() {
  while (true) std::this_thread::sleep_for(std::chrono::hours(1));
}

// Wakes the accept() of main: on Linux, shutdown() of a listening socket makes a blocked accept fail.
void request_stop() { shutdown(listen_fd.load(), SHUT_RDWR); }

bool carries_payload(uint8_t kind) { return kind == wire::ONEWAY || kind == wire::TWOWAY || kind == wire::ECHO; }

}  // namespace

// The known-answer server's work: delay_ns of spinning on the monotonic clock. A named function the compiler
// may not inline, outside the anonymous namespace, so a profile of the server names it (its share of the
// server's samples is delay_ns over the server's CPU per call: the profile mode's known answer).
__attribute__((noinline)) void known_answer_spin(int64_t delay_ns) { spin_until_ns(monotonic_ns() + delay_ns); }

namespace {

// Serves one connection until EOF, an error or SHUTDOWN. Control replies are built in a small preallocated
// buffer; an ECHO reply is built in the reader's buffer, its header and preamble written in front of the
// request's body (the reader keeps room there), and goes out in one send() without copying the payload, as an
// echo server that sends back the bytes it read. With delay_ns > 0 (a known-answer server, PROTOCOL.md) every
// payload-carrying request costs delay_ns of spinning between reading it and replying (oneway: counting it).
// With stall_after >= 0 (the test hook --stall-after) the server stops reading after that many payload-carrying
// messages.
void serve_connection(int fd, ConnectOptions options, int64_t delay_ns, int64_t stall_after) {
  if (const std::string failed = apply_socket_options(fd, options); !failed.empty()) {
    std::fprintf(stderr, "orbench: connection: %s\n", failed.c_str());
  }
  // The reply's header and preamble (24 bytes) in front of an echoed body: the request's 12-byte header plus
  // 12 bytes of headroom.
  MessageReader reader(256 * 1024, wire::kPreambleBytes);
  uint8_t reply[wire::kHeaderBytes + wire::kSyncReplyBytes];
  uint32_t request_id = 0;  // the preamble's request id: this connection's request count, from 0
  bool stop_server = false;
  wire::Header header;
  uint8_t* body = nullptr;

  while (reader.next(fd, header, body) == MessageReader::Result::message) {
    if (stall_after >= 0 && carries_payload(header.kind) && payload_messages_read.fetch_add(1) >= stall_after) {
      stall_forever();
    }
    if (delay_ns > 0 && carries_payload(header.kind)) known_answer_spin(delay_ns);
    const uint32_t id = request_id++;
    if (header.kind == wire::ONEWAY) {  // no reply
      counter.count(header.body_bytes);
      continue;
    }
    size_t reply_body = wire::kPreambleBytes;
    uint32_t status = wire::STATUS_OK;
    uint8_t* out = reply;  // where the reply's header starts
    switch (header.kind) {
      case wire::TWOWAY:
        counter.count(header.body_bytes);
        break;
      case wire::ECHO:
        counter.count(header.body_bytes);
        reply_body += header.body_bytes;
        out = body - wire::kHeaderBytes - wire::kPreambleBytes;
        break;
      case wire::SYNC: {
        if (header.body_bytes != wire::kSyncRequestBytes) {
          status = wire::STATUS_ERROR;
          break;
        }
        const SyncOutcome outcome = counter.wait_for(wire::get_u64(body), wire::get_u32(body + 8));
        uint8_t* fields = reply + wire::kHeaderBytes + wire::kPreambleBytes;
        fields[0] = outcome.complete ? 1 : 0;
        wire::put_u64(fields + 1, outcome.received.messages);
        wire::put_u64(fields + 9, outcome.received.bytes);
        reply_body = wire::kSyncReplyBytes;
        break;
      }
      case wire::COUNTERS: {
        const Counts counts = counter.snapshot();
        uint8_t* fields = reply + wire::kHeaderBytes + wire::kPreambleBytes;
        wire::put_u64(fields, counts.messages);
        wire::put_u64(fields + 8, counts.bytes);
        reply_body = wire::kCountersReplyBytes;
        break;
      }
      case wire::RESET:
        counter.reset();
        break;
      case wire::SHUTDOWN:
        stop_server = true;
        break;
      default:  // an unknown kind with a valid header: answer an error, the stream itself is still sound
        status = wire::STATUS_ERROR;
        break;
    }
    wire::encode_header(out, 0x80 | header.kind, static_cast<uint32_t>(reply_body));
    wire::encode_preamble(out + wire::kHeaderBytes, id, status);
    if (send_all(fd, out, wire::kHeaderBytes + reply_body) != 0) break;
    if (stop_server) break;
  }
  close(fd);
  if (stop_server) request_stop();
}

int serve(int argc, char** argv) {
  block_stop_signals();
  ServerArgs args;
  ConnectOptions options;
  int64_t delay_ns = 0;
  int64_t stall_after = -1;
  try {
    args = parse_server_args(argc, argv, {"--no-nodelay"}, {"--delay-ns", "--stall-after"});
    options = parse_server_options(args.options);
    delay_ns = delay_ns_arg(args);
    stall_after = stall_after_arg(args);
  } catch (const std::invalid_argument& e) {
    print_start_error(e.what());
    return 2;
  }
  // TCP_NODELAY is on for accepted sockets unless --option tcp_nodelay=false (or the older --no-nodelay).
  if (!options.tcp_nodelay) options.tcp_nodelay = args.flags.empty();

  int bound_port = 0;
  std::string error;
  // Buffer sizes go on the listening socket too, before listen(): accepted sockets inherit them, and the
  // receive buffer must be set before the handshake for the window scale to fit it.
  const int fd = listen_tcp(args.host, args.port, bound_port, error, options.socket_buffer_bytes.value_or(0));
  if (fd < 0) {
    print_start_error(error);
    return 1;
  }
  listen_fd.store(fd);
  report_received_in_stats(&counter);
  start_stop_watchers(request_stop);
  nlohmann::ordered_json info = server_worker_info("c-socket", nullptr, "");
  if (delay_ns > 0) info["delay_ns"] = delay_ns;  // what this known-answer server adds per call
  print_ready(format_tcp_endpoint(args.host, bound_port), info);

  while (true) {
    const int connection = accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection >= 0) {
      std::thread(serve_connection, connection, options, delay_ns, stall_after).detach();
    } else if (errno != EINTR && errno != ECONNABORTED) {
      break;  // request_stop() shut the listening socket down
    }
  }
  print_exit(counter.snapshot());
  // _exit: detached connection threads may still be blocked in recv(); there is nothing to clean up, and the
  // protocol lines are already flushed.
  _exit(0);
}

}  // namespace
}  // namespace orbench

int main(int argc, char** argv) {
  orbench::reserve_stdout_for_protocol();
  return orbench::serve(argc, argv);
}
