// The grpc-cpp target's endpoint form, "grpc://HOST:PORT" (PROTOCOL.md, "gRPC and Ice"), for client and server.
#pragma once

#include <string>

namespace orbench {

// "grpc://HOST:PORT" -> "HOST:PORT" (a gRPC target name); throws WorkerError(usage) for anything else.
std::string grpc_target_of(const std::string& endpoint);
std::string grpc_endpoint_of(const std::string& host, int port);

}  // namespace orbench
