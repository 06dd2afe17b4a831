#include "connect_options.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "worker_error.hpp"

namespace orbench {

namespace {

// Largest buffer size accepted: far above any kernel's cap (net.core.wmem_max), below int overflow.
constexpr uint64_t kMaxSocketBufferBytes = 1u << 30;

void parse_one(ConnectOptions& out, const std::string& key, const nlohmann::json& value) {
  if (key == "tcp_nodelay") {
    if (!value.is_boolean()) throw WorkerError(ErrorKind::usage, "option \"tcp_nodelay\" must be true or false");
    out.tcp_nodelay = value.get<bool>();
  } else if (key == "socket_buffer_bytes") {
    if (!value.is_number_integer() || (!value.is_number_unsigned() && value.get<int64_t>() <= 0) ||
        value.get<uint64_t>() == 0 || value.get<uint64_t>() > kMaxSocketBufferBytes) {
      throw WorkerError(ErrorKind::usage, "option \"socket_buffer_bytes\" must be an integer from 1 to 2^30");
    }
    out.socket_buffer_bytes = static_cast<uint32_t>(value.get<uint64_t>());
  } else if (key == "sync_scope") {
    const std::string name = value.is_string() ? value.get<std::string>() : "";
    if (name == "none") out.sync_scope = SyncScope::none;
    else if (name == "transport") out.sync_scope = SyncScope::transport;
    else if (name == "server") out.sync_scope = SyncScope::server;
    else if (name == "target") out.sync_scope = SyncScope::target;
    else throw WorkerError(ErrorKind::usage, "option \"sync_scope\" must be one of none, transport, server, target");
  } else {
    throw WorkerError(ErrorKind::usage,
                      "unknown option \"" + key + "\" (known: tcp_nodelay, socket_buffer_bytes, sync_scope)");
  }
}

}  // namespace

ConnectOptions parse_connect_options(const nlohmann::json& options) {
  ConnectOptions out;
  for (const auto& item : options.items()) parse_one(out, item.key(), item.value());
  return out;
}

ConnectOptions parse_server_options(const std::vector<std::string>& name_value_pairs) {
  ConnectOptions out;
  for (const std::string& pair : name_value_pairs) {
    const size_t equals = pair.find('=');
    if (equals == std::string::npos) throw std::invalid_argument("--option needs NAME=VALUE, got \"" + pair + "\"");
    const std::string key = pair.substr(0, equals);
    if (key == "sync_scope") throw std::invalid_argument("option sync_scope is a client option, not a server one");
    nlohmann::json value;
    try {
      value = nlohmann::json::parse(pair.substr(equals + 1));
      parse_one(out, key, value);
    } catch (const nlohmann::json::exception&) {
      throw std::invalid_argument("--option " + pair + ": the value is not JSON (true, false, 65536)");
    } catch (const WorkerError& e) {
      throw std::invalid_argument(std::string("--option ") + pair + ": " + e.what());
    }
  }
  return out;
}

const char* sync_scope_name(SyncScope scope) {
  switch (scope) {
    case SyncScope::none: return "none";
    case SyncScope::transport: return "transport";
    case SyncScope::server: return "server";
    case SyncScope::target: return "target";
  }
  return "?";
}

std::string apply_socket_options(int fd, const ConnectOptions& options) {
  if (options.tcp_nodelay) {
    const int on = *options.tcp_nodelay ? 1 : 0;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0) {
      return std::string("setsockopt TCP_NODELAY: ") + std::strerror(errno);
    }
  }
  if (options.socket_buffer_bytes) {
    const int bytes = static_cast<int>(*options.socket_buffer_bytes);
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes) != 0) {
      return std::string("setsockopt SO_SNDBUF/SO_RCVBUF: ") + std::strerror(errno);
    }
  }
  return "";
}

void refuse_connect_options(const ConnectOptions& options, const std::string& middleware) {
  if (options.tcp_nodelay && !*options.tcp_nodelay) {
    throw WorkerError(ErrorKind::unsupported, middleware + " always sets TCP_NODELAY: tcp_nodelay = false cannot be done");
  }
  if (options.socket_buffer_bytes) {
    throw WorkerError(ErrorKind::unsupported, middleware + " has no socket buffer setting here: socket_buffer_bytes cannot be done");
  }
  if (options.sync_scope) {
    throw WorkerError(ErrorKind::unsupported, middleware + " has no SyncScopePolicy: sync_scope cannot be done");
  }
}

}  // namespace orbench
