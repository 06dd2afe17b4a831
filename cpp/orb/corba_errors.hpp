// CORBA exceptions turned into the contract's errors as data (PROTOCOL.md, "Errors").
#pragma once

#include <string>

#include "orb_port.hpp"
#include "worker_error.hpp"

namespace orbench {

// "CORBA::TRANSIENT (minor 0x535e0102: ..., completed NO)".
std::string describe_corba_exception(const CORBA::Exception& error);

// transport for the exceptions of a lost or unreachable peer, remote for what the server raised.
ErrorKind corba_error_kind(const CORBA::Exception& error);

// Runs `body`; a CORBA exception leaves it as WorkerError, with `what` ("connect", "run") in front.
template <typename Body>
auto with_corba_errors(const char* what, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const CORBA::Exception& error) {
    throw WorkerError(corba_error_kind(error), std::string(what) + ": " + describe_corba_exception(error));
  }
}

}  // namespace orbench
