#include "socket_client.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "connect_options.hpp"
#include "worker_error.hpp"

namespace orbench {

namespace {
// Extra time over a sync's own timeout before a silent server counts as lost.
constexpr uint32_t kIoTimeoutMarginMs = 30000;
}  // namespace

SocketClient::~SocketClient() { disconnect(); }

nlohmann::ordered_json SocketClient::worker_info() const {
  return {{"role", "client"}, {"target", "c-socket"}, {"language", "c++"}, {"runtime", cxx_runtime_description()}};
}

void SocketClient::close_connection(Connection& connection) {
  if (connection.fd >= 0) close(connection.fd);
  connection.fd = -1;
  connection.reader = MessageReader();
}

void SocketClient::disconnect() {
  for (auto& connection : connections_) close_connection(*connection);
  connections_.clear();
}

std::unique_ptr<SocketClient::Connection> SocketClient::open_connection() {
  auto connection = std::make_unique<Connection>();
  std::string error;
  connection->fd = connect_tcp(address_.host, address_.port, error, socket_buffer_bytes_);
  if (connection->fd < 0) throw WorkerError(ErrorKind::transport, error);
  set_tcp_nodelay(connection->fd, tcp_nodelay_);
  set_io_timeouts(connection->fd, io_timeout_ms_);
  return connection;
}

void SocketClient::connect(const std::string& endpoint, const nlohmann::json& options) {
  ConnectOptions parsed = parse_connect_options(options);
  if (parsed.sync_scope) {
    throw WorkerError(ErrorKind::unsupported, "option \"sync_scope\": a socket baseline has no oneway sync scope");
  }
  HostPort address;
  try {
    address = parse_tcp_endpoint(endpoint);
  } catch (const std::invalid_argument& e) {
    throw WorkerError(ErrorKind::usage, e.what());
  }
  disconnect();
  address_ = address;
  socket_buffer_bytes_ = parsed.socket_buffer_bytes.value_or(0);
  tcp_nodelay_ = parsed.tcp_nodelay.value_or(true);
  // With Nagle's algorithm on, requests go out as header then body, two writes, as an ORB's GIOP layer may
  // write them: the second write waits for the ACK of the first, which the peer delays (PROTOCOL.md).
  split_writes_ = !tcp_nodelay_;
  io_timeout_ms_ = kIoTimeoutMarginMs;
  connections_.push_back(open_connection());
  reset_counters();
}

BenchDriver& SocketClient::driver() {
  if (connections_.empty() || own().fd < 0) throw WorkerError(ErrorKind::transport, "not connected");
  return *this;
}

void SocketClient::use_threads(uint32_t threads) {
  // A connection of an earlier run that broke is opened again; the others are kept.
  for (uint32_t k = 1; k < threads; ++k) {
    if (k >= connections_.size()) {
      connections_.push_back(open_connection());
    } else if (connections_[k]->fd < 0) {
      connections_[k] = open_connection();
    }
  }
}

void SocketClient::lost(Connection& connection, const std::string& what, int error_number) {
  close_connection(connection);
  const std::string why = error_number == EAGAIN || error_number == EWOULDBLOCK ? "timed out" : std::strerror(error_number);
  throw WorkerError(ErrorKind::transport, what + ": " + why);
}

void SocketClient::bad_reply(Connection& connection, uint8_t kind, MessageReader::Result result,
                             const wire::Header& header, const uint8_t* body) {
  switch (result) {
    case MessageReader::Result::message: break;
    case MessageReader::Result::eof: lost(connection, "connection closed by the server", ECONNRESET);
    case MessageReader::Result::error: lost(connection, "receive failed", connection.reader.error_number());
    case MessageReader::Result::bad_header:
      close_connection(connection);
      throw WorkerError(ErrorKind::transport, "bad reply header");
  }
  if (header.kind != (wire::kReplyBit | kind) || header.body_bytes < wire::kPreambleBytes) {
    close_connection(connection);
    throw WorkerError(ErrorKind::transport, "unexpected reply kind " + std::to_string(header.kind));
  }
  throw WorkerError(ErrorKind::remote, "server answered status " + std::to_string(wire::get_u32(body + 4)));
}

const uint8_t* SocketClient::control(uint8_t kind, const uint8_t* body, size_t body_bytes, size_t expected_reply_body) {
  uint8_t message[wire::kHeaderBytes + wire::kSyncRequestBytes];
  wire::encode_header(message, kind, static_cast<uint32_t>(body_bytes));
  if (body_bytes > 0) std::memcpy(message + wire::kHeaderBytes, body, body_bytes);
  send_message(own(), message, wire::kHeaderBytes + body_bytes);
  size_t reply_bytes = 0;
  const uint8_t* reply = read_reply(own(), kind, reply_bytes);
  if (reply_bytes != expected_reply_body) {
    close_connection(own());
    throw WorkerError(ErrorKind::transport, "reply of kind " + std::to_string(kind) + " has a wrong length");
  }
  return reply + wire::kPreambleBytes;
}

void SocketClient::reset_counters() { control(wire::RESET, nullptr, 0, wire::kPreambleBytes); }

void SocketClient::shutdown_server() { control(wire::SHUTDOWN, nullptr, 0, wire::kPreambleBytes); }

Counts SocketClient::counters() {
  const uint8_t* reply = control(wire::COUNTERS, nullptr, 0, wire::kCountersReplyBytes);
  return {wire::get_u64(reply), wire::get_u64(reply + 8)};
}

SyncOutcome SocketClient::sync(uint64_t expected, uint32_t timeout_ms) {
  // The server may legitimately take timeout_ms to answer: keep the receive timeout above it.
  const uint64_t needed = uint64_t{timeout_ms} + kIoTimeoutMarginMs;
  if (needed > io_timeout_ms_) {
    io_timeout_ms_ = static_cast<uint32_t>(std::min<uint64_t>(needed, UINT32_MAX));
    set_io_timeouts(own().fd, io_timeout_ms_);
  }
  uint8_t body[wire::kSyncRequestBytes];
  wire::put_u64(body, expected);
  wire::put_u32(body + 8, timeout_ms);
  const uint8_t* reply = control(wire::SYNC, body, sizeof body, wire::kSyncReplyBytes);
  return {reply[0] != 0, {wire::get_u64(reply + 1), wire::get_u64(reply + 9)}};
}

void SocketClient::prepare(const RunSpec& spec) {
  mode_ = spec.mode;
  // Every payload type is plain bytes on this wire: the body is the bytes an ORB's server would count for
  // the type at this size (PROTOCOL.md, "Payload types"), so the baseline pairs with the ORB byte for byte.
  const uint64_t body_bytes = counted_payload_bytes(spec.payload_type, spec.payload_bytes);
  payload_bytes_ = static_cast<uint32_t>(body_bytes);
  const uint8_t kind = spec.mode == Mode::oneway ? wire::ONEWAY : spec.mode == Mode::twoway ? wire::TWOWAY : wire::ECHO;
  request_ = PageBuffer(wire::kHeaderBytes + body_bytes);
  wire::encode_header(request_.data(), kind, payload_bytes_);
  for (uint64_t i = 0; i < body_bytes; ++i) request_.data()[wire::kHeaderBytes + i] = static_cast<uint8_t>(i & 0xff);
}

struct SocketClient::Calls {
  SocketClient& client;
  Connection& connection;
  const uint8_t* request;
  size_t request_bytes;
  uint8_t kind;
  uint32_t payload_bytes;
  auto oneway() {
    return [this](uint64_t) { client.send_request(connection, request, request_bytes); };
  }
  auto twoway() {
    return [this](uint64_t) {
      client.send_request(connection, request, request_bytes);
      size_t reply_bytes;
      client.read_reply(connection, kind, reply_bytes);
    };
  }
  auto echo() {
    return [this](uint64_t) {
      client.send_request(connection, request, request_bytes);
      size_t reply_bytes;
      const uint8_t* reply = client.read_reply(connection, kind, reply_bytes);
      return std::make_pair(reply, reply_bytes);
    };
  }
  bool same(const std::pair<const uint8_t*, size_t>& reply) const {
    return reply.second == wire::kPreambleBytes + payload_bytes &&
           std::memcmp(reply.first + wire::kPreambleBytes, request + wire::kHeaderBytes, payload_bytes) == 0;
  }
};

TimedSpan SocketClient::timed_calls(int64_t* samples_ns, uint64_t calls) {
  // No send or receive timeout during the calls: a blocking call with one arms a kernel timer each time it
  // waits, which cost 1.3-1.5% of a same-core 16 B round trip on a 2-vCPU KVM guest, and the plain programs
  // orbench is checked against set none. A server that hangs meanwhile is for the harness's watchdog to end;
  // every control request (sync, counters) keeps the timeout.
  struct Untimed {
    int fd;
    uint32_t restore_ms;
    ~Untimed() { set_io_timeouts(fd, restore_ms); }
  } untimed{own().fd, io_timeout_ms_};
  set_io_timeouts(untimed.fd, 0);
  Calls make{*this, own(), request_.data(), request_.size(), request_.data()[7], payload_bytes_};
  return mode_loop(mode_, samples_ns, calls, make);
}

ThreadTally SocketClient::pool_calls(uint32_t thread, CallPool& pool) {
  skip_cancellation_bookkeeping();  // this thread's own, as main's
  Connection& connection = *connections_.at(thread);
  if (connection.fd < 0) throw WorkerError(ErrorKind::transport, "thread " + std::to_string(thread) + ": not connected");
  Calls make{*this, connection, request_.data(), request_.size(), request_.data()[7], payload_bytes_};
  return mode_pool_loop(mode_, pool, make);
}

}  // namespace orbench
