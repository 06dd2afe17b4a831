// A failure that crosses the worker contract as data: {"ok": false, "error": ..., "error_kind": ...}.
#pragma once

#include <stdexcept>
#include <string>

namespace orbench {

// The error kinds of PROTOCOL.md, "Errors".
enum class ErrorKind { usage, unsupported, transport, remote, internal };

const char* error_kind_name(ErrorKind kind);

class WorkerError : public std::runtime_error {
 public:
  WorkerError(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace orbench
