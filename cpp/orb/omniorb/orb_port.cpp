// The omniORB part of the ORB workers (see orb_port.hpp).
#include "orb_port.hpp"

#include "worker_error.hpp"

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

namespace {
// omniORB 4.2 sets TCP_NODELAY on every connection it makes or accepts and has no setting to turn it off;
// its only socket buffer setting, socketSendBuffer, sets SO_SNDBUF and not SO_RCVBUF, so it cannot match the
// baselines' socket_buffer_bytes (both buffers). What it does anyway (tcp_nodelay = true) is accepted.
std::vector<std::string> option_args(const ConnectOptions& options) {
  if (options.tcp_nodelay && !*options.tcp_nodelay) {
    throw WorkerError(ErrorKind::unsupported, "omniORB always sets TCP_NODELAY: tcp_nodelay = false cannot be done");
  }
  if (options.socket_buffer_bytes) {
    throw WorkerError(ErrorKind::unsupported,
                      "omniORB cannot set socket_buffer_bytes (socketSendBuffer sets SO_SNDBUF only, no SO_RCVBUF)");
  }
  return {};
}
}  // namespace

std::vector<std::string> server_option_args(const ConnectOptions& options) { return option_args(options); }

std::vector<std::string> client_option_args(const ConnectOptions& options) { return option_args(options); }

orbench::Bench_ptr with_sync_scope(CORBA::ORB_ptr, orbench::Bench_ptr, SyncScope) {
  throw WorkerError(ErrorKind::unsupported, "omniORB has no CORBA Messaging SyncScopePolicy");
}

std::string minor_code_text(const CORBA::SystemException& error) {
  const char* text = error.NP_minorString();
  return text != nullptr ? text : "";
}

}  // namespace orbench::orb_port
