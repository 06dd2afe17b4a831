// The connect options of PROTOCOL.md ("Connect options"), parsed once for every C++ worker. Each target
// then applies what it can and refuses the rest: an option it does not know is `usage`, one it knows but
// cannot do (or a value it cannot do) is `unsupported`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace orbench {

// CORBA Messaging SyncScope values (Messaging::SYNC_NONE .. SYNC_WITH_TARGET are 0..3).
enum class SyncScope { none = 0, transport = 1, server = 2, target = 3 };

struct ConnectOptions {
  std::optional<bool> tcp_nodelay;              // TCP_NODELAY on the connection (both ends)
  std::optional<uint32_t> socket_buffer_bytes;  // SO_SNDBUF and SO_RCVBUF (both ends)
  std::optional<SyncScope> sync_scope;          // oneway SyncScopePolicy override on the object reference

  bool empty() const { return !tcp_nodelay && !socket_buffer_bytes && !sync_scope; }
};

// Parses the "options" object of connect. Throws WorkerError(usage) naming the option for an unknown key or
// a value of the wrong type or range.
ConnectOptions parse_connect_options(const nlohmann::json& options);

// Parses the server's `--option NAME=VALUE` arguments (VALUE is JSON: true, 65536) with the same rules; only
// the options both ends set (tcp_nodelay, socket_buffer_bytes) are valid there. Throws std::invalid_argument.
ConnectOptions parse_server_options(const std::vector<std::string>& name_value_pairs);

const char* sync_scope_name(SyncScope scope);

// For a middleware that sets TCP_NODELAY on every socket itself and offers no other option: accepts
// tcp_nodelay = true (what it does anyway), throws WorkerError(unsupported) naming `middleware` for the rest.
void refuse_connect_options(const ConnectOptions& options, const std::string& middleware);

// Applies TCP_NODELAY and the buffer sizes to a socket; returns "" or what failed (with strerror).
std::string apply_socket_options(int fd, const ConnectOptions& options);

}  // namespace orbench
