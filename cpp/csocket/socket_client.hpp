// The C socket baseline's client: a BenchDriver over TCP connections speaking the OBSK wire format, one for
// the client and, for a run on several threads, one more for each further thread (a socket cannot be shared).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "client_worker.hpp"
#include "socket_io.hpp"

namespace orbench {

class SocketClient final : public ClientWorker, public BenchDriver {
 public:
  ~SocketClient() override;

  // ClientWorker
  nlohmann::ordered_json worker_info() const override;
  // Every mode and payload type (ClientWorker's), the types as the bytes an ORB would count for them (the type
  // changes nothing on this wire).
  void connect(const std::string& endpoint, const nlohmann::json& options) override;
  BenchDriver& driver() override;

  // BenchDriver
  void prepare(const RunSpec& spec) override;
  void reset_counters() override;
  void shutdown_server() override;
  Counts counters() override;
  SyncOutcome sync(uint64_t expected, uint32_t timeout_ms) override;
  TimedSpan timed_calls(int64_t* samples_ns, uint64_t calls) override;
  // Opens the connections threads 1 .. threads - 1 need, to connect's endpoint with its options; kept.
  void use_threads(uint32_t threads) override;
  ThreadTally pool_calls(uint32_t thread, CallPool& pool) override;

 private:
  // One TCP connection and what reads it. Each is used by one thread at a time: the client's own (0) by the
  // command loop and thread 0 of a pool run, connection k by thread k.
  struct Connection {
    int fd = -1;
    MessageReader reader;
  };
  // The request prepare() built, in the form mode_loop takes, on one connection.
  struct Calls;

  // Opens a connection to address_ with the options of connect; throws WorkerError(transport).
  std::unique_ptr<Connection> open_connection();
  // Sends one message; throws WorkerError(transport) and closes the connection when it fails.
  void send_message(Connection& connection, const uint8_t* data, size_t length) {
    if (const int error_number = send_all(connection.fd, data, length); error_number != 0) {
      lost(connection, "send failed", error_number);
    }
  }
  // A request of a timed call: one write, or header and body as two when split_writes_. Inline, as read_reply: a
  // timed call runs no more instructions around its send() and recv() than a plain program's (callgrind).
  void send_request(Connection& connection, const uint8_t* request, size_t request_bytes) {
    if (__builtin_expect(split_writes_ && request_bytes > wire::kHeaderBytes, 0)) {
      send_message(connection, request, wire::kHeaderBytes);
      send_message(connection, request + wire::kHeaderBytes, request_bytes - wire::kHeaderBytes);
    } else {
      send_message(connection, request, request_bytes);
    }
  }
  // Reads the reply to `kind` and returns its body (valid until the next read); checks kind and status.
  const uint8_t* read_reply(Connection& connection, uint8_t kind, size_t& body_bytes) {
    wire::Header header;
    uint8_t* body = nullptr;
    const MessageReader::Result result = connection.reader.next(connection.fd, header, body);
    if (__builtin_expect(result != MessageReader::Result::message || header.kind != (wire::kReplyBit | kind) ||
                         header.body_bytes < wire::kPreambleBytes || wire::get_u32(body + 4) != wire::STATUS_OK, 0)) {
      bad_reply(connection, kind, result, header, body);
    }
    body_bytes = header.body_bytes;
    return body;
  }
  // Why read_reply's reply was not one: closes the connection where the stream cannot go on, and throws.
  [[noreturn]] void bad_reply(Connection& connection, uint8_t kind, MessageReader::Result result,
                              const wire::Header& header, const uint8_t* body);
  // A small control request (SYNC, COUNTERS, RESET) on the client's own connection, with `body`; returns the
  // reply body after the preamble.
  const uint8_t* control(uint8_t kind, const uint8_t* body, size_t body_bytes, size_t expected_reply_body);
  // Closes `connection` (only its own thread uses it) and throws WorkerError(transport).
  [[noreturn]] void lost(Connection& connection, const std::string& what, int error_number);
  static void close_connection(Connection& connection);
  void disconnect();
  Connection& own() { return *connections_[0]; }

  // [0]: the client's own connection; [k]: thread k's. Empty when not connected.
  std::vector<std::unique_ptr<Connection>> connections_;
  HostPort address_;
  uint32_t socket_buffer_bytes_ = 0;
  bool tcp_nodelay_ = true;
  Mode mode_ = Mode::twoway;
  uint32_t io_timeout_ms_ = 60000;
  // Header + payload of the run's request, built once and read by every thread: one send() per call
  // (PROTOCOL.md). Page-aligned, so the kernel's copy into its page fragment is not a short-distance
  // `rep movsb` (see MessageReader).
  PageBuffer request_;
  uint32_t payload_bytes_ = 0;
  bool split_writes_ = false;  // TCP_NODELAY off: header and body as two writes
};

}  // namespace orbench
