// The C socket server's --serial mode (PROTOCOL.md, "Load servers"): one thread serves every connection, one
// whole request at a time, so that with --delay-ns N it is a single-server queue whose service time it measures.
#pragma once

#include <cstdint>
#include <mutex>

#include <nlohmann/json.hpp>

#include "connect_options.hpp"
#include "message_counter.hpp"
#include "requests.hpp"

namespace orbench {

// The service-time moments of the payload-carrying requests served since the server started: their count,
// the sum of their service times and of the squares (ns^2, a double). Written by the serving thread, read by
// the stdin thread's stats answer.
class ServiceStats {
 public:
  void add(int64_t service_ns) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++requests_;
    busy_ns_ += static_cast<uint64_t>(service_ns);
    busy_sq_ns2_ += static_cast<double>(service_ns) * static_cast<double>(service_ns);
  }
  nlohmann::ordered_json json() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return {{"requests", requests_}, {"busy_ns", busy_ns_}, {"busy_sq_ns2", busy_sq_ns2_}};
  }

 private:
  mutable std::mutex mutex_;
  uint64_t requests_ = 0;
  uint64_t busy_ns_ = 0;
  double busy_sq_ns2_ = 0;
};

// Serves the connections of `listen_fd` on the calling thread until a SHUTDOWN request or until `stop_fd` (an
// eventfd) becomes readable. Every accepted socket gets `options`; every payload-carrying request does the
// known `work` and adds its service time to `service`.
void serve_serially(int listen_fd, int stop_fd, const ConnectOptions& options, const KnownWork& work,
                    MessageCounter& counter, ServiceStats& service);

}  // namespace orbench
