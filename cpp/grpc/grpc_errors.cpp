#include "grpc_errors.hpp"

namespace orbench {

WorkerError grpc_error(const std::string& what, const grpc::Status& status) {
  const grpc::StatusCode code = status.error_code();
  const bool transport = code == grpc::StatusCode::UNAVAILABLE || code == grpc::StatusCode::DEADLINE_EXCEEDED ||
                         code == grpc::StatusCode::CANCELLED;
  return WorkerError(transport ? ErrorKind::transport : ErrorKind::remote,
                     what + ": gRPC status " + std::to_string(static_cast<int>(code)) + ": " + status.error_message());
}

}  // namespace orbench
