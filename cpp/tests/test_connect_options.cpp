// Connect options (PROTOCOL.md, "Connect options") and the payload types' units: every mistake is a usage
// error naming the option; server --option arguments follow the same rules and never take sync_scope.
#include <stdexcept>

#include "check.hpp"
#include "connect_options.hpp"
#include "run_spec.hpp"
#include "worker_error.hpp"

using namespace orbench;
using nlohmann::json;

namespace {

void parses_known_options() {
  const ConnectOptions none = parse_connect_options(json::object());
  CHECK(none.empty());
  const ConnectOptions all = parse_connect_options(
      json::parse(R"({"tcp_nodelay": false, "socket_buffer_bytes": 65536, "sync_scope": "target"})"));
  CHECK(all.tcp_nodelay && !*all.tcp_nodelay);
  CHECK(all.socket_buffer_bytes && *all.socket_buffer_bytes == 65536);
  CHECK(all.sync_scope && *all.sync_scope == SyncScope::target);
  CHECK(std::string(sync_scope_name(SyncScope::none)) == "none");
}

void refuses_bad_options_as_usage() {
  CHECK_WORKER_ERROR(parse_connect_options(json::parse(R"({"no_such": 1})")), ErrorKind::usage);
  CHECK_WORKER_ERROR(parse_connect_options(json::parse(R"({"tcp_nodelay": 1})")), ErrorKind::usage);
  CHECK_WORKER_ERROR(parse_connect_options(json::parse(R"({"socket_buffer_bytes": 0})")), ErrorKind::usage);
  CHECK_WORKER_ERROR(parse_connect_options(json::parse(R"({"socket_buffer_bytes": -5})")), ErrorKind::usage);
  CHECK_WORKER_ERROR(parse_connect_options(json::parse(R"({"socket_buffer_bytes": 1.5})")), ErrorKind::usage);
  CHECK_WORKER_ERROR(parse_connect_options(json::parse(R"({"sync_scope": "always"})")), ErrorKind::usage);
}

void parses_server_options() {
  const ConnectOptions server = parse_server_options({"tcp_nodelay=false", "socket_buffer_bytes=4096"});
  CHECK(server.tcp_nodelay && !*server.tcp_nodelay && *server.socket_buffer_bytes == 4096);
  bool threw = false;
  try {
    parse_server_options({"sync_scope=\"none\""});
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  CHECK(threw);
  threw = false;
  try {
    parse_server_options({"tcp_nodelay"});
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  CHECK(threw);
}

void payload_units() {
  CHECK(counted_payload_bytes(PayloadType::records, 1000) == 992);
  CHECK(counted_payload_bytes(PayloadType::strings, 1000) == 992);
  CHECK(counted_payload_bytes(PayloadType::longs, 1003) == 1000);
  CHECK(counted_payload_bytes(PayloadType::doubles, 1007) == 1000);
  CHECK(counted_payload_bytes(PayloadType::octets, 1) == 1);
  CHECK(counted_payload_bytes(PayloadType::records, 1) == 0);
}

}  // namespace

int main() {
  parses_known_options();
  refuses_bad_options_as_usage();
  parses_server_options();
  payload_units();
  return orbench_test::finish("test_connect_options");
}
