// Plain POSIX socket I/O for the socket baselines: whole-buffer send, buffered message reads, endpoints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "wire.hpp"

namespace orbench {

// Sends all `length` bytes, looping over partial writes. Returns 0, or an errno value.
int send_all(int fd, const uint8_t* data, size_t length);

// Reads whole messages from a stream socket through one growing buffer: a recv() takes whatever has
// arrived, so a small reply or a burst of oneways costs one system call, not one per header and body.
//
// Every message has at least `headroom` bytes of the buffer before its header that belong to no unread
// message (reserved space, or messages already returned), so together with the header, headroom +
// kHeaderBytes bytes in front of the body may be overwritten: a server builds an echo reply there, in front
// of the request's body, and sends it with one send() and no copy.
class MessageReader {
 public:
  explicit MessageReader(size_t initial_capacity = 256 * 1024, size_t headroom = 0)
      : buffer_(headroom + initial_capacity), headroom_(headroom), begin_(headroom), end_(headroom) {}

  enum class Result { message, eof, error, bad_header };
  // On `message`, `header` and `body` describe the next message; `body` stays valid until the next call.
  // On `error`, `error_number` holds the errno value (EAGAIN for a receive timeout).
  Result next(int fd, wire::Header& header, uint8_t*& body);
  int error_number() const { return error_number_; }

 private:
  // Makes at least `needed` bytes available from begin_; returns false on EOF or error.
  bool fill(int fd, size_t needed, bool& eof);

  std::vector<uint8_t> buffer_;
  size_t headroom_;
  size_t begin_;
  size_t end_;
  int error_number_ = 0;
};

struct HostPort {
  std::string host;
  int port = 0;
};

// "tcp://HOST:PORT", with an IPv6 host in brackets.
std::string format_tcp_endpoint(const std::string& host, int port);
// Throws std::invalid_argument for anything else.
HostPort parse_tcp_endpoint(const std::string& endpoint);

// Both return a socket, or -1 with `error` set. A non-zero `buffer_bytes` sets SO_SNDBUF and SO_RCVBUF
// before bind/connect, so the TCP window scale is chosen for it.
int listen_tcp(const std::string& host, int port, int& bound_port, std::string& error, uint32_t buffer_bytes = 0);
int connect_tcp(const std::string& host, int port, std::string& error, uint32_t buffer_bytes = 0);

bool set_tcp_nodelay(int fd, bool on);
// Send and receive timeouts, so that a server that stops answering yields EAGAIN instead of a hang.
void set_io_timeouts(int fd, uint32_t timeout_ms);

}  // namespace orbench
