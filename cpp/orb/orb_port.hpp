// The ORB-specific part of the ORB workers. Everything else under orb/ is written against the standard
// CORBA C++ mapping; each ORB directory (omniorb/, tao/) provides:
//   - orbench_stubs.hpp: includes that ORB's generated stub and skeleton headers for orbench.idl;
//   - orb_port.cpp: the functions below.
#pragma once

#include <string>
#include <vector>

#include "connect_options.hpp"
#include "orbench_stubs.hpp"  // resolved through the ORB directory's include path

namespace orbench::orb_port {

// The target name of the descriptor (harness/targets/NAME.toml), e.g. "omniorb".
const char* target_name();
// The ORB's product name and version for the ready line and hello, e.g. "omniORB", "4.2.5".
const char* orb_name();
std::string orb_version();

// ORB_init arguments that make the server listen on, and advertise in its IOR, exactly HOST:PORT
// (port 0: any free port).
std::vector<std::string> server_orb_args(const std::string& host, int port);
// ORB_init arguments for the client (none needed so far).
std::vector<std::string> client_orb_args();

// ORB_init arguments that give the server's connections the campaign's socket options (tcp_nodelay,
// socket_buffer_bytes from `--option`). Throws WorkerError(unsupported) for what this ORB cannot set.
std::vector<std::string> server_option_args(const ConnectOptions& options);
// The same for the client's ORB (connect options; sync_scope is not an ORB argument and is ignored here).
std::vector<std::string> client_option_args(const ConnectOptions& options);

// `bench` with a CORBA Messaging SyncScopePolicy override (a new reference, owned by the caller). Throws
// WorkerError(unsupported) when this ORB (or this build of it) has no SyncScopePolicy.
orbench::Bench_ptr with_sync_scope(CORBA::ORB_ptr orb, orbench::Bench_ptr bench, SyncScope scope);

// An ORB's own explanation of a system exception's minor code, or "" when it has none.
std::string minor_code_text(const CORBA::SystemException& error);

}  // namespace orbench::orb_port
