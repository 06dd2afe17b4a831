// Endpoints of the form SCHEME://HOST:PORT (PROTOCOL.md: grpc://, thrift://), an IPv6 host in brackets: written
// by a server for its ready line, read by its client at connect.
#pragma once

#include <string>

namespace orbench {

struct UrlEndpoint {
  std::string host;  // without brackets
  int port = 0;
};

std::string endpoint_url(const std::string& scheme, const std::string& host, int port);
// "HOST:PORT", an IPv6 host in brackets: the address form of socket libraries and gRPC targets.
std::string host_port(const std::string& host, int port);

// Throws WorkerError(usage) naming the form expected.
UrlEndpoint parse_endpoint_url(const std::string& scheme, const std::string& endpoint);

}  // namespace orbench
