#include "socket_io.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>

namespace orbench {

int send_rest(int fd, const uint8_t* data, size_t length, ssize_t sent) {
  while (true) {
    if (sent < 0) {
      if (errno != EINTR) return errno;
    } else {
      data += sent;
      length -= static_cast<size_t>(sent);
      if (length == 0) return 0;
    }
    sent = send(fd, data, length, MSG_NOSIGNAL);
  }
}

void skip_cancellation_bookkeeping() {
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, nullptr);
  pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, nullptr);
}

void PageBuffer::resize(size_t size) {
  constexpr size_t kPage = 4096;
  const size_t rounded = (size + kPage - 1) / kPage * kPage;
  std::unique_ptr<uint8_t[], Free> bytes(static_cast<uint8_t*>(std::aligned_alloc(kPage, rounded == 0 ? kPage : rounded)));
  if (!bytes) throw std::bad_alloc();
  const size_t kept = std::min(size, size_);
  if (kept > 0) std::memcpy(bytes.get(), bytes_.get(), kept);
  std::memset(bytes.get() + kept, 0, size - kept);
  bytes_ = std::move(bytes);
  size_ = size;
}

MessageReader::MessageReader(size_t initial_capacity, size_t headroom) : buffer_(kMessageOffset + initial_capacity) {
  if (headroom > kMessageOffset) throw std::invalid_argument("MessageReader headroom above kMessageOffset");
}

bool MessageReader::fill(int fd, size_t needed, bool& eof) {
  if (end_ - begin_ >= needed) return true;
  if (begin_ + needed > buffer_.size()) {
    // Not enough room after begin_: move the partial message to the front (kMessageOffset), and grow if it
    // still won't fit.
    std::memmove(buffer_.data() + kMessageOffset, buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_ - kMessageOffset;
    begin_ = kMessageOffset;
    if (kMessageOffset + needed > buffer_.size()) buffer_.resize(kMessageOffset + needed);
  }
  // A message of more than kBulkReadBytes is read exactly to its end, so nothing behind it comes in with it:
  // the buffer is empty after it and never moves a partial large message. Before its header is known, a read
  // takes up to the last message's size, so a stream of large messages is read a whole message per call.
  const size_t message_end = begin_ + needed;
  const size_t bulk = read_size();
  while (end_ - begin_ < needed) {
    const size_t room = buffer_.size() - end_;
    const size_t want = needed > kBulkReadBytes ? message_end - end_ : std::min(room, bulk);
    const ssize_t got = recv(fd, buffer_.data() + end_, want, 0);
    if (got > 0) {
      end_ += static_cast<size_t>(got);
    } else if (got == 0) {
      eof = true;
      return false;
    } else if (errno != EINTR) {
      error_number_ = errno;
      return false;
    }
  }
  return true;
}

MessageReader::Result MessageReader::failed_read(ssize_t got) {
  if (got == 0) return Result::eof;  // a clean close between messages: the buffer was empty
  error_number_ = errno;
  return Result::error;
}

MessageReader::Result MessageReader::next_slow(int fd, wire::Header& header, uint8_t*& body) {
  if (begin_ == end_) begin_ = end_ = kMessageOffset;
  bool eof = false;
  if (!fill(fd, wire::kHeaderBytes, eof)) {
    if (eof && begin_ == end_) return Result::eof;  // clean close between messages
    if (eof) error_number_ = ECONNRESET;            // EOF in the middle of a header
    return Result::error;
  }
  if (!wire::decode_header(buffer_.data() + begin_, header) || header.body_bytes > wire::kMaxBodyBytes) {
    return Result::bad_header;
  }
  if (!fill(fd, wire::kHeaderBytes + header.body_bytes, eof)) {
    if (eof) error_number_ = ECONNRESET;  // EOF in the middle of a message
    return Result::error;
  }
  body = buffer_.data() + begin_ + wire::kHeaderBytes;
  begin_ += wire::kHeaderBytes + header.body_bytes;
  last_message_bytes_ = wire::kHeaderBytes + header.body_bytes;
  return Result::message;
}

bool MessageReader::has_message() const {
  if (end_ - begin_ < wire::kHeaderBytes) return false;
  wire::Header header;
  if (!wire::decode_header(buffer_.data() + begin_, header) || header.body_bytes > wire::kMaxBodyBytes) return true;
  return end_ - begin_ >= wire::kHeaderBytes + header.body_bytes;
}

std::string format_tcp_endpoint(const std::string& host, int port) {
  const bool ipv6 = host.find(':') != std::string::npos;
  return "tcp://" + (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

HostPort parse_tcp_endpoint(const std::string& endpoint) {
  const std::string scheme = "tcp://";
  if (endpoint.compare(0, scheme.size(), scheme) != 0) throw std::invalid_argument("endpoint must be tcp://HOST:PORT");
  const std::string rest = endpoint.substr(scheme.size());
  const size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size()) {
    throw std::invalid_argument("endpoint must be tcp://HOST:PORT");
  }
  HostPort result;
  result.host = rest.substr(0, colon);
  if (result.host.size() >= 2 && result.host.front() == '[' && result.host.back() == ']') {
    result.host = result.host.substr(1, result.host.size() - 2);
  }
  const std::string port = rest.substr(colon + 1);
  if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 || std::stoi(port) > 65535) {
    throw std::invalid_argument("bad port in endpoint \"" + endpoint + "\"");
  }
  result.port = std::stoi(port);
  return result;
}

namespace {

addrinfo* resolve(const std::string& host, int port, bool passive, std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  // Numeric port always; the host may be a name ("localhost"), but is never a wildcard unless given as one.
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* list = nullptr;
  const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &list);
  if (rc != 0) {
    error = "cannot resolve " + host + ": " + gai_strerror(rc);
    return nullptr;
  }
  return list;
}

void set_buffers(int fd, uint32_t buffer_bytes) {
  if (buffer_bytes == 0) return;
  const int bytes = static_cast<int>(buffer_bytes);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
}

}  // namespace

int listen_tcp(const std::string& host, int port, int& bound_port, std::string& error, uint32_t buffer_bytes) {
  addrinfo* list = resolve(host, port, true, error);
  if (list == nullptr) return -1;
  int fd = -1;
  for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    set_buffers(fd, buffer_bytes);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 16) == 0) break;
    error = "cannot listen on " + host + ":" + std::to_string(port) + ": " + std::strerror(errno);
    close(fd);
    fd = -1;
  }
  freeaddrinfo(list);
  if (fd < 0) return -1;
  sockaddr_storage addr{};
  socklen_t length = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
  bound_port = addr.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                                          : ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  return fd;
}

int connect_tcp(const std::string& host, int port, std::string& error, uint32_t buffer_bytes) {
  addrinfo* list = resolve(host, port, false, error);
  if (list == nullptr) return -1;
  int fd = -1;
  for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    set_buffers(fd, buffer_bytes);
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
    error = "cannot connect to " + host + ":" + std::to_string(port) + ": " + std::strerror(errno);
    close(fd);
    fd = -1;
  }
  freeaddrinfo(list);
  return fd;
}

bool set_tcp_nodelay(int fd, bool on) {
  const int value = on ? 1 : 0;
  return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &value, sizeof value) == 0;
}

void set_io_timeouts(int fd, uint32_t timeout_ms) {
  timeval tv{};
  tv.tv_sec = timeout_ms / 1000;
  tv.tv_usec = static_cast<suseconds_t>(timeout_ms % 1000) * 1000;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

}  // namespace orbench
