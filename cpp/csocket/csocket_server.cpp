// orbench-csocket-server: the C socket baseline's server worker. Speaks the OBSK wire format of
// PROTOCOL.md over TCP, one thread per connection (or, with --serial, one thread for all of them, one request
// at a time: serial_server.hpp), counting what it receives.
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
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
#include "requests.hpp"
#include "serial_server.hpp"
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

bool has_flag(const ServerArgs& args, const std::string& flag) {
  return std::find(args.flags.begin(), args.flags.end(), flag) != args.flags.end();
}

// Wakes the accept() of main: on Linux, shutdown() of a listening socket makes a blocked accept fail. The serial
// server waits in epoll instead, woken by its eventfd.
std::atomic<int> stop_event_fd{-1};
void request_stop() {
  shutdown(listen_fd.load(), SHUT_RDWR);
  if (const int fd = stop_event_fd.load(); fd >= 0) eventfd_write(fd, 1);
}

// Serves one connection on a thread of its own until EOF, an error or SHUTDOWN (requests.hpp). With
// stall_after >= 0 (the test hook --stall-after) the server stops reading after that many payload-carrying
// messages.
void serve_connection(int fd, ConnectOptions options, KnownWork work, int64_t stall_after) {
  skip_cancellation_bookkeeping();
  if (const std::string failed = apply_socket_options(fd, options); !failed.empty()) {
    std::fprintf(stderr, "orbench: connection: %s\n", failed.c_str());
  }
  Connection connection(fd);
  After after = After::read_on;
  wire::Header header;
  uint8_t* body = nullptr;
  while (after == After::read_on && connection.reader.next(fd, header, body) == MessageReader::Result::message) {
    if (stall_after >= 0 && carries_payload(header.kind) && payload_messages_read.fetch_add(1) >= stall_after) {
      stall_forever();
    }
    after = serve_request(connection, header, body, counter, work);
  }
  close(fd);
  if (after == After::stop_server) request_stop();
}

int serve(int argc, char** argv) {
  block_stop_signals();
  ServerArgs args;
  ConnectOptions options;
  KnownWork work;
  int64_t stall_after = -1;
  bool serial = false;
  try {
    args = parse_server_args(argc, argv, {"--no-nodelay", "--serial"}, {"--delay-ns", "--work-iterations", "--stall-after"});
    options = parse_server_options(args.options);
    work.delay_ns = delay_ns_arg(args);
    work.work_iterations = integer_value(args.values, "--work-iterations", 0, 0, 1'000'000'000,
                                         "an integer number of loop turns, 0 to 1e9");
    stall_after = stall_after_arg(args);
    serial = has_flag(args, "--serial");
    if (serial && stall_after >= 0) {
      throw std::invalid_argument("--stall-after is a test hook of the thread-per-connection server, not of --serial");
    }
  } catch (const std::invalid_argument& e) {
    print_start_error(e.what());
    return 2;
  }
  // TCP_NODELAY is on for accepted sockets unless --option tcp_nodelay=false (or the older --no-nodelay).
  if (!options.tcp_nodelay) options.tcp_nodelay = !has_flag(args, "--no-nodelay");

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
  auto* service = new ServiceStats;  // leaked with the counter: the stdin thread reads it until _exit
  if (serial) {
    stop_event_fd.store(eventfd(0, EFD_CLOEXEC));
    report_in_stats("service", [service] { return service->json(); });
  }
  start_stop_watchers(request_stop);
  nlohmann::ordered_json info = server_worker_info("c-socket", nullptr, "");
  if (work.delay_ns > 0) info["delay_ns"] = work.delay_ns;  // what this known-answer server adds per call
  if (work.work_iterations > 0) {
    info["work_iterations"] = work.work_iterations;
    if (kWorkInstructionsPerIteration > 0) info["instructions_per_iteration"] = kWorkInstructionsPerIteration;
  }
  if (serial) info["serial"] = true;
  print_ready(format_tcp_endpoint(args.host, bound_port), info);

  if (serial) {
    serve_serially(fd, stop_event_fd.load(), options, work, counter, *service);
    print_exit(counter.snapshot());
    _exit(0);
  }
  while (true) {
    const int connection = accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection >= 0) {
      std::thread(serve_connection, connection, options, work, stall_after).detach();
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
