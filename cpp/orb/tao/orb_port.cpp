// The TAO part of the ORB workers (see orb_port.hpp). Not built yet (no TAO on this machine); kept next to
// the omniORB part so the TAO target needs only its CMake rules. See cpp/README.md, "Adding TAO".
#include "orb_port.hpp"

#include <tao/Version.h>

namespace orbench::orb_port {

const char* target_name() { return "tao"; }

const char* orb_name() { return "TAO"; }

std::string orb_version() { return TAO_VERSION; }

std::vector<std::string> server_orb_args(const std::string& host, int port) {
  // iiop://HOST:PORT binds and is published in the IOR; port 0 lets the OS choose.
  const std::string address = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return {"-ORBListenEndpoints", "iiop://" + address + ":" + std::to_string(port)};
}

std::vector<std::string> client_orb_args() { return {}; }

std::string minor_code_text(const CORBA::SystemException&) { return ""; }

}  // namespace orbench::orb_port
