// Ice exceptions as worker-contract errors (PROTOCOL.md, "Errors").
#pragma once

#include <string>

#include <Ice/Ice.h>

#include "worker_error.hpp"

namespace orbench {

// The connection's failures (socket, timeout, closed connection, destroyed communicator) are `transport`; an
// exception the server raised or reported (unknown exception, no such object or operation) is `remote`.
WorkerError ice_error(const std::string& what, const Ice::Exception& error);

template <typename Fn>
auto with_ice_errors(const std::string& what, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Ice::Exception& error) {
    throw ice_error(what, error);
  }
}

}  // namespace orbench
