#include "worker_error.hpp"

namespace orbench {

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage: return "usage";
    case ErrorKind::unsupported: return "unsupported";
    case ErrorKind::transport: return "transport";
    case ErrorKind::remote: return "remote";
    case ErrorKind::internal: return "internal";
  }
  return "internal";
}

}  // namespace orbench
