#include "endpoint_url.hpp"

#include "worker_error.hpp"

namespace orbench {

std::string endpoint_url(const std::string& scheme, const std::string& host, int port) {
  return scheme + "://" + host_port(host, port);
}

std::string host_port(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

UrlEndpoint parse_endpoint_url(const std::string& scheme, const std::string& endpoint) {
  const std::string prefix = scheme + "://";
  const auto bad = [&] {
    return WorkerError(ErrorKind::usage, "bad endpoint \"" + endpoint + "\": expected " + prefix + "HOST:PORT");
  };
  if (endpoint.compare(0, prefix.size(), prefix) != 0) throw bad();
  const std::string rest = endpoint.substr(prefix.size());
  const size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size()) throw bad();
  UrlEndpoint out;
  out.host = rest.substr(0, colon);
  if (out.host.size() > 2 && out.host.front() == '[' && out.host.back() == ']') {
    out.host = out.host.substr(1, out.host.size() - 2);
  }
  size_t used = 0;
  try {
    out.port = std::stoi(rest.substr(colon + 1), &used);
  } catch (const std::exception&) {
    throw bad();
  }
  if (used != rest.size() - colon - 1 || out.port <= 0 || out.port > 65535) throw bad();
  return out;
}

}  // namespace orbench
