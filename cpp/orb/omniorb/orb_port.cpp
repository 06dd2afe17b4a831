// The omniORB part of the ORB workers (see orb_port.hpp).
#include "orb_port.hpp"

namespace orbench::orb_port {

const char* target_name() { return "omniorb"; }

const char* orb_name() { return "omniORB"; }

// The library's own answer at run time, so a worker linked against another build says which one it got.
std::string orb_version() { return omniORB::versionString(); }

std::vector<std::string> server_orb_args(const std::string& host, int port) {
  // giop:tcp:HOST:PORT both binds and is published in the IOR. An empty port means "any free port".
  // An IPv6 literal needs brackets so its colons are not read as the port separator.
  const std::string address = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  const std::string port_text = port == 0 ? "" : std::to_string(port);
  return {"-ORBendPoint", "giop:tcp:" + address + ":" + port_text};
}

std::vector<std::string> client_orb_args() { return {}; }

std::string minor_code_text(const CORBA::SystemException& error) {
  const char* text = error.NP_minorString();
  return text != nullptr ? text : "";
}

}  // namespace orbench::orb_port
