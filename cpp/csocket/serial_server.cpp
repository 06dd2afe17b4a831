#include "serial_server.hpp"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "clock.hpp"
#include "requests.hpp"

namespace orbench {
namespace {

// A SYNC that found the count short, answered once the count reaches `expected` or at `deadline_ns`. A serial
// server cannot wait in it as a connection's thread does: the requests it waits for come on other connections,
// or behind it. Its connection is not read meanwhile (its client waits for this reply).
struct PendingSync {
  uint32_t id;
  uint64_t expected;
  int64_t deadline_ns;
};

struct Slot {
  std::unique_ptr<Connection> connection;
  std::optional<PendingSync> sync;
};

class SerialServer {
 public:
  SerialServer(int listen_fd, int stop_fd, const ConnectOptions& options, const KnownWork& work, MessageCounter& counter,
               ServiceStats& service)
      : listen_fd_(listen_fd), stop_fd_(stop_fd), options_(options), work_(work), counter_(counter),
        service_(service) {}

  ~SerialServer() {
    for (auto& [fd, slot] : slots_) close(fd);
    if (epoll_fd_ >= 0) close(epoll_fd_);
  }

  void run() {
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    // Accepting must not block the one thread: only the listening socket is non-blocking. Accepted sockets
    // do not inherit it and stay blocking, so a request is read and answered whole once it has begun.
    fcntl(listen_fd_, F_SETFL, fcntl(listen_fd_, F_GETFL) | O_NONBLOCK);
    if (epoll_fd_ < 0 || !watch(listen_fd_) || !watch(stop_fd_)) {
      std::fprintf(stderr, "orbench: serial server: epoll: %s\n", std::strerror(errno));
      return;
    }
    std::array<epoll_event, 64> events{};
    std::vector<int> ready;
    while (true) {
      const int n = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), wait_ms());
      if (n < 0 && errno != EINTR) {
        std::fprintf(stderr, "orbench: serial server: epoll_wait: %s\n", std::strerror(errno));
        return;
      }
      ready.clear();
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == stop_fd_) return;
        if (fd == listen_fd_) {
          if (!accept_all()) return;  // the listening socket was shut down: stop
        } else {
          ready.push_back(fd);
        }
      }
      // Requests already read into a connection's buffer (a burst of oneways) are ready too: the kernel no
      // longer reports their bytes.
      for (const auto& [fd, slot] : slots_) {
        if (!slot.sync && slot.connection->reader.has_message()) ready.push_back(fd);
      }
      // One request from each ready connection per round, in the order of their sockets.
      std::sort(ready.begin(), ready.end());
      ready.erase(std::unique(ready.begin(), ready.end()), ready.end());
      for (const int fd : ready) {
        if (!serve_one(fd)) return;
      }
      answer_syncs();
    }
  }

 private:
  bool watch(int fd) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    return epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) == 0;
  }

  // False when the listening socket no longer accepts (request_stop shut it down).
  bool accept_all() {
    while (true) {
      const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
        if (errno == EINTR || errno == ECONNABORTED) continue;
        return false;
      }
      if (const std::string failed = apply_socket_options(fd, options_); !failed.empty()) {
        std::fprintf(stderr, "orbench: connection: %s\n", failed.c_str());
      }
      if (!watch(fd)) {
        close(fd);
        continue;
      }
      slots_[fd].connection = std::make_unique<Connection>(fd);
    }
  }

  void close_slot(int fd) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    close(fd);
    slots_.erase(fd);
  }

  // Serves one whole request of the connection (PROTOCOL.md: its service time runs from before the read
  // that brings its first byte, or the end of the previous request, to the return of its reply's write).
  // False when the server is to stop (a SHUTDOWN request).
  bool serve_one(int fd) {
    const auto it = slots_.find(fd);
    if (it == slots_.end() || it->second.sync) return true;
    Connection& c = *it->second.connection;
    wire::Header header;
    uint8_t* body = nullptr;
    const int64_t start_ns = monotonic_ns();
    if (c.reader.next(fd, header, body) != MessageReader::Result::message) {
      close_slot(fd);  // EOF, an error or a bad header
      return true;
    }
    if (header.kind == wire::SYNC && header.body_bytes == wire::kSyncRequestBytes) {
      const uint32_t timeout_ms = wire::get_u32(body + 8);
      it->second.sync = PendingSync{c.request_id++, wire::get_u64(body),
                                    monotonic_ns() + int64_t{timeout_ms} * 1'000'000};
      // Not read until answered: its client sends nothing meanwhile, and an EOF would wake every round.
      if (!settle(fd, it->second)) set_interest(fd, 0);
      return true;
    }
    const After after = serve_request(c, header, body, counter_, work_);
    if (carries_payload(header.kind)) service_.add(monotonic_ns() - start_ns);
    if (after != After::read_on) close_slot(fd);
    return after != After::stop_server;
  }

  // Answers the slot's waiting SYNC if its count is reached or its timeout has passed; false if it still waits.
  // A connection whose reply cannot be sent is closed.
  bool settle(int fd, Slot& slot) {
    const Counts counts = counter_.snapshot();
    const bool complete = counts.messages >= slot.sync->expected;
    if (!complete && monotonic_ns() < slot.sync->deadline_ns) return false;
    const bool sent = answer_sync(*slot.connection, slot.sync->id, SyncOutcome{complete, counts});
    slot.sync.reset();
    if (sent) {
      set_interest(fd, EPOLLIN);
    } else {
      close_slot(fd);
    }
    return true;
  }

  void answer_syncs() {
    std::vector<int> waiting;
    for (const auto& [fd, slot] : slots_) {
      if (slot.sync) waiting.push_back(fd);
    }
    for (const int fd : waiting) settle(fd, slots_.at(fd));
  }

  void set_interest(int fd, uint32_t events) {
    epoll_event event{};
    event.events = events;
    event.data.fd = fd;
    epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &event);
  }

  // epoll_wait's timeout: none while a request waits in a buffer, until the nearest SYNC deadline while one
  // waits, else forever.
  int wait_ms() const {
    int64_t nearest = -1;
    for (const auto& [fd, slot] : slots_) {
      if (!slot.sync && slot.connection->reader.has_message()) return 0;
      if (slot.sync && (nearest < 0 || slot.sync->deadline_ns < nearest)) nearest = slot.sync->deadline_ns;
    }
    if (nearest < 0) return -1;
    const int64_t left_ns = std::max<int64_t>(0, nearest - monotonic_ns());
    return static_cast<int>((left_ns + 999'999) / 1'000'000);
  }

  const int listen_fd_;
  const int stop_fd_;
  const ConnectOptions options_;
  const KnownWork work_;
  MessageCounter& counter_;
  ServiceStats& service_;
  int epoll_fd_ = -1;
  std::map<int, Slot> slots_;  // by socket: a round serves them in this order
};

}  // namespace

void serve_serially(int listen_fd, int stop_fd, const ConnectOptions& options, const KnownWork& work,
                    MessageCounter& counter, ServiceStats& service) {
  skip_cancellation_bookkeeping();  // it serves on main, the process's stdin and signal threads beside it
  SerialServer(listen_fd, stop_fd, options, work, counter, service).run();
}

}  // namespace orbench
