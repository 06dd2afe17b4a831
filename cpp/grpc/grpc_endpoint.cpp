#include "grpc_endpoint.hpp"

#include "worker_error.hpp"

namespace orbench {

namespace {
constexpr const char kScheme[] = "grpc://";
}  // namespace

std::string grpc_endpoint_of(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return std::string(kScheme) + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string grpc_target_of(const std::string& endpoint) {
  const std::string scheme = kScheme;
  if (endpoint.compare(0, scheme.size(), scheme) != 0 || endpoint.size() == scheme.size()) {
    throw WorkerError(ErrorKind::usage, "bad endpoint \"" + endpoint + "\": expected grpc://HOST:PORT");
  }
  return endpoint.substr(scheme.size());
}

}  // namespace orbench
