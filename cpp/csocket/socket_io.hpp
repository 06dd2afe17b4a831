// Plain POSIX socket I/O for the socket baselines: whole-buffer send, buffered message reads, endpoints.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include <sys/socket.h>

#include "wire.hpp"

namespace orbench {

// Sends all `length` bytes, looping over partial writes. Returns 0, or an errno value. Inline, with the loop
// out of line: a baseline's timed call must cost what a plain program's one send() does.
int send_rest(int fd, const uint8_t* data, size_t length, ssize_t sent);
inline int send_all(int fd, const uint8_t* data, size_t length) {
  // MSG_NOSIGNAL: a vanished peer must give EPIPE, not kill the worker with SIGPIPE.
  const ssize_t sent = send(fd, data, length, MSG_NOSIGNAL);
  if (__builtin_expect(sent == static_cast<ssize_t>(length), 1)) return 0;
  return send_rest(fd, data, length, sent);
}

// For the calling thread: in a process with more than one thread, glibc brackets every send() and recv() with
// two atomic updates of the thread's cancellation type unless it is asynchronous already, and a plain
// single-threaded program pays neither. Cancellation is turned off (nothing cancels a worker's thread), so the
// type changes nothing else.
void skip_cancellation_bookkeeping();

// A zero-filled byte buffer that starts on a page boundary, so that where a message lies within a page is
// chosen by its user (see MessageReader) and not by the allocator.
class PageBuffer {
 public:
  explicit PageBuffer(size_t size = 0) { resize(size); }
  uint8_t* data() { return bytes_.get(); }
  const uint8_t* data() const { return bytes_.get(); }
  size_t size() const { return size_; }
  // Grows (keeping the contents) or shrinks; new bytes are zero.
  void resize(size_t size);

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t[], Free> bytes_;
  size_t size_ = 0;
};

// Reads whole messages from a stream socket through one growing buffer: a recv() takes whatever has
// arrived (up to kBulkReadBytes), so a small reply or a burst of oneways costs one system call, not one per
// header and body.
//
// Each read starts kMessageOffset bytes into a page of the buffer. The kernel copies received bytes out with
// `rep movsb`, which on x86 CPUs with fast string moves runs many times slower when the destination is 1 to 63
// bytes ahead of the source within a page; on loopback a message starts at the beginning of the sender's page
// fragment, so a receive buffer at an allocator's 16-byte offset (plus a header's headroom) is exactly that
// case: a 32 KB receive took ~20 us instead of ~1.7 us on a 2-vCPU AMD EPYC VM (perf, _copy_to_iter).
//
// Every message has at least `headroom` (at most kMessageOffset) bytes of the buffer before its header that
// belong to no unread message (reserved space, or messages already returned), so together with the header,
// headroom + kHeaderBytes bytes in front of the body may be overwritten: a server builds an echo reply there,
// in front of the request's body, and sends it with one send() and no copy.
class MessageReader {
 public:
  static constexpr size_t kMessageOffset = 64;
  // The most one recv() takes in (or the last message's size, if larger): a burst of small messages costs one
  // system call, while a large message is read to its end and no further, so in a flood of large oneways no
  // partial message is left at the end of the buffer to be moved (before: +10-30% client time per call at 64 KB).
  static constexpr size_t kBulkReadBytes = 16 * 1024;

  explicit MessageReader(size_t initial_capacity = 256 * 1024, size_t headroom = 0);

  enum class Result { message, eof, error, bad_header };
  // On `message`, `header` and `body` describe the next message; `body` stays valid until the next call.
  // On `error`, `error_number` holds the errno value (EAGAIN for a receive timeout).
  Result next(int fd, wire::Header& header, uint8_t*& body) {
    // The ping-pong case inline: nothing buffered, and one recv() brings the whole message. Its read is the one
    // fill() would make; everything else goes the general way.
    if (begin_ == end_) {
      begin_ = end_ = kMessageOffset;  // cheap reset keeps each read at the same page offset
      const ssize_t got = recv(fd, buffer_.data() + end_, std::min(buffer_.size() - end_, read_size()), 0);
      if (got > 0) {
        end_ += static_cast<size_t>(got);
      } else if (got == 0 || errno != EINTR) {
        return failed_read(got);
      }
    }
    if (end_ - begin_ >= wire::kHeaderBytes) {
      uint8_t* at = buffer_.data() + begin_;
      if (!wire::decode_header(at, header) || header.body_bytes > wire::kMaxBodyBytes) return Result::bad_header;
      const size_t whole = wire::kHeaderBytes + header.body_bytes;
      if (end_ - begin_ >= whole) {
        body = at + wire::kHeaderBytes;
        begin_ += whole;
        last_message_bytes_ = whole;
        return Result::message;
      }
    }
    return next_slow(fd, header, body);
  }
  int error_number() const { return error_number_; }
  // True when next() needs no read: a whole message (or a bad header) is already in the buffer. A server that
  // waits on many sockets with poll or epoll asks this first, since the kernel no longer reports those bytes.
  bool has_message() const;

 private:
  // Makes at least `needed` bytes available from begin_; returns false on EOF or error.
  bool fill(int fd, size_t needed, bool& eof);
  // next() when the buffer holds no whole message after the inline read.
  Result next_slow(int fd, wire::Header& header, uint8_t*& body);
  // next()'s inline read of an empty buffer brought nothing: a clean EOF (got 0), or an error.
  Result failed_read(ssize_t got);
  // Before a header is known, a read takes up to the last message's size (at least kBulkReadBytes).
  size_t read_size() const { return std::max(kBulkReadBytes, last_message_bytes_); }

  PageBuffer buffer_;
  size_t begin_ = kMessageOffset;
  size_t end_ = kMessageOffset;
  size_t last_message_bytes_ = 0;
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
