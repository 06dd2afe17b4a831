#include "protocol_out.hpp"

#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <string>

namespace orbench {

namespace {
FILE* protocol_stream = stdout;  // until reserve_stdout_for_protocol() runs
std::mutex protocol_mutex;
}  // namespace

void reserve_stdout_for_protocol() {
  std::fflush(stdout);
  const int private_fd = dup(STDOUT_FILENO);
  if (private_fd < 0) return;  // keep writing to stdout: still correct, only less protected
  FILE* stream = fdopen(private_fd, "w");
  if (stream == nullptr) {
    close(private_fd);
    return;
  }
  dup2(STDERR_FILENO, STDOUT_FILENO);
  protocol_stream = stream;
}

void write_protocol_line(const nlohmann::ordered_json& line) {
  // Invalid UTF-8 (an ORB's error text, say) is replaced instead of throwing: an answer must always go out.
  const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::lock_guard<std::mutex> lock(protocol_mutex);
  std::fwrite(text.data(), 1, text.size(), protocol_stream);
  std::fputc('\n', protocol_stream);
  std::fflush(protocol_stream);
}

}  // namespace orbench
