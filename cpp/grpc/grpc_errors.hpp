// gRPC status codes as worker-contract errors (PROTOCOL.md, "Errors").
#pragma once

#include <string>

#include <grpcpp/grpcpp.h>

#include "worker_error.hpp"

namespace orbench {

// UNAVAILABLE, DEADLINE_EXCEEDED and CANCELLED are the connection's (transport); any other code is the
// server's answer (remote).
WorkerError grpc_error(const std::string& what, const grpc::Status& status);

inline void check_status(const char* what, const grpc::Status& status) {
  if (!status.ok()) throw grpc_error(what, status);
}

}  // namespace orbench
