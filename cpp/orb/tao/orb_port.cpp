// The TAO part of the ORB workers (see orb_port.hpp). Built by tao.cmake where TAO is found.
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

std::string minor_code_text(const CORBA::SystemException& error) {
  // TAO explains a minor code only inside _info(): "system exception, ID '<repo id>'" then, after a newline
  // (or "; " when TAO was built with TAO_SUPPRESS_NEW_LINE_IN_EXCEPTION_LOGGING), the explanation, e.g.
  // "TAO exception, minor code = 2 (<where>; <errno>), completed = NO". Keep the explanation, less the
  // completion status, which the caller prints itself.
  const std::string info = error._info().c_str();
  std::size_t start = info.find('\n');
  if (start == std::string::npos) start = info.find("'; ");
  if (start == std::string::npos) return "";
  std::string detail = info.substr(info[start] == '\n' ? start + 1 : start + 3);
  const std::size_t end = detail.rfind(", completed = ");
  if (end != std::string::npos) detail.resize(end);
  return detail;
}

}  // namespace orbench::orb_port
