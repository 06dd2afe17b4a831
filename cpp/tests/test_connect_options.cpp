// Connect options (PROTOCOL.md, "Connect options") and the payload types' units: every mistake is a usage
// error naming the option; server --option arguments follow the same rules and never take sync_scope.
#include <stdexcept>

#include "check.hpp"
#include "connect_options.hpp"
#include "payload_values.hpp"
#include "run_spec.hpp"
#include "server_support.hpp"
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

// A known-answer server's --delay-ns: a whole number of ns from 0 to 1e9, absent meaning 0.
ServerArgs server_args(std::vector<std::string> words) {
  std::vector<char*> argv;
  static std::string name = "server";
  argv.push_back(name.data());
  for (auto& w : words) argv.push_back(w.data());
  return parse_server_args(static_cast<int>(argv.size()), argv.data(), {"--no-nodelay"}, {"--delay-ns"});
}

void parses_delay_ns() {
  CHECK(delay_ns_arg(server_args({"--host", "h", "--port", "0"})) == 0);
  CHECK(delay_ns_arg(server_args({"--host", "h", "--delay-ns", "2000", "--port", "0"})) == 2000);
  CHECK(delay_ns_arg(server_args({"--host", "h", "--port", "0", "--delay-ns", "1000000000"})) == 1'000'000'000);
  for (const char* bad : {"-5", "1x", "", "2000000000", "1e3"}) {
    bool refused = false;
    try {
      delay_ns_arg(server_args({"--host", "h", "--port", "0", "--delay-ns", bad}));
    } catch (const std::invalid_argument&) {
      refused = true;
    }
    CHECK(refused);
  }
  bool missing_value = false;
  try {
    server_args({"--host", "h", "--port", "0", "--delay-ns"});
  } catch (const std::invalid_argument&) {
    missing_value = true;
  }
  CHECK(missing_value);
}

// gRPC and Ice set TCP_NODELAY themselves: true is what they do, anything else is refused as unsupported.
void middleware_refuses_what_it_cannot_set() {
  using orbench::ErrorKind;
  using orbench::parse_connect_options;
  using orbench::refuse_connect_options;
  refuse_connect_options(parse_connect_options(nlohmann::json::object()), "gRPC");
  refuse_connect_options(parse_connect_options({{"tcp_nodelay", true}}), "gRPC");
  CHECK_WORKER_ERROR(refuse_connect_options(parse_connect_options({{"tcp_nodelay", false}}), "Ice"),
                     ErrorKind::unsupported);
  CHECK_WORKER_ERROR(refuse_connect_options(parse_connect_options({{"socket_buffer_bytes", 65536}}), "Ice"),
                     ErrorKind::unsupported);
  CHECK_WORKER_ERROR(refuse_connect_options(parse_connect_options({{"sync_scope", "none"}}), "gRPC"),
                     ErrorKind::unsupported);
}

// Element i of every payload type, as PROTOCOL.md gives it (the same in Java's Payloads).
void payload_values() {
  using namespace orbench::payload;
  CHECK(octet(257) == 1);
  CHECK(long_value(1) == static_cast<int32_t>(2654435761u));
  CHECK(double_value(3) == 1.75);
  CHECK(string_value(0) == "abcdefghijklmnop");
  CHECK(string_value(25).substr(0, 2) == "za");
  CHECK(record_flags(5) == 5 && record_kind(0x1234) == 0x34 && record_level(0x1234) == 0x12);
}

int main() {
  parses_delay_ns();
  middleware_refuses_what_it_cannot_set();
  payload_values();
  parses_known_options();
  refuses_bad_options_as_usage();
  parses_server_options();
  payload_units();
  return orbench_test::finish("test_connect_options");
}
