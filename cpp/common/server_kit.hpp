// The server worker of every IDL-driven middleware (PROTOCOL.md, "Server worker"), beside idl_client.hpp: one
// template holds what they share (arguments and --target, option refusal, --objects K, the counters and the sync
// barrier, the ready, stats and exit lines, stopping on shutdown(), stdin EOF or a signal), so a middleware adds
// only its servant glue (each IDL operation a line that calls BenchCore) and how it listens and stops.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "connect_options.hpp"
#include "message_counter.hpp"
#include "protocol_out.hpp"
#include "run_spec.hpp"
#include "server_support.hpp"

namespace orbench {

namespace kit_detail {
template <typename S, typename = void>
struct has_length : std::false_type {};
template <typename S>
struct has_length<S, std::void_t<decltype(std::declval<const S&>().length())>> : std::true_type {};

// A string element's characters, narrow or wide: std::string, const char*, or the CORBA mapping's element (in()).
template <typename Element>
uint64_t string_chars(const Element& s) {
  if constexpr (std::is_convertible_v<const Element&, std::string_view>) {
    return std::string_view(s).size();
  } else if constexpr (std::is_convertible_v<const Element&, std::wstring_view>) {
    return std::wstring_view(s).size();
  } else {
    return string_chars(s.in());
  }
}
}  // namespace kit_detail

// The bytes a payload counts for (PROTOCOL.md, "Payload types"): its elements times the unit, a string its
// characters. Any sequence with size() or length() (the CORBA mapping) and operator[]: std::vector, std::string,
// a protobuf repeated field, a CORBA sequence.
template <PayloadType T, typename Sequence>
uint64_t payload_bytes(const Sequence& payload) {
  uint64_t length = 0;
  if constexpr (kit_detail::has_length<Sequence>::value) {
    length = payload.length();
  } else {
    length = payload.size();
  }
  if constexpr (T == PayloadType::strings) {
    uint64_t bytes = 0;
    for (uint64_t i = 0; i < length; ++i) bytes += kit_detail::string_chars(payload[i]);
    return bytes;
  } else {
    return length * payload_unit_bytes(T);
  }
}

// `value` as an integer of type To: a negative one is 0, one above To's largest is that largest. Integers of
// the middleware's mapping (signed in Slice and Thrift, unsigned in CORBA and protobuf) meet the counters here.
template <typename To, typename From>
To clamp_to(From value) {
  if constexpr (std::is_signed_v<From>) {
    if (value < 0) return 0;
  }
  const auto wide = static_cast<std::make_unsigned_t<From>>(value);
  return wide > std::numeric_limits<To>::max() ? std::numeric_limits<To>::max() : static_cast<To>(wide);
}

// The objects references(first, count) names: first .. first + count - 1, none past the last.
struct ObjectRange {
  uint32_t begin = 0;
  uint32_t end = 0;
};

// What every servant does, whatever its middleware: counts each payload-carrying request, answers the sync
// barrier, the counters and their reset, says which objects references() names, and starts the stop. The
// glue's IDL operations call it.
class BenchCore {
 public:
  template <PayloadType T, typename Sequence>
  void count(const Sequence& payload) { counter_.count(payload_bytes<T>(payload)); }
  // The same for a request to object `object` of a server that takes --objects (ServerSpec::takes_objects).
  template <PayloadType T, typename Sequence>
  void count(const Sequence& payload, uint32_t object) { counter_.count(payload_bytes<T>(payload), object); }
  // The IDL's sync(expected, timeout_ms), in whatever integers the middleware maps them to: clamped to 0 and to
  // 2^64 - 1 messages, 2^32 - 1 ms.
  template <typename Expected, typename Timeout>
  SyncOutcome sync(Expected expected, Timeout timeout_ms) {
    return counter_.wait_for(clamp_to<uint64_t>(expected), clamp_to<uint32_t>(timeout_ms));
  }
  Counts counters() const { return counter_.snapshot(); }
  void reset_counters() { counter_.reset(); }
  // The IDL's references(first, count): the objects it names among the server's (--objects K).
  template <typename First, typename Count>
  ObjectRange references(First first, Count count) const {
    const uint64_t begin = std::min<uint64_t>(clamp_to<uint64_t>(first), objects_);
    const uint64_t end = std::min<uint64_t>(objects_, begin + clamp_to<uint32_t>(count));
    return {static_cast<uint32_t>(begin), static_cast<uint32_t>(end)};
  }
  // Starts the stop, once, on a thread of its own: the request asking for it (shutdown()) still gets its reply.
  // A stop asked for before the server listens happens when it does.
  void shutdown();

  const MessageCounter& counter() const { return counter_; }
  // Called by the kit before the server is built, for a server that takes --objects: it has `objects`.
  void track_objects(uint32_t objects);
  // Called by the kit once the server listens: what stops it.
  void on_shutdown(std::function<void()> stop);

 private:
  MessageCounter counter_;
  uint32_t objects_ = 0;
  std::mutex mutex_;
  std::function<void()> stop_;
  bool requested_ = false;
  bool stopped_ = false;
};

// What a middleware's server tells the kit about itself: who it is, then what it takes, set by name.
struct ServerSpec {
  ServerSpec(std::string target_name, std::string orb_name, std::string orb_version)
      : target(std::move(target_name)), orb(std::move(orb_name)), version(std::move(orb_version)) {}

  std::string target;   // the descriptor's name when --target is not given, e.g. "thrift-cpp"
  std::string orb;      // the product, e.g. "Apache Thrift"
  std::string version;
  // `--name VALUE` arguments of its own (e.g. "--transport"), and the prefix of arguments it passes to the
  // middleware itself (e.g. "--Ice.", "-ORB"), each followed by a value if middleware_arg_values ("-ORBname
  // value"); --host, --port, --target, --option and --objects are the kit's.
  std::vector<std::string> values;
  std::string middleware_prefix;
  bool middleware_arg_values = false;
  // Whether it applies the server-side connect options (--option NAME=VALUE); if not, why (printed on refusal).
  bool takes_options = false;
  std::string no_options_because;
  // Whether it serves K objects (--objects K, PROTOCOL.md "Load servers"); its stats then say objects_called.
  bool takes_objects = false;
};

// The parsed command line a server starts from.
struct ServerConfig {
  std::string host;
  int port = 0;
  std::string target;                       // --target, else ServerSpec::target
  ConnectOptions options;                   // --option NAME=VALUE (only if ServerSpec::takes_options)
  uint32_t objects = 1;                     // --objects K (only if ServerSpec::takes_objects)
  std::map<std::string, std::string> values;  // its own --name VALUE arguments, by name
  std::vector<std::string> middleware_args;   // those starting with ServerSpec::middleware_prefix

  // Its own `--name N`, `absent` when not given; throws std::invalid_argument unless an integer low .. high.
  int64_t integer(const std::string& name, int64_t absent, int64_t low, int64_t high,
                  const std::string& expected) const {
    return integer_value(values, name, absent, low, high, expected);
  }
};

// Throws std::invalid_argument with a usage text.
ServerConfig parse_server_config(int argc, char** argv, const ServerSpec& spec);

// A middleware's server S (thrift/thrift_server.cpp is one):
//   static ServerSpec spec();
//   S(const ServerConfig& config, BenchCore& core);   builds the server; throws std::invalid_argument for an
//       argument or option it cannot take (exit 2), another std::exception saying why it cannot start (exit 1)
//   void serve(const std::function<void(const std::string& endpoint)>& ready);
//       listens on config.host:config.port, calls ready(endpoint) once it does, dispatches until stop()
//   void stop();   called once, from a thread of its own
template <class S>
int server_main(int argc, char** argv) {
  reserve_stdout_for_protocol();
  block_stop_signals();  // before the middleware starts any thread
  const ServerSpec spec = S::spec();
  // Leaked: detached threads (the stop watchers, a sync() still waiting) may use it while main returns.
  auto* core = new BenchCore;
  try {
    const ServerConfig config = parse_server_config(argc, argv, spec);
    if (spec.takes_objects) core->track_objects(config.objects);
    report_received_in_stats(&core->counter());
    S server(config, *core);
    start_stop_watchers([core] { core->shutdown(); });
    server.serve([&](const std::string& endpoint) {
      core->on_shutdown([&server] { server.stop(); });
      nlohmann::ordered_json info = server_worker_info(config.target, spec.orb.c_str(), spec.version);
      if (config.objects > 1) info["objects"] = config.objects;
      print_ready(endpoint, info);
    });
    print_exit(core->counters());
    // _exit, before the server is destroyed: a sync() still waiting on one of the middleware's threads must not
    // hold the process, and a late stop request must find the server still there. The protocol lines are out.
    _exit(0);
  } catch (const std::invalid_argument& e) {
    print_start_error(e.what());
    return 2;
  } catch (const std::exception& e) {
    print_start_error(spec.orb + ": " + e.what());
    return 1;
  }
}

}  // namespace orbench
