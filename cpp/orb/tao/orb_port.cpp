// The TAO part of the ORB workers (see orb_port.hpp). Built by tao.cmake where TAO is found.
#include "orb_port.hpp"

#include <tao/Version.h>

#ifdef ORBENCH_TAO_MESSAGING
#include <tao/AnyTypeCode/Any.h>
#include <tao/Messaging/Messaging.h>
#endif

#include "corba_errors.hpp"
#include "worker_error.hpp"

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

namespace {
// TAO's ORB parameters for its IIOP connections (both roles): -ORBNodelay (default 1), -ORBSndSock and
// -ORBRcvSock (SO_SNDBUF / SO_RCVBUF; default: the OS's).
std::vector<std::string> option_args(const ConnectOptions& options) {
  std::vector<std::string> args;
  if (options.tcp_nodelay) args.insert(args.end(), {"-ORBNodelay", *options.tcp_nodelay ? "1" : "0"});
  if (options.socket_buffer_bytes) {
    const std::string bytes = std::to_string(*options.socket_buffer_bytes);
    args.insert(args.end(), {"-ORBSndSock", bytes, "-ORBRcvSock", bytes});
  }
  return args;
}
}  // namespace

std::vector<std::string> server_option_args(const ConnectOptions& options) { return option_args(options); }

std::vector<std::string> client_option_args(const ConnectOptions& options) { return option_args(options); }

#ifdef ORBENCH_TAO_MESSAGING
orbench::Bench_ptr with_sync_scope(CORBA::ORB_ptr orb, orbench::Bench_ptr bench, SyncScope scope) {
  return with_corba_errors("sync_scope", [&] {
    CORBA::Any value;
    value <<= static_cast<Messaging::SyncScope>(scope);  // SYNC_NONE .. SYNC_WITH_TARGET are 0..3
    CORBA::PolicyList policies(1);
    policies.length(1);
    policies[0] = orb->create_policy(Messaging::SYNC_SCOPE_POLICY_TYPE, value);
    CORBA::Object_var overridden = bench->_set_policy_overrides(policies, CORBA::ADD_OVERRIDE);
    policies[0]->destroy();
    return orbench::Bench::_narrow(overridden.in());
  });
}
#else
orbench::Bench_ptr with_sync_scope(CORBA::ORB_ptr, orbench::Bench_ptr, SyncScope) {
  throw WorkerError(ErrorKind::unsupported,
                    "this TAO has no TAO_Messaging library (SyncScopePolicy): build tao/Messaging and run make cpp");
}
#endif

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
