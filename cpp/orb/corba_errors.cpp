#include "corba_errors.hpp"

#include <cstdio>

namespace orbench {

std::string describe_corba_exception(const CORBA::Exception& error) {
  std::string text = std::string("CORBA::") + error._name();
  if (const auto* system = dynamic_cast<const CORBA::SystemException*>(&error)) {
    char minor[16];
    std::snprintf(minor, sizeof minor, "0x%08lx", static_cast<unsigned long>(system->minor()));
    const std::string minor_text = orb_port::minor_code_text(*system);
    const CORBA::CompletionStatus completed = system->completed();
    text += std::string(" (minor ") + minor + (minor_text.empty() ? "" : ": " + minor_text) + ", completed " +
            (completed == CORBA::COMPLETED_YES ? "YES" : completed == CORBA::COMPLETED_NO ? "NO" : "MAYBE") + ")";
  } else {
    text += std::string(" (") + error._rep_id() + ")";
  }
  return text;
}

ErrorKind corba_error_kind(const CORBA::Exception& error) {
  // These system exceptions say the request did not get through or its reply did not come back.
  if (dynamic_cast<const CORBA::TRANSIENT*>(&error) || dynamic_cast<const CORBA::COMM_FAILURE*>(&error) ||
      dynamic_cast<const CORBA::TIMEOUT*>(&error) || dynamic_cast<const CORBA::NO_RESPONSE*>(&error)) {
    return ErrorKind::transport;
  }
  return ErrorKind::remote;
}

}  // namespace orbench
