// The C socket baseline's client: a BenchDriver over one TCP connection speaking the OBSK wire format.
#pragma once

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
  Counts counters() override;
  SyncOutcome sync(uint64_t expected, uint32_t timeout_ms) override;
  TimedSpan timed_calls(int64_t* samples_ns, uint64_t calls) override;

 private:
  // Sends one message and, unless it is a oneway, reads its reply; throws WorkerError(transport/remote).
  void send_message(const uint8_t* data, size_t length);
  // A request of a timed call: one write, or header and body as two when split_writes_.
  void send_request(const uint8_t* request, size_t request_bytes);
  // Reads the reply to `kind` and returns its body (valid until the next read); checks kind and status.
  const uint8_t* read_reply(uint8_t kind, size_t& body_bytes);
  // A small control request (SYNC, COUNTERS, RESET) with `body`; returns the reply body after the preamble.
  const uint8_t* control(uint8_t kind, const uint8_t* body, size_t body_bytes, size_t expected_reply_body);
  [[noreturn]] void lost(const std::string& what, int error_number);
  void disconnect();

  int fd_ = -1;
  MessageReader reader_;
  Mode mode_ = Mode::twoway;
  uint32_t io_timeout_ms_ = 60000;
  // Header + payload of the run's request, built once: one send() per call (PROTOCOL.md). Page-aligned, so
  // the kernel's copy into its page fragment is not a short-distance `rep movsb` (see MessageReader).
  PageBuffer request_;
  uint32_t payload_bytes_ = 0;
  bool split_writes_ = false;  // TCP_NODELAY off: header and body as two writes
};

}  // namespace orbench
